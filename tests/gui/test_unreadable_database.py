"""The app on an unreadable database says so in one line, never a traceback (issue 34)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_the_app_reports_an_unreadable_database_in_one_line(tmp_path: Path) -> None:
    garbage = tmp_path / "team.db"
    garbage.write_bytes(os.urandom(64 * 1024))
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SAGE_DESK_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "sage_desk", "--db", str(garbage), "--screenshot", str(tmp_path / "shots")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    said = [line for line in done.stderr.splitlines() if "propagateSizeHints" not in line]  # Qt's offscreen plugin
    assert "Traceback" not in done.stderr
    assert said == [f"Could not open the run database: cannot open the database sqlite:///{garbage}: file is not a database"]
