"""What the Review screen shows of the chosen conversation beyond its panes: the title and subtitle
lines, and the graph, case and route drawn once its run's domain is read off the GUI thread.

It sees the screen through host.py's `ReviewHost`, so it need not import the screen that imports it.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Slot

from sage_desk.core.errors import SageError
from sage_desk.gui.review.detail import ConversationDetail, RunReader
from sage_desk.gui.review.slots import imported_about

if TYPE_CHECKING:
    from sage_desk.gui.review.host import ReviewHost


def conversation_titles(detail: ConversationDetail, agent_names: dict[str, str]) -> tuple[str, str]:
    """The title (rich text: case, agent, repeat, id) and the subtitle of a conversation."""
    r = detail.record
    ending = (r.termination or r.status.value).replace("_", " ")
    agent = escape(agent_names.get(r.agent, r.agent))  # its display name (the spec is in the list's tooltip)
    title = f"<b>{r.case_id}</b> · {agent} · repeat {r.repeat} · <span style='color:#64748b'>{r.id}</span>"
    if r.source_id is not None:  # imported: the log's own id is what a reviewer knows it by
        # an import that names no agent calls it 'imported': said once ('task13-t3 · imported · imported' before)
        named = f" · {agent}" if r.agent != "imported" else ""
        title = f"<b>{escape(r.source_id)}</b>{named} · imported · <span style='color:#64748b'>{r.id}</span>"
    case = detail.case
    about = [
        f"{(r.bucket or '?').replace('_', ' ')}",
        f"{r.conflict or '?'} conflict",
        f"ended: {ending}",
        f"{r.turns} turns",
    ]
    if case is not None:
        about.insert(0, f"“{case.title or case.subject}”")
        if case.tactics:
            about.append("tactics: " + ", ".join(case.tactics))
        about.append(f"expected: {case.expected.outcome}")
    return title, " · ".join(about) if r.source_id is None else imported_about(detail)


class RunFollower(QObject):
    """Reads the shown conversation's run domain in a thread (no stall on a first look), then draws
    what needed it; a QObject so the reader's `ended` is queued to the GUI thread."""

    def __init__(self, host: ReviewHost) -> None:
        super().__init__(host.widget())
        self.host = host
        self.reader: RunReader | None = None  # reading a run's domain for the conversation on show

    def read(self, detail: ConversationDetail) -> None:
        """Start reading `detail`'s run domain unless it is being read already."""
        run_id = detail.record.run_id
        if self.reader is not None and self.reader.run_id == run_id:
            return
        assert self.host.loader is not None
        self.reader = RunReader(self.host.loader, run_id, detail.record.domain)
        self.reader.ended.connect(self._on_run_read)
        self.reader.start()

    @Slot(object)
    def _on_run_read(self, _outcome: object) -> None:
        """A run's domain and suite are read: draw the graph, case and route of the conversation on show."""
        host = self.host
        if self.reader is self.sender():
            self.reader = None
        shown = host.detail
        if shown is None or not shown.reading or host.loader is None:
            return
        if not host.loader.has_read(shown.record.run_id):  # another run's reader: this one's is on its way
            if self.reader is None:
                self.read(shown)
            return
        try:
            fresh = host.loader.load(shown.id)
        except SageError as exc:
            host._report("Could not read the conversation", exc)
            return
        # only what needed the domain: labels being keyed and the chosen verdict stay as they are
        shown.bundle, shown.case, shown.trace, shown.problem, shown.note, shown.tool_kinds, shown.reading = (
            fresh.bundle,
            fresh.case,
            fresh.trace,
            fresh.problem,
            fresh.note,
            fresh.tool_kinds,
            False,
        )
        host.transcript.show_events(shown.events, shown.tool_kinds)
        host.timeline.show_events(shown.events, shown.tool_kinds)
        host.route.show_route(shown.bundle.graph if shown.bundle else None, shown.trace, shown.problem, shown.note)
        host.slots.show_detail(shown, host.store)
        host.override.set_failure_modes(list(shown.bundle.domain.failure_modes) if shown.bundle is not None else [])
