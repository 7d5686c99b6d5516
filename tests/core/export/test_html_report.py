"""The HTML report: every model, all four charts, no composite, nothing fetched from outside."""

from __future__ import annotations

import re

from sage_desk.core.export.html_report import render_html

AGENTS = ("baseline:oracle", "baseline:complier", "baseline:escalator")


def test_report_has_every_model_and_the_four_charts(report):
    page = render_html(report)
    assert page.startswith("<!DOCTYPE html>")
    for agent in AGENTS:
        assert page.count(agent) >= 3  # table, failures table, charts
    assert page.count("<svg ") == 4
    for key in ("unsafe-vs-cost", "escalation-calibration", "execution-gap", "empathy-resilience"):
        assert f'<figure id="{key}">' in page
    assert "SAGE score" not in page


def test_report_is_self_contained(report):
    page = render_html(report, sage_view=True)
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.IGNORECASE)
    assert "<script" not in page.lower()
    assert "@import" not in page and "url(" not in page


def test_sage_view_adds_a_labelled_column(report):
    page = render_html(report, sage_view=True)
    assert "SAGE score (weighted view)" in page


def test_cli_writes_the_html_file(stored_run, tmp_path, capsys):
    from sage_desk.cli import main

    store, run_id = stored_run
    out = tmp_path / "report.html"
    code = main(["report", "--db", str(store.url), "--run", run_id, "--format", "html", "--out", str(out)])
    assert code == 0
    assert "baseline:complier" in out.read_text(encoding="utf-8")
