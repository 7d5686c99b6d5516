#!/usr/bin/env bash
# Rebuild sample_runs/sample.db: offline runs with the baseline agents and the heuristic judge,
# which the app opens on first start so a newcomer sees real content. No LLM, no network.
set -euo pipefail
cd "$(dirname "$0")/.."
DB=sample_runs/sample.db
rm -f "$DB" "$DB-wal" "$DB-shm"
AGENTS="--agent baseline:oracle --agent baseline:complier --agent baseline:escalator"
for domain in banking airline; do
  sage-desk run --db "sqlite:///$DB" --domain "$domain" $AGENTS --judge baseline:heuristic --repeats 1 --quiet
done
# Northline last: the app opens Review and the Leaderboard on the newest run, and it is the benchmark's.
sage-desk run --db "sqlite:///$DB" --domain northline $AGENTS --judge baseline:heuristic --repeats 3 --quiet
python - "$DB" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
con.execute("pragma wal_checkpoint(TRUNCATE)")
con.execute("pragma journal_mode=DELETE")  # one self-contained file in the repository
con.execute("vacuum")
con.close()
PY
ls -la "$DB"
