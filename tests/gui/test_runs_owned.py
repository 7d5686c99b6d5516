"""The Runs screen does not resume a run another live process is playing (issue 34), and says who."""

from __future__ import annotations

import socket
import subprocess
import sys

from PySide6.QtCore import QCoreApplication, QEvent, Qt

from sage_desk.core.engine.runner import Runner, RunSpec
from sage_desk.core.store import Store
from sage_desk.gui.common.workspace import Workspace
from sage_desk.gui.runs import RunsScreen

HOLD = """
import sys, time
from sage_desk.core.store import Store
store = Store(sys.argv[1])
store.claim_run(sys.argv[2])  # this process plays the run (as sage-desk run does), and beats no heartbeat:
print("playing", flush=True)  # its pid is alive and its registration recent, which is what counts
sys.stdin.read()
"""


def test_resume_is_refused_while_another_process_plays_the_run(qtbot, tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    store = Store(url)
    run_id = Runner(store).create(RunSpec(domain="northline", agents=["baseline:oracle"], cases=["nl-001", "nl-002"]))
    other = subprocess.Popen([sys.executable, "-c", HOLD, url, run_id], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    screen = RunsScreen(workspace=Workspace(store=store))
    qtbot.addWidget(screen)
    try:
        assert other.stdout.readline().strip() == "playing"
        screen.show()
        qtbot.waitExposed(screen)
        screen.refresh()
        screen.select_run(run_id)
        playing = f"process {other.pid} on host {socket.gethostname()} since"
        row = screen.model.row_of(run_id)
        status = screen.model.index(row, screen.model.columnCount() - 1)
        assert status.data() == "running elsewhere"  # not "interrupted · resumable": somebody is playing it
        assert f"played by {playing}" in status.data(Qt.ItemDataRole.ToolTipRole)
        assert not screen.resume_button.isEnabled()
        assert playing in screen.resume_button.toolTip()
        assert screen.resume(run_id) is None and screen.run_thread is None  # nothing started
        assert not screen.problems.isHidden() and playing in screen.problems.text()
    finally:
        other.stdin.close()
        other.wait(timeout=30)
        screen.shutdown()
        screen.close()
        screen.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    screen2 = RunsScreen(workspace=Workspace(store=store))  # once it is gone, the run resumes
    qtbot.addWidget(screen2)
    screen2.refresh()
    screen2.select_run(run_id)
    assert screen2.resume_button.isEnabled()
    status = screen2.model.index(screen2.model.row_of(run_id), screen2.model.columnCount() - 1)
    assert status.data() == "interrupted · resumable"
    screen2.shutdown()
    store.close()
