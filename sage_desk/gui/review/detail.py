"""Everything the Review screen shows about one conversation, read through the store and core.

Domains and case suites are loaded once per (domain, suite) and kept: moving from conversation
to conversation then costs two small queries (events, verdicts) and a route trace. A domain or
case that cannot be found (a run of a folder since moved) leaves the graph out with a note; the
transcript, tool calls and verdicts still show. A run is drawn on the graph it was played with (kept
in the store since migration 0012), so an edited or broken sop.yaml changes nothing in its review;
a note says when today's graph differs or cannot be read. F5 (`forget`) reads the folders again.
"""

from __future__ import annotations

import atexit
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject

from sage_desk.core.cases.model import Case
from sage_desk.core.cases.suite import load_suite
from sage_desk.core.domain.loader import DomainBundle, load_domain
from sage_desk.core.engine.stamps import content_hash
from sage_desk.core.errors import SageError
from sage_desk.core.events import Event
from sage_desk.core.review.session import ConversationRecord, StoredVerdict
from sage_desk.core.rules.trace import PathTrace, trace_conversation
from sage_desk.core.sop.io import dumps_graph, loads_graph
from sage_desk.core.sop.model import Graph
from sage_desk.gui.common.async_thread import AsyncThread

if TYPE_CHECKING:
    from sage_desk.core.review.session import Store


@dataclass
class ConversationDetail:
    """One conversation as the Review screen shows it."""

    record: ConversationRecord
    events: list[Event]
    verdicts: list[StoredVerdict]
    bundle: DomainBundle | None = None
    case: Case | None = None
    trace: PathTrace | None = None
    problem: str = ""
    """Why the graph or case is missing, when it is."""
    note: str = ""
    """What the drawing is not: today's graph differs from the run's, cannot be read, or the run kept none."""
    tool_kinds: dict[str, str] = field(default_factory=dict)
    reading: bool = False
    """The domain and suite are still being read from disk (in a thread): no graph, case or route yet."""

    @property
    def id(self) -> str:
        return self.record.id


OLD_RUN_NOTE = (
    "Drawn on today's sop.yaml, which differs from the graph this run was played with "
    "(runs made before this version did not keep theirs)."
)


def graph_content(graph: Graph) -> dict[str, object]:
    """What a graph says, without the editor's node positions (moving a node changes no route), as run stamps hash it."""
    data = graph.model_dump(mode="json")
    for node in data.get("nodes", []):
        node.pop("pos", None)
    return data


def first_line(error: BaseException) -> str:
    """An error's first line, for a one-line note."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


IMPORTED = "<imported>"  # the suite of an imported run: its cases live with its conversations


class DetailLoader:
    """Reads conversations with their domain, case and route; domains and suites cached."""

    def __init__(self, store: Store):
        self.store = store
        self._domains: dict[str, DomainBundle | SageError] = {}
        self._suites: dict[tuple[str, str], dict[str, Case] | SageError] = {}
        self._suite_of_run: dict[str, str | None] = {}
        self._snapshots: dict[tuple[str, str], DomainBundle | SageError] = {}
        self._run_bundles: dict[str, tuple[DomainBundle | SageError, str]] = {}

    def load(self, conversation_id: str, read_disk: bool = True) -> ConversationDetail:
        """The conversation, its events, effective verdicts, and (when found) case and route.

        With `read_disk` False, a run whose domain and suite were not read yet comes back without them,
        marked `reading` (the screen reads them in a `RunReader` thread, then loads again)."""
        record = self.store.conversation(conversation_id)
        detail = ConversationDetail(
            record, self.store.events(conversation_id), self.store.effective_verdicts(conversation_id=conversation_id)
        )
        if not read_disk and not self.has_read(record.run_id):
            detail.reading = True
            detail.problem = "Reading the domain's graph and cases…"
            return detail
        bundle, detail.note = self.run_bundle(record.run_id, record.domain)
        if isinstance(bundle, SageError):
            detail.problem = f"Domain {record.domain!r} could not be loaded: {bundle}"
            return detail
        detail.bundle = bundle
        detail.tool_kinds = {name: spec.kind.value for name, spec in bundle.domain.tools.items()}
        cases = self._cases(record.run_id, bundle)
        if isinstance(cases, SageError):
            detail.problem = f"The case suite could not be loaded: {cases}"
            return detail
        detail.case = cases.get(record.case_id)
        if detail.case is None:
            detail.problem = f"Case {record.case_id!r} is no longer in the domain's suite."
            return detail
        detail.trace = trace_conversation(detail.case, bundle, detail.events)
        return detail

    def has_read(self, run_id: str) -> bool:
        """Whether the run's domain (with its graph) and suite are read, so `load` touches no file."""
        read = self._run_bundles.get(run_id)
        if read is None:
            return False
        if isinstance(read[0], SageError):
            return True
        suite = self._suite_of_run.get(run_id, "")
        if suite == "":  # the run's config not read yet
            return False
        return suite == IMPORTED or (read[0].name, suite or str(read[0].cases_path)) in self._suites

    def read_run(self, run_id: str, domain: str) -> None:
        """Read the run's domain and suite into the caches (a RunReader's work, off the GUI thread)."""
        bundle, _ = self.run_bundle(run_id, domain)
        if not isinstance(bundle, SageError):
            self._cases(run_id, bundle)

    def forget(self) -> None:
        """Drop what was read from disk (F5): a domain fixed, or broken, since is read again."""
        self._domains.clear()
        self._suites.clear()
        self._run_bundles.clear()
        self._snapshots.clear()  # the graph never changes, but the domain.yaml and world read with it may

    def run_bundle(self, run_id: str, domain: str) -> tuple[DomainBundle | SageError, str]:
        """The domain with the graph the run was played with, and a note when today's graph differs or
        cannot be read; a run that kept no graph (made before 0012) gets today's, and says so."""
        if run_id not in self._run_bundles:
            self._run_bundles[run_id] = self._read_run_bundle(run_id, domain)
        return self._run_bundles[run_id]

    def _read_run_bundle(self, run_id: str, domain: str) -> tuple[DomainBundle | SageError, str]:
        today = self.bundle(domain)
        kept = self.store.sop_snapshot(run_id)
        if kept is None:  # made before runs kept their graph: its stamp still tells whether today's is the same
            stamp = self.store.get_run(run_id).config.get("stamp") or {}
            same = isinstance(today, SageError) or content_hash(graph_content(today.graph)) == stamp.get("sop", "")
            return today, "" if same or not stamp.get("sop") else OLD_RUN_NOTE
        if not isinstance(today, SageError) and dumps_graph(today.graph) == kept[1]:
            return today, ""  # the same graph: no second load of the domain (most runs, most of the time)
        key = (domain, kept[0])
        if key not in self._snapshots:
            try:
                self._snapshots[key] = load_domain(domain, graph=loads_graph(kept[1], f"run {run_id}'s SOP graph"))
            except SageError as exc:
                self._snapshots[key] = exc
        played = self._snapshots[key]
        if isinstance(played, SageError):
            return (
                (today, f"The graph this run kept could not be used ({first_line(played)}): drawn on today's sop.yaml.")
                if not isinstance(today, SageError)
                else (played, "")
            )
        if isinstance(today, SageError):
            return played, f"Drawn on the graph this run was played with; today's sop.yaml cannot be read: {first_line(today)}"
        if graph_content(today.graph) != graph_content(played.graph):
            return played, "Drawn on the graph this run was played with; today's sop.yaml differs."
        return played, ""

    def bundle(self, domain: str) -> DomainBundle | SageError:
        """The domain, loaded once (or the error it raised)."""
        if domain not in self._domains:
            try:
                self._domains[domain] = load_domain(domain)
            except SageError as exc:
                self._domains[domain] = exc
        return self._domains[domain]

    def _cases(self, run_id: str, bundle: DomainBundle) -> dict[str, Case] | SageError:
        if run_id not in self._suite_of_run:
            config = self.store.get_run(run_id).config
            config = config if isinstance(config, dict) else {}
            self._suite_of_run[run_id] = IMPORTED if config.get("imported") else config.get("suite")
        if self._suite_of_run[run_id] == IMPORTED:  # cases the import built, kept with each conversation
            from sage_desk.core.session import imported_cases

            return imported_cases(self.store, run_id)[0]
        path = self._suite_of_run[run_id] or str(bundle.cases_path)
        key = (bundle.name, path)
        if key not in self._suites:
            try:
                self._suites[key] = {c.id: c for c in load_suite(path)}
            except SageError as exc:
                self._suites[key] = exc
        return self._suites[key]


_READING: set[RunReader] = set()
"""RunReaders still reading (a QThread destroyed while it runs aborts the process)."""


def _wait_for_readers() -> None:
    for reader in list(_READING):
        reader.wait()


atexit.register(_wait_for_readers)
_QUIT_HOOKED = False


class RunReader(AsyncThread):
    """Reads a run's domain and suite off the GUI thread: the first conversation of a run read them on it
    (load_domain parses the world's YAML, about 0.2 s), a stall on the first switch to Review."""

    def __init__(self, loader: DetailLoader, run_id: str, domain: str, parent: QObject | None = None):
        super().__init__(parent)
        self.loader, self.run_id, self.domain = loader, run_id, domain
        # Kept alive here, not by a screen that may close first. Readers that have ended are let go here,
        # on the GUI thread and outside their own signals: dropping the last reference from the reader's
        # own `finished` (emitted in its thread, before the thread is over) let a garbage collection on
        # the GUI thread delete a QThread still running, a segfault seen under load.
        _READING.difference_update([r for r in _READING if r.isFinished()])
        _READING.add(self)
        global _QUIT_HOOKED
        app = QCoreApplication.instance()
        if app is not None and not _QUIT_HOOKED:
            app.aboutToQuit.connect(_wait_for_readers)
            _QUIT_HOOKED = True

    async def work(self) -> str:
        self.loader.read_run(self.run_id, self.domain)
        return self.run_id
