"""The transcript as a chat (customer left, agent right) and the tool-call timeline beside it.

Both show the same events and can highlight one of them by `seq` (the event a verdict points at).
Consequential tool calls are marked: `record` tools move money or act outside (refund, reship,
credit: "$ money-moving") and `write` tools change the customer's record (cancel, address edit:
"✎ changes a record"), as the domain declares them.

Right-click an agent's turn in the transcript: "Replay from here" plays that turn again N times
(replay_dialog.py), when the view was told whose conversation it shows (`replay_context`).
"""

from __future__ import annotations

import bisect
import html
import json
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QCoreApplication, QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QBrush, QColor, QContextMenuEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QMenu, QSplitter, QTextBrowser, QTreeWidget, QTreeWidgetItem

from sage_desk.core.engine.replay import turns_of
from sage_desk.core.events import Event

HIGHLIGHT = "#fde68a"
MONEY, CHANGE = "$ money-moving", "✎ changes a record"
SEQ_ROLE = Qt.ItemDataRole.UserRole + 2
AGENT_SIDE = ("agent_message", "tool_call", "ticket_tagged", "handover", "ticket_closed")
REPLAY_TEXT = "Replay from here"
ReplayContext = Callable[[], tuple[Any, Any] | None]
"""The (store, ConversationRecord) of the conversation on show, or None when there is none."""


def consequence(kind: str) -> str:
    """The mark of a tool call's kind ('' for reads and helpdesk tools)."""
    return {"record": MONEY, "write": CHANGE}.get(kind, "")


_HELPDESK_EVENTS = {"tag_ticket": "ticket_tagged", "handover_to_human": "handover", "close_ticket": "ticket_closed"}


def helpdesk_aliases(events: Sequence[Event]) -> dict[int, int]:
    """Successful helpdesk calls (tag, hand over, close) -> the ticket event each produced.

    The views show the readable event ("closed as resolved") instead of the call; a verdict that
    points at the call is shown on the event.
    """
    aliases = {}
    for call, after in zip(events, events[1:], strict=False):
        if call.type == "tool_call" and not call.error and _HELPDESK_EVENTS.get(call.name) == after.type:
            aliases[call.seq] = after.seq
    return aliases


def arguments_text(arguments: Any, limit: int | None = None) -> str:
    """`order_id=NL-10023, reason=lost` (or the raw text the model sent when it was not JSON)."""
    if isinstance(arguments, dict):
        text = ", ".join(f"{k}={v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())
    else:
        text = str(arguments)
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


def result_text(event: Any, limit: int | None = None) -> str:
    """What a tool call returned, or its error."""
    text = f"ERROR: {event.error}" if event.error else json.dumps(event.result, ensure_ascii=False, default=str)
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


class TranscriptView(QTextBrowser):
    """Customer and agent turns as chat bubbles, with the agent's tool calls and ticket events between."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("transcript")
        self.setOpenLinks(False)
        self.events: list[Event] = []
        self.kinds: dict[str, str] = {}
        self.highlighted_seq: int | None = None  # not `highlighted`: QTextBrowser has a signal of that name
        self.aliases: dict[int, int] = {}
        self.anchors: list[tuple[int, int]] = []  # (document position, seq) of each event shown, in order
        self.replay_context: ReplayContext | None = None
        self.replay_dialog: Any = None
        self.document().setDocumentMargin(10)

    def show_events(self, events: Sequence[Event], tool_kinds: dict[str, str] | None = None) -> None:
        """Show a conversation (nothing highlighted)."""
        self.events = list(events)
        self.kinds = tool_kinds or {}
        self.aliases = helpdesk_aliases(self.events)
        self.highlighted_seq = None
        self._render()
        self.verticalScrollBar().setValue(0)

    def highlight(self, seq: int | None) -> None:
        """Mark one event (None clears) and scroll to it."""
        seq = self.aliases.get(seq, seq) if seq is not None else None
        self.highlighted_seq = seq
        bar = self.verticalScrollBar().value()
        self._render()
        self.verticalScrollBar().setValue(bar)
        if seq is not None:
            self.scrollToAnchor(f"e{seq}")

    def _render(self) -> None:
        parts = [self._html(e) for e in self.events]
        body = "".join(p for p in parts if p) or "<p style='color:#64748b'>No events recorded.</p>"
        self.setHtml(f"<html><body style='font-size:10pt'>{body}</body></html>")
        self.anchors = self._anchor_positions()

    def _anchor_positions(self) -> list[tuple[int, int]]:
        found = []
        block = self.document().begin()
        while block.isValid():  # table cells are blocks too, in document order
            fragments = block.begin()
            while not fragments.atEnd():
                fragment = fragments.fragment()
                found += [(fragment.position(), int(n[1:])) for n in fragment.charFormat().anchorNames() if n[:1] == "e"]
                fragments += 1
            block = block.next()
        return found

    def event_at(self, pos: QPoint) -> Event | None:
        """The event shown at a point of the viewport (the one whose bubble or line it falls in)."""
        where = self.cursorForPosition(pos).position()
        index = bisect.bisect_right([start for start, _seq in self.anchors], where) - 1
        if index < 0:
            return None
        seq = self.anchors[index][1]
        return next((e for e in self.events if e.seq == seq), None)

    # --- replay from here --------------------------------------------------------------------

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # Qt's name
        self.context_menu(event.pos()).exec(event.globalPos())

    def context_menu(self, pos: QPoint) -> QMenu:
        """Copy and Select All, with "Replay from here" on top when the view knows its conversation."""
        menu = self.createStandardContextMenu(pos)
        action = self._replay_action(self.event_at(pos), menu)
        if action is not None:  # the standard menu always has Copy and Select All
            first = menu.actions()[0]
            menu.insertAction(first, action)
            menu.insertSeparator(first)
        return menu

    def _replay_action(self, event: Event | None, menu: QMenu) -> QAction | None:
        source = self.replay_context() if self.replay_context is not None else None
        if source is None:
            return None
        if event is None or event.type not in AGENT_SIDE or event.turn not in turns_of(self.events):
            action = QAction(f"{REPLAY_TEXT} (right-click one of the agent's turns)…", menu)
            action.setEnabled(False)
            return action
        action = QAction(f"{REPLAY_TEXT} (the agent's turn {event.turn})…", menu)
        action.setObjectName("replayFromHere")
        action.triggered.connect(lambda _checked=False, turn=event.turn: self.open_replay(turn))
        return action

    def open_replay(self, turn: int) -> Any:
        """Open the replay dialog on the conversation on show at the agent's `turn` (None without one)."""
        from sage_desk.gui.review.replay_dialog import ReplayDialog

        source = self.replay_context() if self.replay_context is not None else None
        if source is None:
            return None
        store, record = source
        dialog = ReplayDialog(store, record, self.events, turn, parent=self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        app = QCoreApplication.instance()
        if app is not None:  # a replay's thread must end before the application does
            app.aboutToQuit.connect(dialog.stop)
        dialog.show()
        self.replay_dialog = dialog
        return dialog

    def _html(self, event: Event) -> str:
        if event.seq in self.aliases:
            return ""  # shown as its ticket event
        mark = event.seq == self.highlighted_seq
        if event.type in ("customer_message", "agent_message"):
            return self._bubble(event, mark)
        line = self._line(event)
        if not line:
            return ""
        text, colour = line
        background = f" bgcolor='{HIGHLIGHT}'" if mark else ""
        return (
            f"<a name='e{event.seq}'></a><table width='100%' cellpadding='3' cellspacing='0'><tr>"
            f"<td align='center'{background}><span style='color:{colour}; font-size:9pt'>{text}</span></td></tr></table>"
        )

    def _bubble(self, event: Any, mark: bool) -> str:
        customer = event.type == "customer_message"
        who = "Customer" if customer else "Agent"
        fill = HIGHLIGHT if mark else ("#f1f5f9" if customer else "#e0e7ff")
        extra = f" · feels {html.escape(event.emotion)}" if customer and getattr(event, "emotion", None) else ""
        head = f"<span style='color:#475569; font-size:8.5pt'><b>{who}</b> · turn {event.turn} · {event.t:.1f} s{extra}</span>"
        text = html.escape(event.text or "(empty message)").replace("\n", "<br>")
        bubble = f"<td width='82%' bgcolor='{fill}' style='padding:7px'>{head}<br>{text}</td>"
        spacer = "<td width='18%'></td>"
        cells = bubble + spacer if customer else spacer + bubble
        return (
            f"<a name='e{event.seq}'></a><table width='100%' cellspacing='0' cellpadding='0' style='margin-top:6px'>"
            f"<tr>{cells}</tr></table>"
        )

    def _line(self, event: Any) -> tuple[str, str] | None:
        esc = html.escape
        if event.type == "tool_call":
            mark = consequence(event.kind or self.kinds.get(event.name, ""))
            colour = "#b91c1c" if event.error else "#b45309" if mark else "#475569"
            badge = f" <b>{esc(mark)}</b>" if mark else ""
            outcome = " — <b>error</b>" if event.error else " — refused by guard" if event.guard_failed else ""
            return f"⚙ {esc(event.name)}({esc(arguments_text(event.arguments, 80))}){outcome}{badge}", colour
        if event.type == "ticket_tagged":
            slots = ", ".join(f"{k}={v}" for k, v in event.slots.items())
            return f"◆ tagged intent <b>{esc(str(event.intent))}</b>{esc(' · ' + slots if slots else '')}", "#0f766e"
        if event.type == "handover":
            return f"→ handed over to a human: {esc(event.reason)}", "#7c2d12"
        if event.type == "ticket_closed":
            return f"✓ closed as <b>{esc(event.outcome)}</b>{esc(': ' + event.summary if event.summary else '')}", "#166534"
        if event.type == "error":
            return f"⚠ error ({esc(event.where)}): {esc(event.message)}", "#b91c1c"
        if event.type == "ended":
            return f"— ended: {esc(event.reason.value.replace('_', ' '))} —", "#64748b"
        return None


class TimelineView(QTreeWidget):
    """Each tool call and ticket event in order: time, step, arguments and result; details one click down."""

    event_selected = Signal(int)  # seq

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("timeline")
        self.setColumnCount(3)
        self.setHeaderLabels(["When", "Step", "Arguments → result"])
        self.setRootIsDecorated(True)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = self.header()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        header.resizeSection(0, 96)  # "T12 · 10.5s" beside the expand arrow
        header.resizeSection(1, 130)
        self.items: dict[int, QTreeWidgetItem] = {}
        self.currentItemChanged.connect(self._on_current)

    def show_events(self, events: Sequence[Event], tool_kinds: dict[str, str] | None = None) -> None:
        """Show a conversation's tool calls and ticket events."""
        kinds = tool_kinds or {}
        self.blockSignals(True)
        self.clear()
        self.items = {}
        aliases = helpdesk_aliases(events)
        for event in events:
            item = None if event.seq in aliases else self._item(event, kinds)
            if item is not None:
                item.setData(0, SEQ_ROLE, event.seq)
                self.items[event.seq] = item
                self.addTopLevelItem(item)
        for call, shown in aliases.items():
            if shown in self.items:
                self.items[call] = self.items[shown]
        if not self.items:
            self.addTopLevelItem(QTreeWidgetItem(["", "No tool calls", "The agent answered without calling a tool."]))
        self.blockSignals(False)

    def highlight(self, seq: int | None) -> None:
        """Select the event's row (when it is a tool call or ticket event) and scroll to it."""
        self.blockSignals(True)
        self.clearSelection()
        self.setCurrentIndex(QModelIndex())
        item = self.items.get(seq) if seq is not None else None
        if item is not None:
            self.setCurrentItem(item)
            self.scrollToItem(item, QAbstractItemView.ScrollHint.PositionAtCenter)
        self.blockSignals(False)

    def selected_seq(self) -> int | None:
        """The seq of the selected event."""
        item = self.currentItem()
        return None if item is None else item.data(0, SEQ_ROLE)

    def _on_current(self, current: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        while current is not None and current.parent() is not None:
            current = current.parent()
        if current is not None and current.data(0, SEQ_ROLE) is not None:
            self.event_selected.emit(int(current.data(0, SEQ_ROLE)))

    def _item(self, event: Any, kinds: dict[str, str]) -> QTreeWidgetItem | None:
        when = f"T{event.turn} · {event.t:.1f}s"
        if event.type == "tool_call":
            return self._call_item(event, when, kinds)
        texts = {
            "ticket_tagged": ("tag_ticket", f"intent={event.intent}" if event.type == "ticket_tagged" else ""),
            "handover": ("handover", getattr(event, "reason", "")),
            "ticket_closed": ("close_ticket", f"{getattr(event, 'outcome', '')}: {getattr(event, 'summary', '')}"),
            "error": ("error", f"{getattr(event, 'where', '')}: {getattr(event, 'message', '')}"),
        }
        if event.type not in texts:
            return None
        step, detail = texts[event.type]
        item = QTreeWidgetItem([when, step, detail])
        item.setToolTip(2, detail)
        item.setForeground(1, QBrush(QColor("#b91c1c" if event.type == "error" else "#475569")))
        return item

    def _call_item(self, event: Any, when: str, kinds: dict[str, str]) -> QTreeWidgetItem:
        mark = consequence(event.kind or kinds.get(event.name, ""))
        step = f"{mark.split()[0]} {event.name}" if mark else event.name
        summary = f"{arguments_text(event.arguments, 60)}  →  {result_text(event, 120)}"
        item = QTreeWidgetItem([when, step, summary])
        item.setToolTip(1, f"{event.name} ({event.kind}){': ' + mark if mark else ''}")
        item.setToolTip(2, summary)
        if mark:
            item.setBackground(1, QBrush(QColor("#ffedd5" if mark == MONEY else "#e0f2fe")))
        if event.error:
            item.setForeground(2, QBrush(QColor("#b91c1c")))
        args = (
            json.dumps(event.arguments, ensure_ascii=False, indent=1)
            if isinstance(event.arguments, dict)
            else str(event.arguments)
        )
        rows = [
            ("arguments", args),
            ("error" if event.error else "result", result_text(event).removeprefix("ERROR: ")),
            ("latency", f"{event.latency_ms:.0f} ms"),
        ]
        if mark:
            rows.append(("kind", f"{event.kind}: {mark.split(' ', 1)[1]}"))
        if event.guard_failed:
            rows.append(("guard", "the action's guard refused it"))
        for name, text in rows:
            child = QTreeWidgetItem(["", name, text.replace("\n", " ")])
            child.setToolTip(2, text)
            item.addChild(child)
        return item


def transcript_over_timeline(top: int, bottom: int) -> tuple[TranscriptView, TimelineView, QSplitter]:
    """A transcript over its timeline in a vertical splitter (heights `top`, `bottom`); picking an event on the
    timeline highlights its turn in the transcript."""
    transcript, timeline = TranscriptView(), TimelineView()
    timeline.event_selected.connect(transcript.highlight)
    split = QSplitter(Qt.Orientation.Vertical)
    split.addWidget(transcript)
    split.addWidget(timeline)
    split.setSizes([top, bottom])
    return transcript, timeline, split
