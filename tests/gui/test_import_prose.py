"""Import from Prose: the dialog drafts through the fake server and the editor opens the draft unsaved."""

from __future__ import annotations

from pathlib import Path

import pytest
from draft_samples import POLICY, VALID, fake_model, invalid_draft, write_domain
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from sage_desk.core.sop.source import unwrap
from sage_desk.gui.sop_editor.import_dialog import ImportProseDialog


@pytest.fixture(scope="module", autouse=True)
def _litellm_imported() -> None:
    """Import litellm once up front: its cold import (seconds on a busy machine) is not what these tests time."""
    from sage_desk.core.llm import load_litellm

    load_litellm()


@pytest.fixture
def dialog(qtbot, editor, fake_openai, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ImportProseDialog:
    """The dialog opened from File > Import from Prose…, filled in for the shop domain and the fake model."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    editor.actions_by_name["import_prose"].trigger()
    found = editor.findChild(ImportProseDialog)
    assert found is not None and found.isVisible()
    folder = write_domain(tmp_path / "drafting")
    found.domain_combo.insertItem(0, "drafting", str(folder))  # as "Other folder…" adds a picked folder
    found.domain_combo.setCurrentIndex(0)
    found.text_edit.setPlainText(POLICY)
    found.model_edit.setText("openai/fake-drafter")
    found.api_base_edit.setText(fake_openai.base_url)
    yield found
    if found.is_drafting():
        found._worker.cancel()
        found._worker.wait(5000)


def _draft(qtbot, dialog: ImportProseDialog, signal: str = "drafted") -> None:
    with qtbot.waitSignal(getattr(dialog, signal), timeout=30000):
        qtbot.mouseClick(dialog.draft_button, Qt.MouseButton.LeftButton)


def test_the_draft_opens_unsaved_with_its_source_highlighted_on_selection(qtbot, editor, dialog, fake_openai, shop_dir) -> None:
    fake_openai.script = fake_model(invalid_draft(), VALID)  # repaired on the second answer
    before = (shop_dir / "sop.yaml").read_text()
    _draft(qtbot, dialog)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    assert len(fake_openai.requests) == 2
    # a new document, not saved anywhere
    assert editor.path is None and editor.is_modified() and editor.title() == "shop (not saved)*"
    assert (shop_dir / "sop.yaml").read_text() == before
    assert set(editor.scene.nodes) == {n["id"] for n in VALID["nodes"]}
    assert editor.doc.graph.title == "Drafted from prose"
    # validated against the drafting domain: the step with no tool is listed
    qtbot.waitUntil(lambda: not editor.validation_pending())
    assert [(p.node, p.message.split(" (")[0]) for p in editor.problems.model.rows] == [
        ("voucher", "node 'voucher': unknown tool 'issue_voucher'")
    ]
    # the source beside the canvas follows the selection
    panel = editor.source_panel
    assert panel.isVisible() and panel.view.toPlainText() == unwrap(POLICY)[0]
    assert "voucher: the domain has no tool 'issue_voucher'" in panel.notes.text()
    editor.select_node("lookup")
    (selection,) = panel.view.extraSelections()
    assert selection.cursor.selectedText() == "First look the order up with `lookup_order`."
    editor.select_node("say_on_its_way")
    (selection,) = panel.view.extraSelections()
    assert (
        selection.cursor.selectedText()
        == "An order that was not delivered yet cannot be refunded: explain that it is still on its way."
    )
    editor.scene.clearSelection()
    assert panel.view.extraSelections() == []
    # closing asks before the draft is lost
    asked = []
    editor.ask_save = lambda: asked.append(True) or QMessageBox.StandardButton.Cancel
    assert editor.can_close() is False and asked == [True]


def test_the_source_panel_goes_when_another_graph_opens(qtbot, editor, dialog, fake_openai, shop_dir) -> None:
    fake_openai.script = fake_model(VALID)
    _draft(qtbot, dialog)
    assert editor.source_panel.isVisible()
    assert editor.load(shop_dir / "sop.yaml")
    assert not editor.source_panel.isVisible() and not editor.is_modified()


def test_a_draft_that_never_validates_is_shown_and_nothing_opens(qtbot, editor, dialog, fake_openai) -> None:
    fake_openai.script = fake_model(invalid_draft())
    nodes = [n.id for n in editor.doc.graph.nodes]
    qtbot.mouseClick(dialog.draft_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.is_drafting() and dialog._worker is None, timeout=30000)
    assert len(fake_openai.requests) == 3
    assert dialog.isVisible() and dialog.errors.isVisible()
    assert "value 'no' of 'Delivered' is not covered by any edge" in dialog.errors.toPlainText()
    assert dialog.status.text() == "The model could not draft a valid graph; nothing was opened"
    assert dialog.draft_button.isEnabled()
    assert [n.id for n in editor.doc.graph.nodes] == nodes and not editor.is_modified()


def test_stop_cancels_the_request_in_flight(qtbot, editor, dialog, fake_openai) -> None:
    fake_openai.push_faults("timeout")  # the server holds the request until it stops
    qtbot.mouseClick(dialog.draft_button, Qt.MouseButton.LeftButton)
    assert fake_openai.wait_for_requests(1)
    assert dialog.cancel_button.text() == "Stop" and not dialog.draft_button.isEnabled()
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog._worker is None, timeout=5000)
    assert dialog.status.text() == "Drafting stopped; nothing was opened."
    assert dialog.isVisible() and dialog.draft_button.isEnabled() and editor.path is not None


def test_missing_input_is_explained_before_any_request(qtbot, editor, dialog, fake_openai, tmp_path: Path) -> None:
    assert editor.actions_by_name["import_prose"] in editor.menus()["&File"]
    dialog.model_edit.setText("")
    qtbot.mouseClick(dialog.draft_button, Qt.MouseButton.LeftButton)
    assert dialog.errors.toPlainText() == "Name the model that drafts the graph." and fake_openai.requests == []
    assert dialog.load_file(tmp_path / "nope.md") is False
    assert "no such file" in dialog.errors.toPlainText()
    policy = tmp_path / "returns.md"
    policy.write_text("# Returns\n\nAccept returns within 30 days.\n")
    assert dialog.load_file(policy) and dialog.text_edit.toPlainText().startswith("# Returns")
    assert dialog.options().title == "Drafted from returns.md"
