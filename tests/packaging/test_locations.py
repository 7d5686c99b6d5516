"""Where shipped data is found: the checkout, or the desktop bundle's `_internal/` when frozen."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sage_desk.core import locations

CHECKOUT = Path(__file__).resolve().parents[2]


@pytest.fixture
def frozen_bundle(tmp_path, monkeypatch):
    """Pretend to be a PyInstaller bundle unpacked into tmp_path/_internal."""
    internal = tmp_path / "_internal"
    (internal / "sops" / "gym").mkdir(parents=True)
    (internal / "sops" / "gym" / "domain.yaml").write_text("name: gym\n", encoding="utf-8")
    (internal / "sample_runs").mkdir()
    (internal / "docs").mkdir()
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(internal), raising=False)
    monkeypatch.delenv("SAGE_DESK_SOPS", raising=False)
    return internal


def test_from_a_checkout_the_data_is_beside_the_package(monkeypatch):
    monkeypatch.delenv("SAGE_DESK_SOPS", raising=False)
    assert not locations.is_bundled()
    assert locations.app_root() == CHECKOUT
    assert locations.sops_dir() == CHECKOUT / "sops"
    assert (locations.sample_runs_dir() / "sample.db").is_file()
    assert (locations.docs_dir() / "new-domain.md").is_file()
    assert locations.resources_dir() == CHECKOUT / "resources"


def test_when_frozen_the_data_is_in_the_bundle(frozen_bundle):
    assert locations.is_bundled()
    assert locations.app_root() == frozen_bundle
    assert locations.sops_dir() == frozen_bundle / "sops"
    assert locations.sample_runs_dir() == frozen_bundle / "sample_runs"
    assert locations.docs_dir() == frozen_bundle / "docs"
    assert locations.resources_dir() == frozen_bundle / "resources"
    assert [d.name for d in locations.shipped_domains()] == ["gym"]
    assert locations.resolve_domain_dir("gym") == frozen_bundle / "sops" / "gym"


def test_sops_override_wins_in_the_bundle_too(frozen_bundle, tmp_path, monkeypatch):
    own = tmp_path / "my-sops"
    own.mkdir()
    monkeypatch.setenv("SAGE_DESK_SOPS", str(own))
    assert locations.sops_dir() == own
    assert locations.sample_runs_dir() == frozen_bundle / "sample_runs"


def test_a_stray_meipass_without_frozen_is_ignored(tmp_path, monkeypatch):
    # Another tool's leftover attribute must not move our data away from the checkout.
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    monkeypatch.delattr(sys, "frozen", raising=False)
    assert locations.app_root() == CHECKOUT


def test_the_stylesheet_and_every_icon_it_or_the_app_names_are_in_resources():
    import re

    resources = locations.resources_dir()
    qss = (resources / "style.qss").read_text(encoding="utf-8")
    named = set(re.findall(r"@ICONS@/([\w-]+)\.svg", qss))
    code = "\n".join(p.read_text(encoding="utf-8") for p in (CHECKOUT / "sage_desk" / "gui").rglob("*.py"))
    named |= set(re.findall(r"\bicon\(\"([\w-]+)\"\)", code)) | set(re.findall(r"icon=\"([\w-]+)\"", code))
    named |= set(re.findall(r"ScreenSpec\(\"[\w-]+\", \"[^\"]+\", \"([\w-]+)\"", code))
    assert {"sage-desk", "chevron-down", "runs", "review"} <= named
    assert sorted(n for n in named if not (resources / "icons" / f"{n}.svg").is_file()) == []
