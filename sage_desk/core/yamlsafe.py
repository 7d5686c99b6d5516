"""Safe, located YAML loading for user files.

User files (graphs, domains, worlds) may be hostile: binary, huge, full of aliases that expand
exponentially, nested thousands deep, or tagged to construct Python objects. We never let PyYAML
build objects. Instead we read the flat event stream (libyaml when present, which keeps no
recursion on the C stack), refuse aliases and non-standard tags, bound depth and size, and build
plain dicts/lists ourselves while recording where every value stood. `Located.where(loc)` turns a
pydantic error location such as ``("nodes", 3, "field")`` back into a line and column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from sage_desk.core.errors import InputError, Problem
from sage_desk.core.jsonsafe import Json

MAX_BYTES = 20 * 1024 * 1024
MAX_DEPTH = 64
MAX_EVENTS = 500_000
"""About 40 times Northline's world.yaml (11.7k events). Each event costs ~8 us in the builder, so
4,000,000 let an 18 MB flat list run for ~27 s before it was refused; this bound keeps it to ~4 s."""

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STD = "tag:yaml.org,2002:"
_SCALAR_TAGS = {f"{_STD}{t}" for t in ("str", "int", "float", "bool", "null")}
_ALLOWED_TAGS = _SCALAR_TAGS | {f"{_STD}map", f"{_STD}seq", "!"}


class _CoreResolver(yaml.resolver.BaseResolver):
    """YAML 1.2 core-schema scalars: `yes`/`no`/`on`/`off` stay strings, dates stay strings."""


for _tag, _regexp, _first in [
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("int", r"^[-+]?(?:0|[1-9][0-9]*)$", list("-+0123456789")),
    ("float", r"^[-+]?(?:\.[0-9]+|(?:0|[1-9][0-9]*)(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$", list("-+.0123456789")),
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
]:
    _CoreResolver.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}", re.compile(_regexp), _first)

_resolver = _CoreResolver()
_constructor = yaml.constructor.SafeConstructor()

Loc = tuple[str | int, ...]


@dataclass
class Located:
    """A parsed YAML document: plain data plus the (line, col) of every key and value."""

    file: str
    data: Json
    positions: dict[Loc, tuple[int, int]] = field(default_factory=dict)

    def where(self, loc: Loc) -> tuple[int, int]:
        """Line and column of the deepest known prefix of `loc` (1, 1 when nothing matches)."""
        loc = tuple(loc)
        while loc:
            if loc in self.positions:
                return self.positions[loc]
            loc = loc[:-1]
        return self.positions.get((), (1, 1))

    def problem(self, loc: Loc, message: str, node: str | None = None, severity: str = "error") -> Problem:
        line, col = self.where(loc)
        return Problem(self.file, line, col, message, node, severity)


def _short(value: str, limit: int = 60) -> str:
    return repr(value if len(value) <= limit else value[:limit] + "...")


def _fail(file: str, message: str, mark: yaml.Mark | None = None) -> InputError:
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    return InputError([Problem(file, line, col, message)])


def read_text(path: str | Path, max_bytes: int = MAX_BYTES) -> str:
    """Read a user's text file, refusing what is missing, too big, empty or binary."""
    file = str(path)
    p = Path(path)
    if not p.exists():
        raise InputError.single(file, "no such file")
    if p.is_dir():
        raise InputError.single(file, "is a folder, expected a file")
    if not p.is_file():  # a device or a pipe reports size 0 and reads forever (/dev/zero)
        raise InputError.single(file, "is not a regular file")
    size = p.stat().st_size
    if size > max_bytes:
        raise InputError.single(file, f"file is too large ({size:,} bytes; the limit is {max_bytes:,})")
    with p.open("rb") as handle:
        raw = handle.read(max_bytes + 1)  # the size may have grown since it was checked
    if len(raw) > max_bytes:
        raise InputError.single(file, f"file is too large (over the limit of {max_bytes:,} bytes)")
    if b"\x00" in raw:
        raise InputError.single(file, "binary file (contains NUL bytes), expected UTF-8 text")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError.single(file, f"not UTF-8 text (bad byte at offset {exc.start})") from None
    if not text.strip():
        raise InputError.single(file, "file is empty")
    return text


def load_file(path: str | Path) -> Located:
    """Load one YAML document from a file safely (see the module docstring)."""
    return loads(read_text(path), str(path))


def loads(text: str, file: str = "<string>") -> Located:
    """Load one YAML document from text safely, recording positions."""
    builder = _Builder(file)
    try:
        for count, event in enumerate(yaml.parse(text, Loader=_Loader)):
            if count > MAX_EVENTS:
                raise _fail(file, "document is too large to be a SAGE Desk file", event.start_mark)
            builder.feed(event)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if "nesting depth" in str(exc.problem):  # PyYAML 6.0.3+ scans flow brackets ahead and stops first
            raise _fail(file, f"nesting deeper than {MAX_DEPTH} levels", _too_deep(text) or mark) from None
        raise _fail(file, f"YAML syntax: {exc.problem or exc.context}", mark) from None
    except yaml.YAMLError as exc:
        raise _fail(file, f"YAML syntax: {exc}") from None
    if builder.documents == 0:
        raise InputError.single(file, "file is empty")
    return Located(file, builder.result, builder.positions)


class _Mark:
    """A position as PyYAML's marks give it (0-based line and column)."""

    def __init__(self, line: int, column: int) -> None:
        self.line, self.column = line, column


def _too_deep(text: str) -> _Mark | None:
    """Where flow brackets first open deeper than `MAX_DEPTH`, as our own check would have said,
    had PyYAML's scanner (which reads flow collections ahead) not stopped before it; quoted text
    is skipped. Only called on text PyYAML already refused for its depth."""
    depth, line, column, quote = 0, 0, 0, ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return _Mark(line, column)
        elif char in "]}":
            depth -= 1
        if char == "\n":
            line, column = line + 1, 0
        else:
            column += 1
    return None


class _Builder:
    """Builds plain data from YAML events; containers are (kind, value, loc, pending_key)."""

    def __init__(self, file: str):
        self.file = file
        self.stack: list[list[Json]] = []
        self.positions: dict[Loc, tuple[int, int]] = {}
        self.result: Json = None
        self.documents = 0

    def feed(self, event: yaml.Event) -> None:
        if isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                raise _fail(self.file, "expected one YAML document, found several", event.start_mark)
        elif isinstance(event, yaml.AliasEvent):
            raise _fail(self.file, f"YAML aliases (*{event.anchor}) are not allowed", event.start_mark)
        elif isinstance(event, yaml.ScalarEvent):
            self._add(self._scalar(event), event)
        elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            self._check_tag(event)
            if len(self.stack) >= MAX_DEPTH:
                raise _fail(self.file, f"nesting deeper than {MAX_DEPTH} levels", event.start_mark)
            loc = self._add_loc(event)
            is_map = isinstance(event, yaml.MappingStartEvent)
            self.stack.append([is_map, {} if is_map else [], loc, None, event])
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            _is_map, value, _loc, _key, start = self.stack.pop()
            self._attach(value, start)

    def _check_tag(self, event: yaml.NodeEvent) -> None:
        tag = event.tag
        if tag is not None and tag not in _ALLOWED_TAGS:
            shown = tag.replace(_STD, "!!")
            raise _fail(self.file, f"YAML tag {shown!r} is not allowed", event.start_mark)

    def _scalar(self, event: yaml.ScalarEvent) -> Json:
        self._check_tag(event)
        tag = event.tag
        if tag in (None, "!"):
            tag = _resolver.resolve(yaml.ScalarNode, event.value, event.implicit)
        if tag not in _SCALAR_TAGS:
            raise _fail(self.file, f"YAML tag {tag.replace(_STD, '!!')!r} does not apply to a plain value", event.start_mark)
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark)
        # Call the tag's constructor directly: `construct_object` would cache every node in the
        # shared constructor forever. Explicit tags (`!!int abc`) and huge integers (past Python's
        # 4,300-digit limit) fail here with ValueError/KeyError rather than a YAMLError.
        try:
            return _constructor.yaml_constructors[tag](_constructor, node)
        except (yaml.YAMLError, ValueError, KeyError, TypeError) as exc:
            reason = "too many digits" if "digits" in str(exc) else f"not a valid {tag.replace(_STD, '')}"
            raise _fail(self.file, f"bad value {_short(event.value)}: {reason}", event.start_mark) from None

    def _add_loc(self, event: yaml.NodeEvent) -> Loc:
        """Where the value starting at `event` goes; records its position."""
        loc: Loc = ()
        if self.stack:
            is_map, container, parent, key, _ = self.stack[-1]
            if is_map and key is None:
                raise _fail(self.file, "mapping keys must be plain scalars", event.start_mark)
            loc = parent + ((key if is_map else len(container)),)
        self.positions.setdefault(loc, (event.start_mark.line + 1, event.start_mark.column + 1))
        return loc

    def _add(self, value: Json, event: yaml.NodeEvent) -> None:
        if self.stack and self.stack[-1][0] and self.stack[-1][3] is None:
            # a mapping key
            if not isinstance(value, (str, int, float, bool)) or value is None:
                raise _fail(self.file, "mapping keys must be plain scalars", event.start_mark)
            container, parent = self.stack[-1][1], self.stack[-1][2]
            if value in container:
                raise _fail(self.file, f"duplicate key {value!r}", event.start_mark)
            self.stack[-1][3] = value
            self.positions[parent + (value,)] = (event.start_mark.line + 1, event.start_mark.column + 1)
            return
        self._add_loc(event)
        self._attach(value, event)

    def _attach(self, value: Json, event: yaml.NodeEvent) -> None:
        if not self.stack:
            self.result = value
            return
        top = self.stack[-1]
        is_map, container = top[0], top[1]
        if is_map:
            if top[3] is None:
                raise _fail(self.file, "mapping keys must be plain scalars", event.start_mark)
            container[top[3]] = value
            top[3] = None
        else:
            container.append(value)
