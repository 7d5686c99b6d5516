"""Every page in docs/ is checked by running its commands, as a reader would, in a scratch folder.

Code blocks marked `sh`, `bash`, `console` or `shell` are run line by line (`$ ` prompts in console
blocks; other console lines are output). `sage-desk ...` runs in-process through the CLI's `main`,
`python ...` in a child process, `export NAME=VALUE` and `cd DIR` change what follows. A command
ending in ` &` (a server: `python examples/http_agent.py &`, `sage-desk serve-tools ... &`) is
started in a child process, which must print a first line within 30 s (its "listening on ..."),
and is stopped when the page ends. The working folder also holds a copy of `examples/`. The working
folder holds a copy of the shipped `sops/`; `SAGE_DESK_HOME` and `SAGE_DESK_SOPS` point into it, so
nothing a page does reaches the checkout or the person's data. No network: a connection to anything
but this machine fails the page.

An HTML comment on the lines before a block tells the test what to do with it:

  <!-- doc-test: skip (why) -->               never run it (needs a model, a display, an install ...)
  <!-- doc-test: needs-command NAME -->       skip it while `NAME` is not a sub-command yet
  <!-- doc-test: file PATH -->                the block is a file: write it to PATH (any language)
  <!-- doc-test: exit N -->                   every command of the block must exit with N (default 0)
  <!-- doc-test: expect TEXT -->              the block's output must contain TEXT
  <!-- doc-test: validates MODULE.CLASS -->   the block (JSON or YAML) must load as this pydantic model

In commands and files, `RUN_ID` becomes the latest run's id and `CONVERSATION_ID` (or
`CONVERSATION_ID_2`, `_3` ...) the first (second, third ...) conversation of that run.
A shell command the harness does not know fails the page: run it or mark the block.
"""

from __future__ import annotations

import glob
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from sage_desk.cli import COMMANDS, main

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
RUNNABLE = {"sh", "bash", "console", "shell"}
MARKER = re.compile(r"^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^```\s*([\w+-]*)\s*$")
PLACEHOLDER = re.compile(r"\b(RUN_ID|CONVERSATION_ID(?:_(\d+))?)\b")
_SINGLE = "\x00"  # marks a word that was written in single quotes
KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "MISTRAL_API_KEY", "OPENROUTER_API_KEY")


@dataclass
class Block:
    """A fenced code block of a page, with the directives written before it."""

    page: str
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    directives: list[str] = field(default_factory=list)

    def directive(self, name: str) -> str | None:
        """The argument of the first directive called `name` ('' when it has none), else None."""
        for d in self.directives:
            word, _, rest = d.partition(" ")
            if word == name:
                return rest.strip()
        return None

    def where(self, offset: int = 0) -> str:
        return f"docs/{self.page}:{self.line + 1 + offset}"


def blocks_of(path: Path) -> list[Block]:
    """Every fenced block of a Markdown file, with the doc-test directives just before it."""
    blocks, pending, current = [], [], None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if current is not None:
            if line.strip() == "```":
                blocks.append(current)
                current = None
            else:
                current.text += line + "\n"
            continue
        fence, marker = FENCE.match(line), MARKER.match(line)
        if fence:
            current, pending = Block(path.name, number, fence.group(1).lower(), "", pending), []
        elif marker:
            pending.append(marker.group(1))
        elif line.strip():
            pending = []
    assert current is None, f"{path.name}: a code block opened at line {current.line} never closes"
    return blocks


def commands_of(block: Block) -> list[tuple[int, str]]:
    """(line offset in the block, command) for each command; continuation lines joined."""
    out, pending, start = [], "", 0
    for offset, raw in enumerate(block.text.splitlines()):
        line = raw.rstrip()
        if block.lang == "console" and not pending:
            if not line.startswith("$ "):
                continue  # output shown to the reader
            line = line[2:]
        if not pending:
            start = offset
            if not line.strip() or line.lstrip().startswith("#"):
                continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append((start, pending + line))
        pending = ""
    return out


def pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


class Reader:
    """Runs one page's blocks in order, in a scratch folder, the way a reader would type them."""

    def __init__(self, work: Path, monkeypatch, capsys):
        self.cwd = work
        self.monkeypatch = monkeypatch
        self.capsys = capsys
        self.background: list[subprocess.Popen] = []
        monkeypatch.chdir(work)

    def stop(self) -> None:
        """Stop the servers the page started in the background."""
        for process in self.background:
            process.terminate()
        for process in self.background:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)

    # -- placeholders --------------------------------------------------------------------------

    def _store(self, argv: list[str]):
        from sage_desk.core.store import Store

        url = argv[argv.index("--db") + 1] if "--db" in argv else None
        return Store(url)

    def _ids(self, argv: list[str], text: str) -> str:
        if not PLACEHOLDER.search(text):
            return text
        store = self._store(argv)
        try:
            run_id = store.latest_run_id()
            assert run_id, "a page uses RUN_ID or CONVERSATION_ID before any run"
            conversations = [c.id for c in store.conversations(run_id=run_id)]
        finally:
            store.close()

        def value(match: re.Match) -> str:
            if match.group(1) == "RUN_ID":
                return run_id
            return conversations[int(match.group(2) or 1) - 1]

        return PLACEHOLDER.sub(value, text)

    def _expand(self, args: list[str]) -> list[str]:
        out = []
        for arg in args:
            quoted = _SINGLE in arg  # a shell leaves '...' alone: no $VARS, no globs
            arg = arg.replace(_SINGLE, "") if quoted else os.path.expandvars(arg)
            matches = sorted(glob.glob(arg, root_dir=self.cwd)) if not quoted and any(c in arg for c in "*?[") else []
            out += matches or [arg]
        return out

    @staticmethod
    def split(command: str) -> list[str]:
        """The command's words as a shell splits them; a word that was in single quotes is marked for `_expand`."""
        marked = re.sub(r"'([^']*)'", lambda m: "'" + _SINGLE + m.group(1) + "'", command)
        return shlex.split(marked, comments=True)

    # -- running -------------------------------------------------------------------------------

    def write_file(self, block: Block, path: str) -> None:
        target = self.cwd / os.path.expandvars(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(self._ids([], block.text), encoding="utf-8")

    def start(self, block: Block, offset: int, command: str) -> str:
        """A server in the background (`... &`): running once it prints its first line."""
        import threading

        args = self._expand(self.split(command))
        assert args and args[0] in ("python", "python3", "sage-desk"), (
            f"{block.where(offset)}: only python and sage-desk run in the background, not `{command}`"
        )
        argv = [sys.executable, *args[1:]] if args[0] != "sage-desk" else [sys.executable, "-m", "sage_desk", *args[1:]]
        process = subprocess.Popen(argv, cwd=self.cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.background.append(process)
        first: list[str] = []
        reader = threading.Thread(target=lambda: first.append(process.stdout.readline() if process.stdout else ""), daemon=True)
        reader.start()
        reader.join(30)
        assert first and first[0].strip(), (
            f"{block.where(offset)}: `{command}` printed nothing within 30 s (exit {process.poll()})"
        )
        return first[0]

    def run(self, block: Block, offset: int, command: str, expected_exit: int) -> str:
        if command.rstrip().endswith(" &"):
            return self.start(block, offset, command.rstrip()[:-2])
        args = self._expand(self.split(command))
        if not args:
            return ""
        name, rest = args[0], args[1:]
        if name == "sage-desk":
            return self._sage_desk(block, offset, self._ids(rest, " ".join(map(shlex.quote, rest))), expected_exit)
        if name == "export":
            for assignment in rest:
                key, _, value = assignment.partition("=")
                self.monkeypatch.setenv(key, tempfile.mkdtemp(dir=self.cwd) if value == "$(mktemp -d)" else value)
            return ""
        if name == "cd":
            self.cwd = (self.cwd / rest[0]).resolve()
            self.monkeypatch.chdir(self.cwd)
            return ""
        if name in ("python", "python3"):
            done = subprocess.run([sys.executable, *rest], cwd=self.cwd, capture_output=True, text=True, timeout=120)
            assert done.returncode == expected_exit, f"{block.where(offset)}: `{command}` exited {done.returncode}\n{done.stderr}"
            return done.stdout + done.stderr
        raise AssertionError(
            f"{block.where(offset)}: the doc test does not know how to run `{name}`: "
            "run it through sage-desk or python, or mark the block <!-- doc-test: skip (why) -->"
        )

    def _sage_desk(self, block: Block, offset: int, line: str, expected_exit: int) -> str:
        argv = shlex.split(line)
        command = next((a for a in argv if not a.startswith("-")), None)
        assert command in COMMANDS or "--version" in argv or "--help" in argv, (
            f"{block.where(offset)}: `sage-desk {line}` opens the GUI; mark the block <!-- doc-test: skip (needs a display) -->"
        )
        self.capsys.readouterr()
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse: --help, --version, usage errors
            code = exc.code if isinstance(exc.code, int) else 0
        out = self.capsys.readouterr()
        assert code == expected_exit, (
            f"{block.where(offset)}: `sage-desk {line}` exited {code}, expected {expected_exit}\n"
            f"{out.out[-3000:]}\n{out.err[-3000:]}"
        )
        return out.out + out.err


def skip_reason(block: Block) -> str | None:
    """Why a block is not run, or None when it is."""
    reason = block.directive("skip")
    if reason is not None:
        assert reason, f"{block.where()}: say why a block is skipped: <!-- doc-test: skip (why) -->"
        return reason
    needed = block.directive("needs-command")
    if needed is not None and needed not in COMMANDS:
        return f"sage-desk {needed} does not exist yet"
    return None


def check_model(block: Block, dotted: str) -> None:
    """The block parses (JSON, else YAML) and validates as the named pydantic model."""
    import importlib
    import json

    from pydantic import ValidationError

    from sage_desk.core.yamlsafe import loads

    module, _, name = dotted.rpartition(".")
    model = getattr(importlib.import_module(module), name)
    data = json.loads(block.text) if block.lang == "json" else loads(block.text, block.where()).data
    try:
        model.model_validate(data)
    except ValidationError as exc:
        raise AssertionError(f"{block.where()}: the example is not a valid {name}:\n{exc}") from None


@pytest.fixture
def offline(monkeypatch):
    """Sockets may reach this machine (and D-Bus) only: a page that needs the network fails."""
    real_connect = socket.socket.connect

    def local_only(sock, address):
        host = address[0] if isinstance(address, tuple) else None
        if sock.family == socket.AF_UNIX or host in ("127.0.0.1", "::1", "localhost"):
            return real_connect(sock, address)
        raise OSError(f"a doc command tried to reach {address}: mark its block skip (needs a model)")

    monkeypatch.setattr(socket.socket, "connect", local_only)


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_every_command_of_the_page_works(page, tmp_path, monkeypatch, capsys, offline):
    shutil.copytree(ROOT / "sops", tmp_path / "sops")
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("SAGE_DESK_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SAGE_DESK_SOPS", str(tmp_path / "sops"))
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    for var in KEY_VARIABLES:
        monkeypatch.delenv(var, raising=False)
    reader = Reader(tmp_path, monkeypatch, capsys)
    try:
        skipped = _read_page(page, reader)
    finally:
        reader.stop()
    print(f"{page.name}: skipped blocks\n  " + "\n  ".join(skipped) if skipped else f"{page.name}: every block ran")


def _read_page(page: Path, reader: Reader) -> list[str]:
    """Run every block of a page in order; returns why blocks were skipped."""
    skipped = []
    for block in blocks_of(page):
        if block.directive("validates"):
            check_model(block, block.directive("validates"))
        if block.directive("file") is not None and skip_reason(block) is None:
            reader.write_file(block, block.directive("file"))
            continue
        if block.lang not in RUNNABLE:
            continue
        reason = skip_reason(block)
        if reason is not None:
            skipped.append(f"{block.where()}: {reason}")
            continue
        expected_exit = int(block.directive("exit") or 0)
        output = "".join(reader.run(block, offset, command, expected_exit) for offset, command in commands_of(block))
        for directive in block.directives:
            if directive.startswith("expect "):
                wanted = directive.removeprefix("expect ").strip()
                assert wanted in output, f"{block.where()}: output lacks {wanted!r}:\n{output[-3000:]}"
    return skipped


def test_every_page_is_listed_in_the_contents():
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([\w.-]+\.md)\)", index))
    assert {p.name for p in pages()} - {"README.md"} <= linked


def test_links_between_pages_resolve():
    for page in pages():
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            assert (page.parent / target).exists(), f"docs/{page.name} links to {target}, which does not exist"


def test_the_command_line_page_covers_every_sub_command():
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    shown = {m for block in blocks_of(DOCS / "cli.md") for m in re.findall(r"sage-desk ([a-z-]+)", block.text)}
    missing = sorted(set(COMMANDS) - shown)
    assert not missing, f"docs/cli.md shows no example of: {', '.join(missing)}"
    assert "--version" in text and "--screenshot" in text


def test_the_file_formats_page_names_every_field():
    """A field added to a file format must be documented: each model's field names appear on the page."""
    from sage_desk.core.cases.model import Case, Expected, Forbidden, Persona, ReplyRule, Script
    from sage_desk.core.domain.model import Column, ContextRow, Domain, Param, Table, ToolSpec
    from sage_desk.core.export.calibration import FIELDS, MESSAGE_FIELDS
    from sage_desk.core.sop.model import Edge, FieldSpec, Graph, Node

    text = (DOCS / "file-formats.md").read_text(encoding="utf-8")
    models = (
        Graph,
        Node,
        Edge,
        FieldSpec,
        Domain,
        Table,
        Column,
        ContextRow,
        ToolSpec,
        Param,
        Case,
        Persona,
        Expected,
        Forbidden,
        Script,
        ReplyRule,
    )
    names = {f.alias or n for m in models for n, f in m.model_fields.items()} | set(FIELDS) | set(MESSAGE_FIELDS)
    missing = sorted(n for n in names if f"`{n}`" not in text)
    assert not missing, f"docs/file-formats.md does not mention: {', '.join(missing)}"


def test_the_harness_reads_blocks_and_markers(tmp_path):
    page = tmp_path / "p.md"
    page.write_text(
        "text\n\n<!-- doc-test: skip (needs a model) -->\n```sh\nsage-desk run \\\n  --quiet\n```\n"
        "<!-- doc-test: needs-command nope -->\n\n```console\n$ sage-desk nope\noutput line\n```\n"
        "<!-- doc-test: file a/b.yaml -->\n```yaml\nx: 1\n```\n```sh\n# comment\nsage-desk cases RUN_ID\n```\n",
        encoding="utf-8",
    )
    blocks = blocks_of(page)
    assert [b.lang for b in blocks] == ["sh", "console", "yaml", "sh"]
    assert skip_reason(blocks[0]) == "(needs a model)" and commands_of(blocks[0]) == [(0, "sage-desk run    --quiet")]
    assert skip_reason(blocks[1]) == "sage-desk nope does not exist yet" and commands_of(blocks[1]) == [(0, "sage-desk nope")]
    assert blocks[2].directive("file") == "a/b.yaml" and blocks[2].text == "x: 1\n"
    assert blocks[3].directives == [] and commands_of(blocks[3]) == [(1, "sage-desk cases RUN_ID")]


COUNT = re.compile(r"(?<!per\s)(?<![\d,])(\d{1,3}(?:,\d{3})+|\d+)\s+conversations\b")


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_a_count_of_conversations_in_the_prose_is_one_a_block_of_the_page_checks(page):
    """ "486 conversations" stood beside a run that plays 1,458: a count in the prose must be one that an
    `expect` directive of the same page holds the commands to (a rate "per 1,000 conversations" is no count)."""
    expected = " ".join(d for block in blocks_of(page) for d in block.directives if d.startswith("expect "))
    for number in COUNT.findall(page.read_text(encoding="utf-8")):
        assert f"{number.replace(',', '')} conversations" in expected, (
            f"docs/{page.name}: '{number} conversations' is not checked: add <!-- doc-test: expect "
            f"{number.replace(',', '')} conversations --> to the block that plays them"
        )
