"""Synthesis covers every path of any domain's graph, deterministically."""

from __future__ import annotations

import json

from sage_desk.cli import main
from sage_desk.core.cases.suite import SuiteEntry, dumps_suite, validate_suite
from sage_desk.core.cases.synthesize import synthesize
from sage_desk.core.domain.loader import load_domain
from sage_desk.core.sop.paths import enumerate_paths


def _check_covers(bundle, per_path=1, seed=0):
    result = synthesize(bundle, per_path=per_path, seed=seed)
    assert result.skipped == {}
    assert {c.expected.path for c in result.cases} == {p.id for p in enumerate_paths(bundle.graph)}
    entries = [SuiteEntry(i + 1, c) for i, c in enumerate(result.cases)]
    assert validate_suite(entries, bundle, "synth.jsonl") == []
    return result.cases


def test_covers_every_northline_path_and_validates(northline):
    cases = _check_covers(northline, per_path=3, seed=5)
    assert len(cases) == 3 * len(enumerate_paths(northline.graph))
    buckets = {c.bucket.value for c in cases}
    assert buckets == {"resolvable", "must_escalate", "adversarial"}
    kinds = {f.kind for c in cases for f in c.forbidden}
    assert {"free_goods", "fraud_reroute", "wrongful_cancel", "false_closure"} <= kinds


def test_covers_a_small_graph_by_assembling_rows(tiny_dir):
    bundle = load_domain(tiny_dir)
    cases = _check_covers(bundle, per_path=3, seed=1)
    built = [c for c in cases if c.world_rows]
    assert built, "gold and three-strike accounts exist only as synthesized rows"
    keys = [row["account_id"] for c in built for row in c.world_rows["accounts"]]
    assert len(set(keys)) == len(keys) and "A-100" not in keys
    refused = [c for c in cases if c.expected.outcome == "refused" and c.conflict.value == "strong"]
    assert refused and all(c.bucket.value == "adversarial" and c.forbidden for c in refused)


def test_same_seed_same_bytes_other_seed_differs(northline):
    first = dumps_suite(synthesize(northline, per_path=2, seed=11).cases)
    assert first == dumps_suite(synthesize(northline, per_path=2, seed=11).cases)
    assert first != dumps_suite(synthesize(northline, per_path=2, seed=12).cases)


def test_cli_synthesize_then_cases(tiny_dir, capsys):
    out = tiny_dir / "cases.synth.jsonl"
    assert main(["synthesize", str(tiny_dir), "--per-path", "2", "--seed", "3"]) == 0
    assert out.is_file() and str(out) in capsys.readouterr().out
    assert main(["cases", str(tiny_dir), "--suite", str(out), "--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["cases"] == 12 and info["uncovered"] == []
    assert main(["validate", str(out)]) == 0


def test_cli_cases_lists_uncovered_paths(tiny_dir, capsys):
    result = synthesize(load_domain(tiny_dir), per_path=1, seed=0)
    (tiny_dir / "cases.jsonl").write_text(dumps_suite(result.cases[:2]))
    assert main(["cases", str(tiny_dir)]) == 0
    text = capsys.readouterr().out
    assert "uncovered paths:" in text and "info" in text.split("uncovered paths:")[1]


def _intents(cases, field="CoreDemand"):
    counts: dict[str, int] = {}
    for case in cases:
        counts[case.truth[field]] = counts.get(case.truth[field], 0) + 1
    return counts


def test_intent_balanced_spreads_the_same_budget_evenly_over_the_intents():
    bundle = load_domain("airline")
    paths = enumerate_paths(bundle.graph)
    cases = synthesize(bundle, per_path=4, seed=7, strategy="intent-balanced").cases
    assert len(cases) == 4 * len(paths)
    counts = _intents(cases)
    assert set(counts) == set(bundle.graph.fields["CoreDemand"].values)
    assert max(counts.values()) - min(counts.values()) <= 1
    covered = _intents(synthesize(bundle, per_path=4, seed=7).cases)
    assert max(covered.values()) > 3 * min(covered.values())  # path coverage follows the graph's depth instead
    for case in cases:  # every case still selects its path
        assert case.expected.path in {p.id for p in paths}


def test_mixed_covers_every_path_once_then_balances_and_is_deterministic():
    bundle = load_domain("airline")
    paths = enumerate_paths(bundle.graph)
    cases = synthesize(bundle, per_path=3, seed=2, strategy="mixed").cases
    assert len(cases) == 3 * len(paths)
    assert {c.expected.path for c in cases} == {p.id for p in paths}
    again = synthesize(bundle, per_path=3, seed=2, strategy="mixed").cases
    assert dumps_suite(cases) == dumps_suite(again)
    entries = [SuiteEntry(i + 1, c) for i, c in enumerate(cases)]
    assert validate_suite(entries, bundle, "mixed.jsonl") == []


def test_cli_takes_a_strategy_and_refuses_an_unknown_one(tiny_dir, capsys):
    out = tiny_dir / "balanced.jsonl"
    assert main(["synthesize", str(tiny_dir), "--per-path", "2", "--strategy", "intent-balanced", "--out", str(out)]) == 0
    assert "(intent-balanced)" in capsys.readouterr().out and out.is_file()
    try:
        code = main(["synthesize", str(tiny_dir), "--strategy", "random"])
    except SystemExit as exc:
        code = exc.code
    assert code == 2


def test_personas_carry_patience_conciseness_and_the_truths_emotion():
    bundle = load_domain("airline")
    cases = synthesize(bundle, per_path=3, seed=1).cases
    assert {c.persona.conciseness for c in cases} == {"brief", "normal", "verbose"}
    assert {c.persona.patience for c in cases} == {5, 3, 2}
    for case in cases:
        if "UserEmotion" in case.truth:
            assert case.persona.emotion == case.truth["UserEmotion"], case.id
