"""The Runs screen on a real SQLite store: start, watch, cancel, resume, close mid-run; API keys."""

from __future__ import annotations

import threading
from collections import Counter

import keyring
import pytest
from fakes import FakeReply, FakeToolCall
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QApplication

from sage_desk.core.llm import secrets
from sage_desk.core.store import Store
from sage_desk.gui.common.workspace import Workspace
from sage_desk.gui.runs import RunsScreen
from sage_desk.gui.runs.model import RunsModel
from sage_desk.gui.runs.worker import RunProcess

CASES = "nl-001, nl-002, nl-003"
KEY = "sk-keyring-secret-7f3a9c21"
RUN_TIMEOUT_MS = 60_000


def dispose(widget):
    """Delete a widget now, while the QApplication lives (see tests/gui/conftest.py `dispose`)."""
    from PySide6.QtCore import QEvent

    widget.close()
    widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture
def db(tmp_path):
    return tmp_path / "runs.db"


@pytest.fixture
def store(db):
    store = Store(f"sqlite:///{db}")
    yield store
    store.close()


@pytest.fixture
def screen(qtbot, store):
    widget = RunsScreen(workspace=Workspace(store=store))
    qtbot.addWidget(widget)
    widget.resize(1300, 860)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.shutdown()  # a test that leaves a QThread running fails; never leave one behind
    dispose(widget)


def choose(screen, agents=("baseline:oracle",), cases=CASES, **numbers):
    """Fill the form; each case is played once unless `repeats` says otherwise (the form starts at 3)."""
    numbers = {"repeats": 1, **numbers}
    form = screen.form
    form.domain.setCurrentText("northline")
    form.case_ids.setText(cases)
    form.agents.set_checked(list(agents))
    for name, value in numbers.items():
        getattr(form, name).setValue(value)


def run_and_wait(qtbot, screen, start=None):
    with qtbot.waitSignal(screen.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
        run_id = (start or screen.start)()
        assert run_id, screen.problems.text()
    return run_id, ended.args[0]


def status_of(screen, run_id):
    row = screen.model.row_of(run_id)
    return screen.model.data(screen.model.index(row, screen.model.columnCount() - 1))


def test_a_baseline_run_finishes_and_its_conversations_are_stored(qtbot, screen, store):
    choose(screen, agents=("baseline:oracle", "baseline:escalator"), repeats=2)
    assert "3 cases × 2 agents × 2 repeats = <b>12 conversations</b>" in screen.form.summary.text()
    run_id, outcome = run_and_wait(qtbot, screen)
    assert outcome.error is None and not outcome.cancelled
    assert (outcome.progress.done, outcome.progress.total, outcome.progress.errored) == (12, 12, 0)
    conversations = store.conversations(run_id=run_id)
    assert len(conversations) == 12 and {c.status.value for c in conversations} == {"finished"}
    assert {c.case_id for c in conversations} == {"nl-001", "nl-002", "nl-003"}
    # verdicts as `sage-desk run` attaches them: the rule engine, then the ticked judge
    sources = {v.source for v in store.verdicts(conversation_id=conversations[0].id)}
    assert sources == {"rules", "baseline:heuristic"}
    assert store.get_run(run_id).config["judges"] == ["baseline:heuristic"]
    assert screen.model.run_at(0).id == run_id and status_of(screen, run_id) == "finished"
    assert screen.panel.values["Conversations"].text() == "12 / 12"
    assert screen.panel.title.text() == f"Run {run_id} finished"
    assert screen.start_button.isEnabled() and not screen.resume_button.isEnabled()


def test_progress_arrives_on_the_gui_thread_and_runs_changed_is_throttled(qtbot, screen):
    choose(screen)
    threads, broadcasts = [], []
    screen.workspace.runs_changed.connect(lambda: broadcasts.append(threading.get_ident()))
    screen.run_started.connect(
        lambda _run: screen.run_thread.progressed.connect(
            lambda update: threads.append((threading.get_ident(), update.progress.done))
        )
    )
    run_and_wait(qtbot, screen)
    gui = threading.get_ident()
    assert threads and {t for t, _ in threads} == {gui}
    assert threads[-1][1] == 3
    assert QApplication.instance().thread() == QCoreApplication.instance().thread()
    # one when created, one when ended; the run is far shorter than the 1 s throttle
    assert 2 <= len(broadcasts) <= 3 and set(broadcasts) == {gui}


def test_an_empty_agent_list_is_refused_with_a_clear_message(qtbot, screen, store):
    choose(screen, agents=())
    assert "= <b>0 conversations</b>" in screen.form.summary.text()
    assert screen.start() is None
    assert screen.problems.isVisible()
    assert "Tick at least one agent model to test." in screen.problems.text()
    assert store.list_runs() == [] and screen.run_thread is None


def test_unknown_case_ids_and_bad_api_base_are_refused(qtbot, screen, store):
    choose(screen, cases="nl-001, nl-999")
    screen.form.api_base.setText("localhost:11434")
    assert screen.start() is None
    text = screen.problems.text()
    assert "No case 'nl-999' in northline." in text and "is not a URL" in text
    assert store.list_runs() == []


def test_several_api_bases_separated_by_commas(qtbot, screen, store):
    choose(screen)
    screen.form.api_base.setText(" http://gpu-1:8000/v1, http://gpu-2:8000/v1/ ")
    screen.form.user_api_base.setCurrentText("http://cpu-1:8000/v1,http://cpu-2:8000/v1")
    assert not [p for p in screen.form.problems() if "URL" in p]
    spec = screen.form.spec()
    assert spec.api_base_for("agent") == "http://gpu-1:8000/v1,http://gpu-2:8000/v1"  # one API base, two replicas
    assert spec.api_base_for("user") == "http://cpu-1:8000/v1,http://cpu-2:8000/v1"
    screen.form.api_base.setText("http://gpu-1:8000/v1, gpu-2:8000")
    assert "The API base 'gpu-2:8000' is not a URL (e.g. http://localhost:11434/v1)." in screen.form.problems()


def test_a_judge_name_nobody_can_route_is_refused_before_a_run_exists(qtbot, screen, store):
    choose(screen)
    screen.form.judges.add("nope:judge")
    assert screen.start() is None
    assert screen.problems.isVisible() and "unknown model 'nope:judge'" in screen.problems.text()
    assert store.list_runs() == [] and screen.run_thread is None


def test_cancel_mid_run_leaves_it_resumable_and_resume_finishes_without_duplicates(
    qtbot, screen, store, fake_openai, memory_keyring
):
    fake_openai.latency = 0.25  # two calls per conversation: about half a second each
    fake_openai.script = closing_agent
    choose(screen, agents=(), cases="nl-001, nl-002, nl-003, nl-004, nl-005, nl-006", concurrency=1)
    screen.form.agents.add("openai/fake-agent")
    screen.form.api_base.setText(fake_openai.base_url)
    with qtbot.waitSignal(screen.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
        run_id = screen.start()
        qtbot.waitUntil(lambda: screen.panel.progress is not None and screen.panel.progress.done >= 1, timeout=20_000)
        qtbot.mouseClick(screen.panel.cancel_button, Qt.MouseButton.LeftButton)
    assert ended.args[0].cancelled and ended.args[0].error is None
    left = store.unfinished_conversations(run_id)
    assert 0 < len(left) < 6
    assert store.get_run(run_id).status.value == "cancelled"
    assert status_of(screen, run_id) == "cancelled · resumable"
    tooltip = screen.model.data(screen.model.index(screen.model.row_of(run_id), 0), Qt.ItemDataRole.ToolTipRole)
    assert f"{len(left)} conversation(s) left" in tooltip
    screen.select_run(run_id)
    assert screen.resume_button.isEnabled()

    fake_openai.latency = 0.0
    _, outcome = run_and_wait(
        qtbot, screen, start=lambda: qtbot.mouseClick(screen.resume_button, Qt.MouseButton.LeftButton) or run_id
    )
    assert outcome.progress.done == 6 and outcome.progress.already_done == 6 - len(left)
    assert_complete_without_duplicates(store, run_id, 6)
    assert status_of(screen, run_id) == "finished" and not screen.resume_button.isEnabled()


def closing_agent(request):
    """A fake agent: look the order up and tag, then close the ticket (two calls per conversation)."""
    if not any(m["role"] == "tool" for m in request["messages"]):
        return [FakeToolCall("tag_ticket", {"intent": "order_status"})]
    return FakeReply(content="All sorted.", tool_calls=[FakeToolCall("close_ticket", {"outcome": "resolved", "summary": "done"})])


def assert_complete_without_duplicates(store, run_id, count):
    conversations = store.conversations(run_id=run_id)
    assert len(conversations) == count and {c.status.value for c in conversations} == {"finished"}
    assert not store.unfinished_conversations(run_id) and store.get_run(run_id).status.value == "finished"
    for conversation in conversations:
        events = store.events(conversation.id)
        assert len({e.seq for e in events}) == len(events)
        assert sum(e.type == "ticket_closed" for e in events) <= 1
        per_rule = Counter(
            (v.source, v.criterion, v.event_seq, v.node, v.edge) for v in store.verdicts(conversation_id=conversation.id)
        )
        assert per_rule and max(per_rule.values()) == 1, per_rule.most_common(2)


def test_closing_mid_run_asks_then_leaves_the_run_resumable(qtbot, screen, store, fake_openai, memory_keyring):
    fake_openai.latency = 0.25
    fake_openai.script = closing_agent
    choose(screen, agents=(), cases="nl-001, nl-002, nl-003, nl-004", concurrency=1)
    screen.form.agents.add("openai/fake-agent")
    screen.form.api_base.setText(fake_openai.base_url)
    asked = []
    screen.confirm_stop = lambda: asked.append(True) or False
    run_id = screen.start()
    qtbot.waitUntil(lambda: screen.panel.progress is not None and screen.panel.progress.done >= 1, timeout=20_000)
    assert screen.can_close() is False and asked == [True] and screen.is_running()
    screen.confirm_stop = lambda: True
    assert screen.can_close() is True
    assert not screen.is_running()
    run = store.get_run(run_id)
    assert run.status.value == "interrupted" and store.unfinished_conversations(run_id)
    assert status_of(screen, run_id) == "interrupted · resumable"


def test_a_run_left_running_by_a_crash_shows_as_resumable(qtbot, screen, store):
    from sage_desk.core.engine.runner import Runner, RunSpec

    run_id = Runner(store).create(RunSpec(domain="northline", agents=["baseline:oracle"], cases=["nl-001", "nl-002"]))
    screen.refresh()  # created, status "running", nobody playing it: as after a crash
    assert status_of(screen, run_id) == "interrupted · resumable"
    screen.select_run(run_id)
    _, outcome = run_and_wait(qtbot, screen, start=screen.resume_selected)
    assert outcome.progress.done == 2
    assert_complete_without_duplicates(store, run_id, 2)


def test_a_litellm_model_through_the_screen_uses_the_keyring_key_and_never_stores_it(
    qtbot, screen, store, db, fake_openai, memory_keyring
):
    fake_openai.script = closing_agent
    dialog = screen.open_keys_dialog()
    assert dialog.usable and "system keyring" in dialog.status.text()
    dialog.rows["OPENAI_API_KEY"].field.setText(KEY)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert memory_keyring.passwords[(secrets.SERVICE, "OPENAI_API_KEY")] == KEY
    assert dialog.rows["OPENAI_API_KEY"].field.text() == ""  # never shown back
    assert dialog.rows["OPENAI_API_KEY"].source.text() == "saved in the keyring"
    dialog.close()

    choose(screen, agents=(), cases="nl-001, nl-002")
    screen.form.agents.add("openai/fake-agent")
    screen.form.api_base.setText(fake_openai.base_url)
    run_id, outcome = run_and_wait(qtbot, screen)
    assert outcome.error is None and outcome.progress.errored == 0 and outcome.progress.prompt_tokens > 0
    assert {h["authorization"] for h in fake_openai.headers} == {f"Bearer {KEY}"}
    assert store.get_run(run_id).config["agents"] == ["openai/fake-agent"]
    store.close()
    for file in db.parent.glob("runs.db*"):
        assert KEY.encode() not in file.read_bytes(), file


def test_a_model_without_a_key_is_refused_before_start(qtbot, screen, store, memory_keyring):
    choose(screen, agents=())
    screen.form.agents.add("anthropic/claude-3-5-haiku")
    assert screen.start() is None
    assert "No API key for anthropic/claude-3-5-haiku: add ANTHROPIC_API_KEY under API Keys…" in screen.problems.text()
    assert store.list_runs() == []


def test_a_local_agent_judged_by_a_hosted_model_needs_only_the_judges_key(qtbot, screen, store, memory_keyring, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    choose(screen, agents=())
    screen.form.agents.add("openai/llama3.1")
    screen.form.api_base.setText("http://localhost:11434/v1")
    screen.form.judges.add("openai/gpt-4o-mini")
    assert not [p for p in screen.form.problems() if "No API key" in p]  # everything goes to the local server
    screen.form.judge_api_base.setCurrentText("the provider's own endpoint")
    assert [p for p in screen.form.problems() if "No API key" in p] == [
        "No API key for openai/gpt-4o-mini: add OPENAI_API_KEY under API Keys… or set it in the environment."
    ]
    spec = screen.form.spec()
    assert (spec.api_base_for("agent"), spec.api_base_for("judge")) == ("http://localhost:11434/v1", None)
    screen.form.judge_api_base.setCurrentText("gpu-box:8000")
    assert "The judge API base 'gpu-box:8000' is not a URL (e.g. http://localhost:11434/v1)." in screen.form.problems()


def test_without_a_keyring_the_dialog_says_so_and_saves_nothing(qtbot, screen, monkeypatch):
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        dialog = screen.open_keys_dialog()
        assert not dialog.usable
        assert "No system keyring is available" in dialog.status.text() and "environment variables" in dialog.status.text()
        assert not dialog.save_button.isEnabled() and not dialog.rows["OPENAI_API_KEY"].field.isEnabled()
        dialog.close()
    finally:
        keyring.set_keyring(previous)


def test_the_runs_model_passes_the_model_tester(qtmodeltester, screen, store):
    from sage_desk.core.engine.runner import Runner, RunSpec

    Runner(store).create(RunSpec(domain="northline", agents=["baseline:oracle"], cases=["nl-001"]))
    screen.refresh()
    qtmodeltester.check(screen.model, force_py=True)
    qtmodeltester.check(RunsModel(), force_py=True)


def test_a_new_form_plays_each_case_three_times(screen):
    form = screen.form
    form.domain.setCurrentText("northline")
    form.case_ids.setText(CASES)
    assert form.repeats.value() == 3  # the median of three, as SupportAgentBench
    assert "× 3 repeats" in form.summary.text() and form.spec().repeats == 3


def test_the_form_is_remembered_without_secrets(qtbot, screen, tmp_path):
    from PySide6.QtCore import QSettings

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    choose(screen, agents=("baseline:complier",), repeats=5)
    screen.form.agents.add("openai/gpt-4o-mini")
    screen.form.api_base.setText("http://user:pw@10.0.0.5:8000/v1")
    screen.form.judge_api_base.setCurrentText("the provider's own endpoint")
    screen.form.user_api_base.setCurrentText("http://10.0.0.6:8000/v1")
    screen.save_state(settings)
    settings.sync()
    again = RunsScreen(workspace=screen.workspace)
    qtbot.addWidget(again)
    again.restore_state(settings)
    assert again.form.agents.checked() == ["baseline:complier", "openai/gpt-4o-mini"]
    assert again.form.repeats.value() == 5 and again.form.api_base.text() == ""
    assert (again.form.user_api_base.value(), again.form.judge_api_base.value()) == ("http://10.0.0.6:8000/v1", "default")
    assert "pw@" not in (tmp_path / "s.ini").read_text()
    dispose(again)


def test_a_run_started_in_runs_appears_in_review(qtbot, tmp_path):
    from sage_desk.gui.main_window import MainWindow

    window = MainWindow(settings_home=tmp_path / "home", db_url=f"sqlite:///{tmp_path / 'window.db'}")
    qtbot.addWidget(window)
    window.show()
    window.show_screen("runs")
    qtbot.waitExposed(window)
    screen = window.screen_widget("runs")
    assert [a.text() for a in window.menuBar().actions()] == ["&File", "&Runs", "&Help"]
    # one set of Start / Cancel / Resume / API Keys: on the form, the progress panel and the list, not the toolbar too
    toolbar = [a.text() for a in window.toolbar.actions()]
    assert "Refresh Runs" in toolbar and not {"Start Run", "Cancel Run", "Resume Run", "API Keys…"} & set(toolbar)
    assert screen.start_button.text() == "Start run" and screen.keys_button.text() == "API Keys…"
    choose(screen)
    run_id, outcome = run_and_wait(qtbot, screen)
    assert outcome.progress.done == 3
    qtbot.mouseClick(screen.review_button, Qt.MouseButton.LeftButton)
    review = window.screen_widget("review")
    first = window.workspace.store().conversations(run_id=run_id)[0]
    assert window.current_key() == "review"
    assert review.filters.run.itemData(0) == run_id  # newest first
    assert review.filters.run_id() == run_id and review.detail.id == first.id
    assert review.list_model.rowCount() == 3
    window.close()
    window.workspace.close()


def timer_lag(qtbot) -> float:
    """How long a 10 ms timer takes to fire: the GUI thread's responsiveness."""
    import time

    from PySide6.QtCore import QTimer

    fired: list[float] = []
    started = time.monotonic()
    QTimer.singleShot(10, lambda: fired.append(time.monotonic() - started))
    qtbot.waitUntil(lambda: bool(fired), timeout=5000)
    return fired[0]


def test_a_fast_offline_run_keeps_the_window_responsive_and_cancels_within_a_second(qtbot, screen, store):
    """Baselines never wait on anything: the run must not starve the GUI, and Cancel must stop it at once."""
    import time

    choose(screen, agents=("baseline:oracle", "baseline:complier", "baseline:escalator"), cases="", repeats=20)
    with qtbot.waitSignal(screen.run_started, timeout=RUN_TIMEOUT_MS):  # its rows are written in a thread first
        run_id = screen.start()
    assert run_id, screen.problems.text()
    # played in a child process (with worker processes of its own), never in this process's threads (issue 35)
    assert isinstance(screen.run_thread, RunProcess) and screen.run_thread.workers > 1
    qtbot.waitUntil(lambda: screen.panel.progress is not None and screen.panel.progress.done >= 200, timeout=RUN_TIMEOUT_MS)
    # while it runs, a 10 ms timer fires on time (it waited seconds when the run held the GIL)
    lags = [timer_lag(qtbot) for _ in range(5)]
    assert max(lags) < 0.25, lags
    total = store.get_run(run_id).total
    assert screen.panel.progress.done < total  # still running: the cancel below is a real one
    with qtbot.waitSignal(screen.run_ended, timeout=10_000) as ended:
        qtbot.mouseClick(screen.panel.cancel_button, Qt.MouseButton.LeftButton)
        clicked = time.monotonic()
        assert "Cancelling" in screen.panel.detail.text()
        done_at_click = screen.run_thread.progress.done
    # it stopped within seconds (it used to play on to its end); the child process and its workers
    # finish what they hold, so a few conversations more may be counted, never most of the run
    assert time.monotonic() - clicked < 8.0
    assert done_at_click <= ended.args[0].progress.done < done_at_click + total // 10
    outcome = ended.args[0]
    assert outcome.cancelled and outcome.error is None
    left = store.unfinished_conversations(run_id)
    assert 0 < len(left) < total and store.get_run(run_id).status.value == "cancelled"
    screen.select_run(run_id)
    assert screen.resume_button.isEnabled() and status_of(screen, run_id) == "cancelled · resumable"


# --- your own agent (issue 33): the kind picker, prompt file, parameters, headers -----------------


def test_the_kind_picker_adds_python_and_http_agents_and_a_python_agent_runs(qtbot, screen, store, tmp_path):
    form = screen.form
    assert [form.agent_kind.itemText(i) for i in range(form.agent_kind.count())] == ["Model", "HTTP", "Python", "MCP"]
    form.agent_kind.setCurrentText("Python")
    assert "package.module:factory" in form.agents.entry.placeholderText()
    form.agents.entry.setText("agents_under_test:oracle")
    form.agents.add_button.click()
    assert "python:agents_under_test:oracle" in form.agents.checked()
    form.agent_kind.setCurrentText("HTTP")
    qtbot.keyClicks(form.agents.entry, "127.0.0.1:9/agent")
    qtbot.keyClick(form.agents.entry, Qt.Key.Key_Return)
    assert "http://127.0.0.1:9/agent" in form.agents.names()
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Our own prompt. {policy}")
    form.agent_prompt.setText(str(prompt))
    form.agent_params.setText("temperature=0.2 max_tokens=800")
    choose(screen, agents=("python:agents_under_test:oracle",), cases="nl-001")
    spec = form.spec()
    assert (spec.agent_prompt, spec.agent_prompt_file) == ("Our own prompt. {policy}", str(prompt))
    assert spec.agent_params == {"temperature": 0.2, "max_tokens": 800}
    run_id, _ = run_and_wait(qtbot, screen)
    (convo,) = store.conversations(run_id)
    assert (convo.agent, convo.status) == ("python:agents_under_test:oracle", "finished")
    assert store.get_run(run_id).config["agent_params"] == {"temperature": 0.2, "max_tokens": 800}


def test_bad_agent_options_are_refused_in_the_problems_box(qtbot, screen, store, monkeypatch, tmp_path):
    monkeypatch.delenv("NO_SUCH_AGENT_TOKEN", raising=False)
    form = screen.form
    choose(screen, agents=("http://127.0.0.1:9/agent",), cases="nl-001")
    form.agent_headers.setText("Authorization: Bearer $NO_SUCH_AGENT_TOKEN")
    assert any("$NO_SUCH_AGENT_TOKEN, which is not set" in p for p in form.problems())
    form.agent_headers.setText("Authorization: Bearer sk-typed-in-secret")
    assert any("put the secret in an environment variable" in p for p in form.problems())
    form.agent_headers.clear()
    form.agent_prompt.setText(str(tmp_path / "missing.txt"))
    assert any(p.startswith("Agent prompt ") and "cannot read it" in p for p in form.problems())
    form.agent_prompt.clear()
    form.agent_params.setText("temperature")
    assert any("write it as name=value" in p for p in form.problems())
    form.agent_params.clear()
    choose(screen, agents=("baseline:oracle",), cases="nl-001")
    form.tools_server.setText("http://127.0.0.1:8765")
    assert any("goes with an HTTP agent" in p for p in form.problems())
    assert screen.start() is None and store.list_runs() == []


def test_agent_options_are_remembered_but_a_typed_secret_is_not(qtbot, screen, tmp_path):
    from PySide6.QtCore import QSettings

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    form = screen.form
    form.agent_prompt.setText(str(tmp_path / "prompt.txt"))
    form.agent_params.setText("temperature=0.2")
    form.agent_headers.setText("Authorization: Bearer $AGENT_TOKEN")
    form.tools_server.setText("http://127.0.0.1:8765")
    screen.save_state(settings)
    settings.sync()
    again = RunsScreen(workspace=screen.workspace)
    qtbot.addWidget(again)
    again.restore_state(settings)
    assert (again.form.agent_prompt.text(), again.form.agent_params.text()) == (str(tmp_path / "prompt.txt"), "temperature=0.2")
    assert (again.form.agent_headers.text(), again.form.tools_server.text()) == (
        "Authorization: Bearer $AGENT_TOKEN",
        "http://127.0.0.1:8765",
    )
    dispose(again)
    form.agent_headers.setText("Authorization: Bearer sk-typed-secret-1234")
    screen.save_state(settings)
    settings.sync()
    assert "sk-typed-secret" not in (tmp_path / "s.ini").read_text()


def test_http_and_mcp_agents_run_from_the_screen(qtbot, screen, store):
    from agents_under_test import AgentServer

    from sage_desk.core.domain.loader import load_domain
    from sage_desk.core.toolserver import ToolServer

    form = screen.form
    with AgentServer("oracle") as http, ToolServer(load_domain("northline")) as tools, AgentServer("oracle", mcp=True) as mcp:
        form.agent_kind.setCurrentText("HTTP")
        form.agents.entry.setText(http.url)
        form.agents.add_button.click()
        choose(screen, agents=(http.url,), cases="nl-145")
        run_id, _ = run_and_wait(qtbot, screen)
        form.agent_kind.setCurrentText("MCP")
        form.agents.entry.setText(mcp.url.removeprefix("http://"))
        form.agents.add_button.click()
        form.tools_server.setText(tools.url)
        choose(screen, agents=(mcp.url,), cases="nl-145")
        mcp_run, _ = run_and_wait(qtbot, screen)
    for rid, agent in ((run_id, http.url), (mcp_run, mcp.url)):
        (convo,) = store.conversations(rid)
        assert (convo.agent, convo.status, convo.termination) == (agent, "finished", "closed")
    assert store.get_run(mcp_run).config["tools_server"] == tools.url
    assert any(e.type == "tool_call" and e.name == "open_carrier_trace" for e in store.events(convo.id))


def test_an_agent_nobody_can_reach_is_named_in_the_runs_ending(qtbot, screen, store):
    from fakes import FakeOpenAIServer

    with FakeOpenAIServer() as dead:
        pass  # stopped: its port refuses connections
    url = f"http://127.0.0.1:{dead.port}/agent"
    form = screen.form
    form.agents.add(url)
    form.agent_params.setText("max_retries=0")
    choose(screen, agents=("baseline:oracle", url), cases="nl-001, nl-002")
    run_id, outcome = run_and_wait(qtbot, screen)
    assert outcome.progress.errored == 2
    assert f"Errored: 2× agent {url}: cannot connect (connection refused)" in screen.panel.detail.text()
    assert {c.status for c in store.conversations(run_id, agent="baseline:oracle")} == {"finished"}


def test_the_agent_option_rows_take_room_only_when_wanted(qtbot, screen):
    form = screen.form
    rows = (form.agent_params, form.agent_headers, form.agent_prompt)
    assert not any(w.isVisible() for w in (*rows, form.tools_server))  # a model run: the form fits 1280x720
    form.agent_more.click()
    assert all(w.isVisible() for w in rows) and not form.tools_server.isVisible()
    form.agent_more.click()
    form.agent_kind.setCurrentText("MCP")
    assert form.tools_server.isVisible() and all(w.isVisible() for w in rows)


# --- Start never freezes the window: a new run's rows are written in a thread (issue 35) ----------


def test_start_writes_a_new_runs_rows_in_a_thread_and_a_cancel_meanwhile_leaves_it_all_resumable(qtbot, screen, store):
    import time

    choose(screen, agents=("baseline:oracle", "baseline:complier", "baseline:escalator"), cases="", repeats=4)
    clicked = time.monotonic()
    run_id = screen.start()
    on_gui = time.monotonic() - clicked
    assert run_id and isinstance(screen.run_thread, RunProcess)
    # the rows (1,944 of them, the domain and suite read first) are written by a thread, not in start()
    assert screen.run_thread.creator is not None and screen.run_thread.creator.isRunning(), on_gui
    assert screen.is_running() and not screen.start_button.isEnabled()
    with qtbot.waitSignal(screen.run_ended, timeout=RUN_TIMEOUT_MS) as ended:
        qtbot.mouseClick(screen.panel.cancel_button, Qt.MouseButton.LeftButton)
    outcome = ended.args[0]
    assert outcome.cancelled and outcome.error is None and outcome.run_id == run_id
    run = store.get_run(run_id)  # the run exists whole, nothing played, every conversation resumable
    assert run.status.value == "cancelled" and run.total == 162 * 3 * 4
    assert len(store.unfinished_conversations(run_id)) == run.total
    screen.select_run(run_id)
    assert screen.resume_button.isEnabled() and status_of(screen, run_id) == "cancelled · resumable"
