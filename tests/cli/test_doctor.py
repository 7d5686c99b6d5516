"""`sage-desk doctor`: each check's verdict on real states of the machine, the exit code, and no network."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail

from sage_desk.cli import doctor, main
from sage_desk.core.store import Store
from sage_desk.core.store.migrate import head_revision

# Qt checks need a platform that works without a display (tests/gui/conftest.py does the same).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture
def migrated_db(tmp_path) -> str:
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    Store(url).close()
    return url


class _QuietKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def get_password(self, service, username):
        return None

    def set_password(self, service, username, password):
        raise AssertionError("doctor must never write a key")

    def delete_password(self, service, username):
        raise AssertionError("doctor must never delete a key")


class _LockedKeyring(_QuietKeyring):
    def get_password(self, service, username):
        raise RuntimeError("the collection is locked")


@pytest.fixture
def use_keyring():
    before = keyring.get_keyring()
    yield keyring.set_keyring
    keyring.set_keyring(before)


def test_a_healthy_setup_passes_with_every_check_named(qapp, migrated_db, capsys):
    assert main(["doctor", "--db", migrated_db]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[1]: line for line in out.splitlines() if line.startswith(("ok", "warn", "fail"))}
    assert set(lines) == {
        "python",
        "qt",
        "display",
        "fonts",
        "database",
        "keyring",
        "litellm",
        "domains",
        "sample",
        "docs",
        "data",
    }
    version = ".".join(map(str, sys.version_info[:3]))
    assert lines["python"].startswith("ok") and version in lines["python"]
    assert lines["display"].startswith("ok") and "'offscreen' loads" in lines["display"]
    assert lines["database"].startswith("ok") and f"schema {head_revision()}, current" in lines["database"]
    assert "northline" in lines["domains"] and "prices for" in lines["litellm"]
    assert "0 failed" in out


def test_a_database_that_cannot_be_opened_fails_with_a_hint_and_exit_1(qapp, tmp_path, capsys):
    missing = f"sqlite:///{tmp_path / 'nowhere' / 'runs.db'}"
    assert main(["doctor", "--db", missing]) == 1
    out = capsys.readouterr().out
    assert "fail  database" in out and "no such file" in out
    assert "hint: check the path in --db" in out
    assert not (tmp_path / "nowhere").exists()  # doctor never creates a database


def test_an_older_schema_warns_and_a_newer_one_fails(tmp_path, migrated_db):
    path = migrated_db.removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0001'")
    older = doctor.check_database(migrated_db)
    assert older.status == "warn" and f"schema 0001, this version writes {head_revision()}" in older.detail
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")
    newer = doctor.check_database(migrated_db)
    assert newer.status == "fail" and "newer SAGE Desk" in newer.detail and "upgrade SAGE Desk" in newer.hint


def test_the_default_database_not_yet_created_is_fine(monkeypatch, tmp_path):
    monkeypatch.setenv("SAGE_DESK_HOME", str(tmp_path))
    check = doctor.check_database(None)
    assert check.status == "ok" and "not created yet" in check.detail
    assert not (tmp_path / "sage-desk.db").exists()


def test_no_display_is_a_warning_that_names_the_way_out(monkeypatch):
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(var, raising=False)
    check = doctor.check_platform()
    assert check.status == "warn" and "would use xcb" in check.detail and "xvfb-run" in check.hint


def test_a_platform_plugin_that_does_not_load_fails_without_killing_doctor(monkeypatch):
    monkeypatch.setenv("QT_QPA_PLATFORM", "nosuchplugin")
    check = doctor.check_platform()
    assert check.status == "fail" and "'nosuchplugin' does not load" in check.detail
    assert "names no installed plugin" in check.hint


@pytest.mark.skipif(sys.platform != "linux", reason="Qt picks xcb or wayland on Linux only")
def test_wayland_is_expected_in_a_wayland_session(monkeypatch):
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    monkeypatch.setenv("XDG_SESSION_TYPE", "wayland")
    assert doctor.expected_platform() == "wayland"
    monkeypatch.setenv("XDG_SESSION_TYPE", "x11")
    assert doctor.expected_platform() == "xcb"
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb;wayland")
    assert doctor.expected_platform() == "xcb"


def test_fonts_are_counted(qapp):
    check = doctor.check_fonts()
    assert check.status == "ok" and int(check.detail.split()[0]) > 0


def test_keyring_backends(use_keyring):
    use_keyring(fail.Keyring())
    missing = doctor.check_keyring()
    assert missing.status == "warn" and "fail.Keyring" in missing.detail and "OPENAI_API_KEY" in missing.hint
    use_keyring(_LockedKeyring())
    locked = doctor.check_keyring()
    assert locked.status == "warn" and "the collection is locked" in locked.detail
    use_keyring(_QuietKeyring())
    working = doctor.check_keyring()
    assert working.status == "ok" and "_QuietKeyring" in working.detail


def test_litellm_is_refused_when_it_would_go_online(monkeypatch):
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "False")
    check = doctor.check_litellm()
    assert check.status == "fail" and "would go online" in check.detail


def test_missing_domains_fail_and_missing_sample_runs_warn(monkeypatch, tmp_path):
    monkeypatch.setenv("SAGE_DESK_SOPS", str(tmp_path))
    domains = doctor.check_domains()
    assert domains.status == "fail" and "SAGE_DESK_SOPS" in domains.hint
    monkeypatch.setattr("sage_desk.core.locations.app_root", lambda: tmp_path)
    assert doctor.check_sample_runs().status == "warn"
    assert doctor.check_docs().status == "warn"


def test_a_crashing_check_is_reported_as_a_failure(monkeypatch):
    def broken():
        raise ValueError("boom")

    monkeypatch.setattr(doctor, "check_python", broken)
    checks = doctor.run_checks("sqlite://")
    assert checks[0].status == "fail" and "ValueError: boom" in checks[0].detail


def test_doctor_never_opens_a_network_connection(tmp_path, migrated_db):
    """A fresh process where any non-local socket connection raises: doctor must still pass."""
    script = textwrap.dedent(f"""
        import socket, sys
        real_connect = socket.socket.connect
        def guarded(self, address):
            if self.family == socket.AF_UNIX:
                return real_connect(self, address)
            raise OSError(f"network use: {{address}}")
        socket.socket.connect = guarded
        socket.socket.connect_ex = guarded
        from sage_desk.cli import main
        sys.exit(main(["doctor", "--db", {migrated_db!r}]))
    """)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SAGE_DESK_HOME": str(tmp_path)}
    env.pop("LITELLM_LOCAL_MODEL_COST_MAP", None)  # doctor (through main) must set it itself
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "network use" not in done.stdout + done.stderr
    assert "ok    litellm" in done.stdout


def test_the_font_check_leaves_an_application_widgets_can_use():
    """doctor runs in-process (the docs' tests, the app): a QWidget made after it must not abort."""
    script = (
        "from sage_desk.cli.doctor import check_fonts\n"
        "from PySide6.QtWidgets import QWidget\n"
        "assert check_fonts().status == 'ok'\n"
        "QWidget().close()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env={**os.environ, "QT_QPA_PLATFORM": ""}
    )
    assert done.returncode == 0, done.stderr
