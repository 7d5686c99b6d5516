"""The new-run form's agent-kind picker and agent options: prompt file, parameters, headers, tools server.

Its widgets sit as rows of the run form's own QFormLayout (so their labels line up with the rest of
the form); this object owns them, decides which rows show, and turns them into run-spec fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QHBoxLayout, QLineEdit, QPushButton, QWidget

from sage_desk.core.engine.runner import RunSpec
from sage_desk.core.errors import SageError

if TYPE_CHECKING:
    from sage_desk.gui.runs.form import ModelList

MODEL_HINT = "a litellm model, e.g. openai/gpt-4o-mini"
# The agent-kind picker (DESIGN.md 13): label, key, what the field beside it takes.
AGENT_KINDS: tuple[tuple[str, str, str], ...] = (
    ("Model", "model", f"add an agent: {MODEL_HINT}"),
    ("HTTP", "http", "add an HTTP agent: http://localhost:8000/agent"),
    ("Python", "python", "add a Python agent: my_agents.support:make (package.module:factory)"),
    ("MCP", "mcp", "add an HTTP agent whose tools are the tools server below: http://localhost:8000/agent"),
)


class AgentFields(QObject):
    """The agent-kind picker and the agent option rows; `changed` fires when an option is edited."""

    changed = Signal()

    def __init__(self, agents: ModelList, parent: QWidget):
        super().__init__(parent)
        self._parent = parent
        self.agents = agents
        self.agent_kind = QComboBox()
        self.agent_prompt = QLineEdit()
        self.prompt_browse = QPushButton("Browse…")
        self.agent_params = QLineEdit()
        self.agent_headers = QLineEdit()
        self.tools_server = QLineEdit()
        self.agent_more = QPushButton("Prompt, params…")
        self.agent_more.setCheckable(True)
        self._form: QFormLayout | None = None  # set by add_rows
        self._prompt_row = QHBoxLayout()
        self._build()

    def _build(self) -> None:
        """The picker (what the add field takes), and the prompt file, parameters, headers, tools server."""
        for label, key, _hint in AGENT_KINDS:
            self.agent_kind.addItem(label, key)
        self.agent_kind.setToolTip(
            "What kind of agent the field beside it adds: a model, an agent behind HTTP,\n"
            "a Python agent (package.module:factory), or an HTTP agent that calls its tools\n"
            "through sage-desk serve-tools (MCP). See docs/your-agent.md."
        )
        self.agent_kind.currentIndexChanged.connect(self._on_kind_changed)
        # The add field's text means what the picked kind says, so the list's own add is replaced.
        self.agents.entry.returnPressed.disconnect()
        self.agents.add_button.clicked.disconnect()
        self.agents.entry.returnPressed.connect(self._add_typed_agent)
        self.agents.add_button.clicked.connect(self._add_typed_agent)
        self.agent_prompt.setPlaceholderText("a prompt file; {policy} marks the policy")
        self.agent_prompt.setToolTip(
            "A text file sent as the agent's system prompt (models, HTTP and Python agents).\n"
            "The domain's policy goes where it says {policy}, nowhere without it."
        )
        self.prompt_browse.clicked.connect(self._browse_prompt)
        self.agent_params.setPlaceholderText("temperature=0.2 max_tokens=800")
        self.agent_params.setToolTip(
            "Parameters of the agent's calls, NAME=VALUE separated by spaces: any litellm/OpenAI\n"
            "one for a model, a body field for an HTTP agent (model=NAME); timeout, max_retries."
        )
        self.agent_headers.setPlaceholderText("Authorization: Bearer $TOKEN; X-Team: qa")
        self.agent_headers.setToolTip(
            "Headers for HTTP agents, separated by ';'. $VARS are read from the environment\n"
            "when the run calls the agent and are never stored."
        )
        self.tools_server.setPlaceholderText("sage-desk serve-tools URL: http://127.0.0.1:8765")
        self.tools_server.setToolTip(
            "The URL of sage-desk serve-tools --domain D: an HTTP agent with its own tool layer\n"
            "calls the domain's tools there; the calls it saw become the transcript's."
        )
        for edit in (self.agent_prompt, self.agent_params, self.agent_headers, self.tools_server):
            edit.textChanged.connect(lambda *_: self.changed.emit())
        self.agent_more.setToolTip("Show the agent's prompt file, parameters and HTTP headers (shown anyway once one is set)")
        self.agent_more.toggled.connect(self.update_rows)

    def add_rows(self, form: QFormLayout) -> None:
        """Put the picker and the option rows into the run form, shown as `update_rows` decides."""
        kind = QHBoxLayout()
        kind.addWidget(self.agent_kind)
        kind.addWidget(self.agent_more)
        kind.addStretch(1)
        form.addRow("Agent kind", kind)
        form.addRow("Tools server", self.tools_server)
        self._prompt_row.addWidget(self.agent_prompt, 1)
        self._prompt_row.addWidget(self.prompt_browse)
        form.addRow("Agent prompt", self._prompt_row)
        form.addRow("Agent params", self.agent_params)
        form.addRow("Agent headers", self.agent_headers)
        self._form = form
        self.update_rows()

    def update_rows(self, *_args: Any) -> None:
        """The agent option rows take room only when asked for, or when one is set (the form fits 1280x720)."""
        form = self._form
        if form is None:
            return
        kind = self.agent_kind.currentData()
        given = any(e.text().strip() for e in (self.agent_prompt, self.agent_params, self.agent_headers))
        shown = self.agent_more.isChecked() or given or kind in ("http", "python", "mcp")
        if given and not self.agent_more.isChecked():
            self.agent_more.setChecked(True)  # toggled() comes back here with the rows shown
            return
        form.setRowVisible(self._prompt_row, shown)
        form.setRowVisible(self.agent_params, shown)
        form.setRowVisible(self.agent_headers, shown)
        form.setRowVisible(self.tools_server, kind == "mcp" or bool(self.tools_server.text().strip()))

    def _on_kind_changed(self, *_args: Any) -> None:
        self.agents.entry.setPlaceholderText(AGENT_KINDS[max(0, self.agent_kind.currentIndex())][2])
        self.update_rows()
        if self.agent_kind.currentData() == "mcp" and not self.tools_server.text().strip():
            self.tools_server.setFocus()

    def agent_spec_of(self, typed: str) -> str:
        """What the field's text adds under the picked kind (a Python agent gets its `python:` prefix)."""
        text = typed.strip()
        kind = self.agent_kind.currentData()
        if kind == "python" and text and not text.startswith("python:"):
            return f"python:{text}"
        if kind in ("http", "mcp") and text and "://" not in text:
            return f"http://{text}"
        return text

    def _add_typed_agent(self) -> None:
        self.agents.add(self.agent_spec_of(self.agents.entry.text()))
        self.agents.entry.clear()

    def _browse_prompt(self) -> None:
        from sage_desk.gui.common import file_dialogs  # never Qt's own: it opens the files it lists (issue 34)

        path, _ = file_dialogs.open_file_name(self._parent, "Agent prompt file", "", "Text (*.txt *.md *.prompt);;All files (*)")
        if path:
            self.agent_prompt.setText(path)

    def option_fields(self) -> dict[str, Any]:
        """The run spec's agent fields from the prompt, parameters, headers and tools server; ValueError when bad."""
        from sage_desk.core.agents.options import spec_fields

        headers = [h.strip() for h in self.agent_headers.text().split(";") if h.strip()]
        return spec_fields(
            self.agent_prompt.text().strip() or None,
            self.agent_params.text().split(),
            headers,
            self.tools_server.text().strip() or None,
        )

    def headers_keepable(self) -> bool:
        """Whether the headers may be remembered: templates only ($VARS), never a secret typed in."""
        from sage_desk.core.agents.http_agent import header_template

        try:
            [header_template(h) for h in self.agent_headers.text().split(";") if h.strip()]
        except ValueError:
            return False
        return True

    def problems(self) -> list[str]:
        """What is wrong with the agent options: a prompt file, parameter or header, a header variable
        that is not set, a tools server without an HTTP agent."""
        from sage_desk.core.agents.protocol import check_settings

        try:
            fields = self.option_fields()
            check_settings(RunSpec(domain="", agents=[], **fields).agent_settings(), self.agents.checked())
        except (ValueError, SageError) as exc:
            return [
                str(exc)
                .replace("--agent-prompt", "Agent prompt")
                .replace("--agent-param", "Agent parameter")
                .replace("--agent-header", "Agent header")
                .replace("--tools-server", "Tools server")
            ]
        return []

    def state(self) -> dict[str, str]:
        """The options to remember between sessions (headers only when they hold no secret)."""
        return {
            "agent_prompt": self.agent_prompt.text().strip(),
            "agent_params": self.agent_params.text().strip(),
            "tools_server": self.tools_server.text().strip(),
            "agent_headers": self.agent_headers.text().strip() if self.headers_keepable() else "",
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Bring back the options `state()` gave."""
        for edit, key in (
            (self.agent_prompt, "agent_prompt"),
            (self.agent_params, "agent_params"),
            (self.agent_headers, "agent_headers"),
            (self.tools_server, "tools_server"),
        ):
            edit.setText(str(state.get(key) or ""))
        self.update_rows()
