"""Where SAGE Desk finds its shipped data and keeps the user's."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def app_root() -> Path:
    """The folder holding `sops/`, `sample_runs/`, `docs/` and `resources/`: the checkout, or the desktop bundle.

    A PyInstaller bundle (packaging/sage-desk.spec) sets `sys.frozen` and unpacks its data into
    `sys._MEIPASS` (the bundle's `_internal/` folder), with the same layout as the checkout.
    """
    bundled = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and bundled:
        return Path(bundled)
    return Path(__file__).resolve().parents[2]


def is_bundled() -> bool:
    """Whether this is the frozen desktop bundle rather than a Python installation."""
    return bool(getattr(sys, "frozen", False) and getattr(sys, "_MEIPASS", None))


def sops_dir() -> Path:
    """Shipped domains (`SAGE_DESK_SOPS` overrides)."""
    return Path(os.environ.get("SAGE_DESK_SOPS") or app_root() / "sops")


def sample_runs_dir() -> Path:
    """The checked-in sample run database."""
    return app_root() / "sample_runs"


def resources_dir() -> Path:
    """The app's icons and stylesheet (`resources/` at the top of the checkout, or of the bundle)."""
    return app_root() / "resources"


def docs_dir() -> Path:
    """The user documentation (Markdown), shipped in the bundle beside `sops/`."""
    return app_root() / "docs"


def user_data_dir() -> Path:
    """Per-user data folder (database, settings); `SAGE_DESK_HOME` overrides."""
    override = os.environ.get("SAGE_DESK_HOME")
    if override:
        path = Path(override)
    else:
        import platformdirs

        path = Path(platformdirs.user_data_dir("sage-desk", "SAGE Desk"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def resolve_domain_dir(name_or_path: str | Path) -> Path:
    """A domain folder from a path, a path to a file in it, or a name under `sops/`."""
    path = Path(name_or_path)
    if path.is_file():
        return path.parent
    if path.is_dir():
        return path
    shipped = sops_dir() / str(name_or_path)
    return shipped if shipped.is_dir() else path


def shipped_domains() -> list[Path]:
    """Every domain folder under `sops/`, sorted by name."""
    root = sops_dir()
    return sorted(p for p in root.iterdir() if (p / "domain.yaml").is_file()) if root.is_dir() else []
