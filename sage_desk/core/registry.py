"""One registry for every kind of plug-in chosen by name: rule families, baseline agents,
customers, judges and tactics.

A name is registered once (a second registration is a programming error and raises); a name
nobody registered raises `UnknownNameError`, a `SageError` whose message lists what exists, so the
CLI prints one line and the GUI shows it as it is (STYLE.md 5). A registry may be given a loader,
which imports the modules that register the shipped entries the first time a name is looked up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from sage_desk.core.errors import SageError

T = TypeVar("T")


class UnknownNameError(SageError, KeyError):
    """A name no plug-in was registered under; the message lists the registered names."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class DuplicateNameError(SageError, ValueError):
    """A second plug-in registered under a name already taken."""


class Registry(Generic[T]):
    """Plug-ins of one kind by name, in registration order."""

    def __init__(
        self, kind: str, load: Callable[[], object] | None = None, error: type[UnknownNameError] = UnknownNameError
    ) -> None:
        """`kind` names the plug-ins in messages ("baseline agent"); `load` registers the shipped ones;
        `error` is the `UnknownNameError` subclass a miss raises, for callers that tell kinds apart."""
        self.kind = kind
        self._load = load
        self._error = error
        self._entries: dict[str, T] = {}

    def add(self, name: str, entry: T) -> T:
        """Register `entry` under `name`; a name already taken raises `DuplicateNameError`."""
        if name in self._entries:
            raise DuplicateNameError(f"{self.kind} {name!r} is already registered")
        self._entries[name] = entry
        return entry

    def register(self, name: str) -> Callable[[T], T]:
        """The decorator form of `add`."""
        return lambda entry: self.add(name, entry)

    def get(self, name: str) -> T:
        """The entry registered under `name`; `UnknownNameError` lists the known names otherwise."""
        self._loaded()
        try:
            return self._entries[name]
        except KeyError:
            raise self._error(f"unknown {self.kind} {name!r} (known: {', '.join(self.names()) or 'none'})") from None

    def names(self) -> list[str]:
        """Every registered name, in registration order."""
        return list(self._loaded())

    def values(self) -> list[T]:
        """Every registered entry, in registration order."""
        return list(self._loaded().values())

    def __contains__(self, name: object) -> bool:
        return name in self._loaded()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def _loaded(self) -> dict[str, T]:
        if self._load is not None:
            load, self._load = self._load, None  # once, and not again while it runs
            load()
        return self._entries
