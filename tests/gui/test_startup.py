"""Starting the app: the first window loads none of the heavy libraries; other screens are built when first shown."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from sage_desk.gui.main_window import MainWindow

HEAVY = ("alembic", "aiohttp", "litellm", "networkx")

FIRST_WINDOW = textwrap.dedent("""
    import os
    import sys
    from sage_desk.cli import build_parser
    from sage_desk.gui.app import create_application
    from sage_desk.gui.common.settings import open_settings
    from sage_desk.gui.main_window import MainWindow

    build_parser()  # `sage-desk` reads its command line first, importing every command module
    app = create_application()
    if len(sys.argv) > 1:  # the last session ended on this screen
        open_settings().setValue("window/screen", sys.argv[1])
    window = MainWindow()
    window.open_initial_graph()
    window.show()
    app.processEvents()
    assert window.current_key() == (sys.argv[1:] or ["sop-editor"])[0]
    if window.current_key() == "sop-editor":
        assert window.screen_widget("sop-editor").path is not None, "the shipped graph did not open"
    print(" ".join(sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY})), flush=True)
    os._exit(0)  # a screen may still be reading in the background: what it loads later is not the question
""").replace("{HEAVY}", repr(set(HEAVY)))


def _env(tmp_path) -> dict[str, str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", SAGE_DESK_HOME=str(tmp_path / "home"))
    env.pop("SAGE_DESK_SOPS", None)  # the shipped graphs, as installed
    return env


def test_the_first_window_imports_no_heavy_library(tmp_path):
    done = subprocess.run([sys.executable, "-c", FIRST_WINDOW], env=_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == []


@pytest.mark.parametrize("screen", ["runs", "review", "calibration", "leaderboard", "compare-runs"])
def test_a_window_reopened_on_another_screen_imports_no_model_library(tmp_path, screen):
    """Alembic may come once, to bring the copy of the sample runs up to date; the rest never."""
    done = subprocess.run(
        [sys.executable, "-c", FIRST_WINDOW, screen], env=_env(tmp_path), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert [m for m in done.stdout.split() if m.split(".")[0] != "alembic"] == []


def test_the_app_reports_its_first_window_and_quits(tmp_path):
    env = _env(tmp_path) | {"SAGE_DESK_EXIT_AFTER_FIRST_WINDOW": "1"}
    done = subprocess.run([sys.executable, "-m", "sage_desk"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip().splitlines()[-1]
    assert line.startswith("first window ") and line.endswith("heavy modules loaded: none"), line
    seconds = float(line.split()[2])
    assert 0 < seconds < 120


def test_screens_are_built_on_first_visit(qtbot, tmp_path, monkeypatch, shop_dir):
    monkeypatch.setenv("SAGE_DESK_SOPS", str(shop_dir.parent))
    window = MainWindow(settings_home=tmp_path / "home")
    qtbot.addWidget(window)
    window.show()
    assert list(window.screens.built) == ["sop-editor"]
    assert "review" in window.screens and len(window.screens) == len(window.specs)
    window.nav.setCurrentRow(2)
    assert list(window.screens.built) == ["sop-editor", "review"]
    assert window.stack.currentWidget() is window.screen_widget("review")
    assert [a.text() for a in window.menuBar().actions()][-1] == "&Help" and window.windowTitle().endswith("Review — SAGE Desk")
    assert window.stack.indexOf(window.screen_widget("review")) == 2 and window.stack.count() == len(window.specs)


def test_a_window_opened_on_another_screen_opens_the_graph_when_the_editor_is_shown(qtbot, tmp_path, monkeypatch, shop_dir):
    monkeypatch.setenv("SAGE_DESK_SOPS", str(shop_dir.parent))
    home = tmp_path / "home"
    first = MainWindow(settings_home=home)
    qtbot.addWidget(first)
    first.show_screen("calibration")
    first.close()
    window = MainWindow(settings_home=home)
    qtbot.addWidget(window)
    window.open_initial_graph()
    window.show()
    assert window.current_key() == "calibration" and "sop-editor" not in window.screens.built
    (shop_dir.parent / "northline").mkdir()
    (shop_dir.parent / "northline" / "sop.yaml").write_text((shop_dir / "sop.yaml").read_text())
    window.show_screen("sop-editor")
    assert window.screen_widget("sop-editor").path == shop_dir.parent / "northline" / "sop.yaml"
