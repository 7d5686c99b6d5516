"""The new-run form: domain, cases, agents, customer simulator, judges, repeats, concurrency.

It only gathers choices into a `RunSpec` and lists what stops a start (`problems()`); the run
itself is validated again by `Runner.create` in core. Model names, not keys, are remembered
between sessions; an API base with a password in it is not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from sage_desk.core.agents.base import baseline_names
from sage_desk.core.engine.runner import PROVIDER_DEFAULT, RunSpec
from sage_desk.core.errors import SageError
from sage_desk.core.llm.balance import join_bases, split_bases
from sage_desk.core.llm.secrets import missing_keys
from sage_desk.core.locations import shipped_domains
from sage_desk.gui.runs.agent_fields import MODEL_HINT, AgentFields

SCRIPTED = "scripted"
HEURISTIC_JUDGE = "baseline:heuristic"
QUICK_PER_BUCKET = 3
DEFAULT_REPEATS = 3
"""Each case three times per agent: metrics take the median of three, as SupportAgentBench does."""
# (label, what to keep): bucket value, "quick", or None for every case
CASE_CHOICES: tuple[tuple[str, str | None], ...] = (
    ("All cases", None),
    ("Resolvable only", "resolvable"),
    ("Must-escalate only", "must_escalate"),
    ("Adversarial only", "adversarial"),
    (f"Quick check (first {QUICK_PER_BUCKET} of each bucket)", "quick"),
)
SAME_AS_RUN = "same as the API base above"
PROVIDERS_OWN = "the provider's own endpoint"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


class RoleApiBase(QComboBox):
    """Where one role's model calls go: the run's API base, the provider's own endpoint, or a URL typed in."""

    def __init__(self, role: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setEditable(True)
        self.addItems([SAME_AS_RUN, PROVIDERS_OWN])
        self.setToolTip(
            f"Where the {role}'s model calls go. Pick the provider's own endpoint to judge a local agent\n"
            "with a hosted model, or type the URL of another OpenAI-compatible server."
        )

    def value(self) -> str | None:
        """None (the run's API base), "default" (the provider's own) or a URL."""
        text = self.currentText().strip()
        if text in ("", SAME_AS_RUN):
            return None
        return PROVIDER_DEFAULT if text == PROVIDERS_OWN else join_bases([text])  # "A, B": several servers

    def set_value(self, value: str | None) -> None:
        """Show a value `value()` gave (a restored session)."""
        self.setCurrentText({None: SAME_AS_RUN, "": SAME_AS_RUN, PROVIDER_DEFAULT: PROVIDERS_OWN}.get(value, value or ""))

    def url(self) -> str:
        """The URL typed in, or "" when a choice is picked."""
        value = self.value()
        return "" if value in (None, PROVIDER_DEFAULT) else str(value)


class ModelList(QWidget):
    """A checkable list of models with a field to add one (agents, judges)."""

    changed = Signal()

    def __init__(self, fixed: list[str], placeholder: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.fixed = list(fixed)
        self.list = QListWidget()
        self.entry = QLineEdit()
        self.entry.setPlaceholderText(placeholder)
        self.add_button = QPushButton("Add")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Remove the selected model (shipped baselines stay)")
        for name in fixed:
            self._append(name, checked=False)
        self.list.itemChanged.connect(lambda _item: self.changed.emit())
        self.list.currentItemChanged.connect(lambda *_: self._update_remove())
        self.entry.returnPressed.connect(self._add_typed)
        self.add_button.clicked.connect(self._add_typed)
        self.remove_button.clicked.connect(self.remove_selected)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.entry, 1)
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.list)
        layout.addLayout(row)
        self._update_remove()

    def _append(self, name: str, checked: bool) -> QListWidgetItem:
        item = QListWidgetItem(name)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        self.list.addItem(item)
        return item

    def add(self, name: str, checked: bool = True) -> None:
        """Add a model (or tick it when it is already listed)."""
        name = name.strip()
        if not name:
            return
        found = self.list.findItems(name, Qt.MatchFlag.MatchExactly)
        item = found[0] if found else self._append(name, checked)
        item.setCheckState(Qt.CheckState.Checked if checked else item.checkState())
        self.changed.emit()

    def _add_typed(self) -> None:
        self.add(self.entry.text())
        self.entry.clear()

    def remove_selected(self) -> None:
        """Drop the selected model unless it is one of the fixed entries."""
        item = self.list.currentItem()
        if item is not None and item.text() not in self.fixed:
            self.list.takeItem(self.list.row(item))
            self.changed.emit()

    def _update_remove(self) -> None:
        item = self.list.currentItem()
        self.remove_button.setEnabled(item is not None and item.text() not in self.fixed)

    def names(self) -> list[str]:
        """Every listed model."""
        return [self.list.item(i).text() for i in range(self.list.count())]

    def checked(self) -> list[str]:
        """The ticked models, in list order."""
        return [n for i, n in enumerate(self.names()) if self.list.item(i).checkState() == Qt.CheckState.Checked]

    def set_checked(self, names: list[str]) -> None:
        """Tick exactly these models, adding any that are not listed."""
        for name in names:
            if not self.list.findItems(name, Qt.MatchFlag.MatchExactly):
                self._append(name, checked=False)
        for i in range(self.list.count()):
            item = self.list.item(i)
            item.setCheckState(Qt.CheckState.Checked if item.text() in names else Qt.CheckState.Unchecked)
        self.changed.emit()


class RunForm(QWidget):
    """Choices for a new run; `spec()` turns them into a RunSpec, `problems()` says what is missing."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._shown = False  # suites are read when the form is first shown, not at app start
        self._suites: dict[str, list[Any]] = {}  # domain folder -> its cases, read once
        self._domain_errors: dict[str, str] = {}
        self.domain = QComboBox()
        self.cases = QComboBox()
        self.case_ids = QLineEdit()
        self.agents = ModelList(baseline_names(), f"add an agent: {MODEL_HINT}")
        self.agent_fields = AgentFields(self.agents, self)
        # The option widgets by their own names, as the form's (tests and the screen reach them so)
        self.agent_kind = self.agent_fields.agent_kind
        self.agent_prompt = self.agent_fields.agent_prompt
        self.prompt_browse = self.agent_fields.prompt_browse
        self.agent_params = self.agent_fields.agent_params
        self.agent_headers = self.agent_fields.agent_headers
        self.tools_server = self.agent_fields.tools_server
        self.agent_more = self.agent_fields.agent_more
        self.api_base = QLineEdit()
        self.user = QComboBox()
        self.user_api_base = RoleApiBase("customer simulator")
        self.judges = ModelList([HEURISTIC_JUDGE], "add a judge model")
        self.judge_api_base = RoleApiBase("judges")
        self.repeats = QSpinBox()
        self.concurrency = QSpinBox()
        self.seed = QSpinBox()
        self.summary = QLabel()
        self._build()
        self._fill_domains()
        self.agents.set_checked(["baseline:oracle"])
        self.judges.set_checked([HEURISTIC_JUDGE])

    # --- building ---------------------------------------------------------------------------

    def _build(self) -> None:
        self.domain.setToolTip("A domain folder shipped under sops/")
        for label, key in CASE_CHOICES:
            self.cases.addItem(label, key)
        self.case_ids.setPlaceholderText("or only these case ids: nl-001, nl-002 …")
        self.agents.list.setToolTip("Tick every agent model to test. Baselines need no LLM and no key.")
        self.agents.list.setFixedHeight(118)
        self.api_base.setPlaceholderText("optional: http://localhost:11434/v1 (Ollama), vLLM … (several: A, B)")
        self.api_base.setToolTip(
            "An OpenAI-compatible server the model calls go to (the agents', and the customer's\n"
            "and judges' unless they have their own below). Empty: the providers' own endpoints.\n"
            "Several replicas, separated by commas: each call goes to the least busy one that is up."
        )
        self.user.setEditable(True)
        self.user.addItem(SCRIPTED)
        user_edit = self.user.lineEdit()
        assert user_edit is not None  # an editable combo has one
        user_edit.setPlaceholderText(f"scripted, or {MODEL_HINT}")
        self.user.setToolTip("scripted: replies from the case's own rules, no LLM.\nOr any litellm model.")
        self.judges.list.setToolTip("Judges score dialogue quality. None ticked: rule verdicts only.")
        self.judges.list.setFixedHeight(70)
        self.repeats.setRange(1, 50)
        self.repeats.setValue(DEFAULT_REPEATS)
        self.repeats.setToolTip("Each case is played this many times per agent; metrics take the median.")
        self.concurrency.setRange(1, 256)
        self.concurrency.setValue(8)
        self.concurrency.setToolTip("Conversations played at once")
        self.seed.setRange(0, 2**31 - 1)
        self.summary.setObjectName("runSummary")
        self.summary.setWordWrap(True)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        form.addRow("Domain", self.domain)
        form.addRow("Cases", self.cases)
        form.addRow("", self.case_ids)
        form.addRow("Agents", self.agents)
        self.agent_fields.add_rows(form)
        form.addRow("API base", self.api_base)
        form.addRow("Customer", self.user)
        form.addRow("Customer API base", self.user_api_base)
        form.addRow("Judges", self.judges)
        form.addRow("Judge API base", self.judge_api_base)
        numbers = QHBoxLayout()
        numbers.addWidget(self.repeats)
        numbers.addSpacing(14)
        numbers.addWidget(QLabel("Concurrency"))
        numbers.addWidget(self.concurrency)
        numbers.addStretch(1)
        form.addRow("Repeats", numbers)
        self.seed.setToolTip("Fixes each conversation's seed, so a run can be played again the same way")
        self.seed.setMinimumWidth(110)
        seed = QHBoxLayout()
        seed.addWidget(self.seed)
        seed.addStretch(1)
        form.addRow("Seed", seed)
        form.addRow("", self.summary)
        for signal in (
            self.domain.currentIndexChanged,
            self.cases.currentIndexChanged,
            self.case_ids.textChanged,
            self.agents.changed,
            self.judges.changed,
            self.repeats.valueChanged,
            self.user.currentTextChanged,
            self.api_base.textChanged,
            self.user_api_base.currentTextChanged,
            self.judge_api_base.currentTextChanged,
            self.agent_fields.changed,
        ):
            signal.connect(self._on_changed)

    def agent_spec_of(self, typed: str) -> str:
        """What the agent field's text adds under the picked kind (see AgentFields.agent_spec_of)."""
        return self.agent_fields.agent_spec_of(typed)

    def agent_option_fields(self) -> dict[str, Any]:
        """The run spec's agent fields (see AgentFields.option_fields); ValueError when bad."""
        return self.agent_fields.option_fields()

    def _fill_domains(self) -> None:
        for folder in shipped_domains():
            if _audit_only(folder):
                continue  # tau_airline, tau_retail: imported and audited, never played
            self.domain.addItem(folder.name, str(folder))
        default = self.domain.findText("northline")
        self.domain.setCurrentIndex(max(default, 0))

    # --- reading the choices ----------------------------------------------------------------

    def domain_name(self) -> str:
        """The chosen domain's name (its folder under sops/)."""
        return self.domain.currentText()

    def suite(self) -> list[Any]:
        """The chosen domain's cases (empty when the domain cannot be read; see `problems`)."""
        folder = self.domain.currentData()
        if not folder:
            return []
        if folder not in self._suites:
            self._suites[folder] = self._read_suite(Path(folder))
        return self._suites[folder]

    def _read_suite(self, folder: Path) -> list[Any]:
        from sage_desk.core.cases.suite import load_suite
        from sage_desk.core.domain.loader import load_domain

        try:
            return load_suite(load_domain(folder).cases_path)
        except SageError as exc:
            self._domain_errors[str(folder)] = f"{folder.name}: {str(exc).splitlines()[0]}"
            return []

    def typed_case_ids(self) -> list[str]:
        """Case ids typed in the 'only these' field."""
        return [part.strip() for part in self.case_ids.text().replace(";", ",").split(",") if part.strip()]

    def chosen_cases(self) -> list[Any]:
        """The cases the run would play."""
        suite = self.suite()
        typed = self.typed_case_ids()
        if typed:
            return [c for c in suite if c.id in set(typed)]
        key = self.cases.currentData()
        if key is None:
            return suite
        if key == "quick":
            seen: dict[str, int] = {}
            picked = []
            for case in suite:
                seen[case.bucket.value] = seen.get(case.bucket.value, 0) + 1
                if seen[case.bucket.value] <= QUICK_PER_BUCKET:
                    picked.append(case)
            return picked
        return [c for c in suite if c.bucket.value == key]

    def user_model(self) -> str:
        """The customer simulator: scripted, or a model."""
        return self.user.currentText().strip()

    def llm_models(self) -> list[str]:
        """Every model the run would call (agents, customer, judges), baselines left out."""
        models = [*self.agents.checked(), self.user_model(), *self.judges.checked()]
        return [m for m in dict.fromkeys(models) if m and not m.startswith("baseline:") and m != SCRIPTED]

    def conversation_count(self) -> int:
        """cases x agents x repeats."""
        return len(self.chosen_cases()) * len(self.agents.checked()) * self.repeats.value()

    def spec(self) -> RunSpec:
        """The run these choices describe (never holds a key)."""
        suite, cases = self.suite(), self.chosen_cases()
        try:
            agent_fields = self.agent_option_fields()
        except ValueError:
            agent_fields = {}  # problems() says what is wrong; a start is refused until it is fixed
        return RunSpec(
            **agent_fields,
            domain=self.domain_name(),
            agents=self.agents.checked(),
            user=self.user_model() or SCRIPTED,
            judges=self.judges.checked(),
            repeats=self.repeats.value(),
            concurrency=self.concurrency.value(),
            seed=self.seed.value(),
            api_base=join_bases([self.api_base.text()]),
            user_api_base=self.user_api_base.value(),
            judge_api_base=self.judge_api_base.value(),
            cases=None if len(cases) == len(suite) else [c.id for c in cases],
        )

    def problems(self) -> list[str]:
        """What stops a start, as sentences a user can act on; empty when the run can start."""
        problems = []
        if not self.domain_name():
            problems.append("No domain found under sops/.")
        elif not self.suite():
            problems.append(self._domain_errors.get(self.domain.currentData(), f"{self.domain_name()} has no cases."))
        unknown = sorted(set(self.typed_case_ids()) - {c.id for c in self.suite()})
        if unknown and self.suite():
            problems.append(
                f"No case {unknown[0]!r} in {self.domain_name()}"
                + (f" (and {len(unknown) - 1} more)." if len(unknown) > 1 else ".")
            )
        if not self.agents.checked():
            problems.append("Tick at least one agent model to test.")
        if not self.user_model():
            problems.append("Name the customer simulator: scripted, or a model.")
        problems += self.agent_fields.problems()
        for label, base in (
            ("API base", self.api_base.text().strip()),
            ("customer API base", self.user_api_base.url()),
            ("judge API base", self.judge_api_base.url()),
        ):
            for url in split_bases(base):
                if "://" not in url:
                    problems.append(f"The {label} {url!r} is not a URL (e.g. http://localhost:11434/v1).")
        spec = self.spec()
        by_role = (("agent", self.agents.checked()), ("user", [self.user_model()]), ("judge", self.judges.checked()))
        missing: dict[str, str] = {}
        for role, models in by_role:
            missing.update(missing_keys([m for m in models if m in self.llm_models()], spec.api_base_for(role)))
        for model, env_var in missing.items():
            problems.append(f"No API key for {model}: add {env_var} under API Keys… or set it in the environment.")
        return problems

    def showEvent(self, event: QShowEvent) -> None:  # Qt API
        super().showEvent(event)
        if not self._shown:
            self._shown = True
            self._on_changed()

    def _on_changed(self, *_args: Any) -> None:
        if not self._shown:
            return
        cases = len(self.chosen_cases())
        agents = len(self.agents.checked())
        repeats = self.repeats.value()
        total = cases * agents * repeats
        self.summary.setText(
            f"{_plural(cases, 'case')} × {_plural(agents, 'agent')} × {_plural(repeats, 'repeat')}"
            f" = <b>{_plural(total, 'conversation')}</b>"
        )
        self.changed.emit()

    # --- sessions ---------------------------------------------------------------------------

    def save_state(self, settings: QSettings) -> None:
        """Remember the choices (model names only; never a key, never a URL with a password)."""
        base = self.api_base.text().strip()
        state = {
            "domain": self.domain_name(),
            "cases": self.cases.currentIndex(),
            "agents": self.agents.names(),
            "agents_checked": self.agents.checked(),
            "judges": self.judges.names(),
            "judges_checked": self.judges.checked(),
            "user": self.user_model(),
            "repeats": self.repeats.value(),
            "concurrency": self.concurrency.value(),
            "seed": self.seed.value(),
            "api_base": "" if "@" in base else base,
            **self.agent_fields.state(),
            **{
                key: None if "@" in (widget.value() or "") else widget.value()
                for key, widget in (("user_api_base", self.user_api_base), ("judge_api_base", self.judge_api_base))
            },
        }
        settings.setValue("runs/form", json.dumps(state))

    def restore_state(self, settings: QSettings) -> None:
        """Bring back the choices saved by `save_state`."""
        try:
            state = json.loads(str(settings.value("runs/form", "") or "{}"))
        except ValueError:
            return
        if not isinstance(state, dict) or not state:
            return  # first start: keep the defaults
        index = self.domain.findText(str(state.get("domain", "")))
        if index >= 0:
            self.domain.setCurrentIndex(index)
        self.cases.setCurrentIndex(int(state.get("cases", 0)) if 0 <= int(state.get("cases", 0)) < self.cases.count() else 0)
        for widget, names, checked in ((self.agents, "agents", "agents_checked"), (self.judges, "judges", "judges_checked")):
            for name in state.get(names, []):
                widget.add(str(name), checked=False)
            widget.set_checked([str(n) for n in state.get(checked, [])])
        self.user.setCurrentText(str(state.get("user") or SCRIPTED))
        self.repeats.setValue(int(state.get("repeats", DEFAULT_REPEATS)))
        self.concurrency.setValue(int(state.get("concurrency", 8)))
        self.seed.setValue(int(state.get("seed", 0)))
        self.api_base.setText(str(state.get("api_base", "")))
        self.agent_fields.restore(state)
        self.user_api_base.set_value(state.get("user_api_base"))
        self.judge_api_base.set_value(state.get("judge_api_base"))


def _audit_only(folder: Path) -> bool:
    """Whether a domain folder is audit-only (its conversations are imported, there is nothing to play)."""
    from sage_desk.core.domain.declaration import read_declaration
    from sage_desk.core.errors import DomainError

    try:
        return read_declaration(folder / "domain.yaml").audit_only
    except DomainError:
        return False  # a broken domain.yaml is listed, and its problems shown when chosen
