"""`sage-desk doctor`: what works on this machine and what to do about what does not.

One line per check, `ok`, `warn` or `fail`, with a hint under each problem; exit 1 when any check
fails. Nothing here touches the network (litellm reads its bundled price map; the database is the
one you name), writes a key, or creates the default database.

Whether Qt's platform plugin loads is tried in a child process (`doctor --probe-platform`):
a plugin that cannot load aborts the process that tries, and doctor must live to report it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sage_desk.cli._agent import add_agent_options
from sage_desk.cli._common import OK, PROBLEMS
from sage_desk.cli._store import add_db_option

PROBE_TIMEOUT_S = 30
KEYRING_TIMEOUT_S = 3
MIN_PYTHON = (3, 11)
QT_LIBS_HINT = (
    "install Qt's system libraries: apt-get install libglib2.0-0 libgl1 libegl1 libxkbcommon0 "
    "libfontconfig1 libfreetype6 libdbus-1-3 fonts-dejavu-core"
)
XCB_LIBS_HINT = (
    "for a window on X11 also: apt-get install libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 "
    "libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-shape0 libxcb-xkb1 libxcb-randr0 libx11-xcb1"
)


@dataclass(frozen=True)
class Check:
    """The outcome of one check: ok, warn or fail, what was found, and what to do when it is not ok."""

    name: str
    status: str
    detail: str
    hint: str = ""


def register(parser: argparse.ArgumentParser) -> None:
    add_db_option(parser)
    parser.add_argument("--probe-platform", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--run",
        metavar="RUN_ID",
        help="check one run instead: finished conversations without a transcript are set back to "
        "pending, for `sage-desk run --resume RUN_ID` to play again",
    )
    parser.add_argument(
        "--agent",
        metavar="SPEC",
        help="check one agent under test instead: an HTTP agent (http://…) or a Python agent "
        "(python:module:factory) answers one opening with an assistant message",
    )
    parser.add_argument("--domain", default="northline", help="with --agent: the domain whose opening and tools it is sent")
    parser.add_argument("--tools-server", metavar="URL", help="with --agent: the serve-tools URL it calls its tools through")
    add_agent_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.probe_platform:
        return probe_platform()
    if args.agent:
        return check_agent(args)
    if args.run:
        return repair_run(args.db, args.run)
    checks = run_checks(args.db)
    for check in checks:
        print(format_check(check))
    failed = sum(c.status == "fail" for c in checks)
    warned = sum(c.status == "warn" for c in checks)
    print(f"\n{len(checks)} checks: {failed} failed, {warned} warnings")
    return PROBLEMS if failed else OK


def check_agent(args: argparse.Namespace) -> int:
    """`doctor --agent SPEC`: whether the agent answers one opening with an assistant message."""
    from sage_desk.cli._agent import agent_fields
    from sage_desk.cli._common import USAGE, fail
    from sage_desk.core.agents.display import split_named
    from sage_desk.core.domain.loader import load_domain
    from sage_desk.core.engine.probe import probe_agent
    from sage_desk.core.engine.runner import RunSpec
    from sage_desk.core.errors import SageError

    try:
        spec = RunSpec(domain=args.domain, agents=[], tools_server=args.tools_server, **agent_fields(args))
        bundle = load_domain(args.domain)
    except ValueError as exc:
        return fail(str(exc), getattr(exc, "code", USAGE))
    except SageError as exc:
        return fail(str(exc))
    result = probe_agent(split_named(args.agent)[1], bundle, spec.agent_settings())
    check = Check(
        "agent",
        "ok" if result.ok else "fail",
        result.detail,
        "" if result.ok else "see docs/your-agent.md (Test your own agent) for what an agent is sent and answers",
    )
    print(format_check(check))
    return OK if result.ok else PROBLEMS


def format_check(check: Check) -> str:
    """`ok    name          detail`, and an indented hint line when there is one."""
    line = f"{check.status:<5} {check.name:<13} {check.detail}"
    return f"{line}\n{'':<6}hint: {check.hint}" if check.hint else line


def run_checks(db_url: str | None = None) -> list[Check]:
    """Every check, in the order a stuck user needs them."""
    steps: list[Callable[[], Check]] = [
        check_python,
        check_qt,
        check_platform,
        check_fonts,
        lambda: check_database(db_url),
        check_keyring,
        check_litellm,
        check_domains,
        check_sample_runs,
        check_docs,
        check_data_folder,
    ]
    checks = []
    for step in steps:
        try:
            checks.append(step())
        except Exception as exc:  # a check that crashes is itself the finding
            checks.append(
                Check(
                    getattr(step, "__name__", "check"),
                    "fail",
                    f"{type(exc).__name__}: {exc}",
                    "please report this with the output of `sage-desk doctor`",
                )
            )
    return checks


# --- the interpreter and Qt ----------------------------------------------------------------------


def check_python() -> Check:
    from sage_desk.core.locations import is_bundled

    version = ".".join(map(str, sys.version_info[:3]))
    where = "bundled with the desktop app" if is_bundled() else sys.executable
    if sys.version_info[:2] < MIN_PYTHON:
        return Check("python", "fail", f"{version} ({where})", "SAGE Desk needs Python 3.11 or newer")
    return Check("python", "ok", f"{version} ({where})")


def check_qt() -> Check:
    try:
        import PySide6
        from PySide6.QtCore import qVersion
    except ImportError as exc:
        return Check("qt", "fail", f"PySide6 does not load: {exc}", QT_LIBS_HINT)
    return Check("qt", "ok", f"PySide6 {PySide6.__version__}, Qt {qVersion()}")


def display_available() -> bool:
    """Whether a window could be shown: an X11 or Wayland display is named."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def expected_platform() -> str:
    """The platform plugin Qt will pick: QT_QPA_PLATFORM, else Wayland in a Wayland session, else xcb (X11)."""
    chosen = os.environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0]
    if chosen:
        return chosen
    if sys.platform != "linux":
        return {"darwin": "cocoa", "win32": "windows"}.get(sys.platform, sys.platform)
    wayland = os.environ.get("WAYLAND_DISPLAY") and os.environ.get("XDG_SESSION_TYPE") == "wayland"
    return "wayland" if wayland else "xcb"


def check_platform() -> Check:
    platform = expected_platform()
    if platform in ("xcb", "wayland") and not display_available():
        return Check(
            "display",
            "warn",
            f"no display (DISPLAY and WAYLAND_DISPLAY unset): the window cannot open (Qt would use {platform})",
            "run it on a desktop, or under `xvfb-run -a sage-desk`; `sage-desk --screenshot DIR` and every "
            "sub-command work without a display",
        )
    code, output = _run_probe()
    if code == 0 and output.startswith("platform "):
        return Check("display", "ok", f"Qt platform plugin {output.split()[1]!r} loads")
    first = next((line for line in output.splitlines() if line.strip()), f"exit code {code}")
    return Check("display", "fail", f"Qt platform plugin {platform!r} does not load: {first}", _platform_hint(platform, output))


def _platform_hint(platform: str, output: str) -> str:
    if "could not connect to display" in output or "Failed to create wl_display" in output:
        shown = os.environ.get("WAYLAND_DISPLAY") if platform == "wayland" else os.environ.get("DISPLAY")
        return (
            f"no display server answers at {shown!r}: check that your desktop session runs and the variable is "
            "right, or unset it and use `sage-desk --screenshot DIR`"
        )
    if "no Qt platform plugin could be initialized" in output and platform not in ("xcb", "wayland"):
        return f"QT_QPA_PLATFORM={platform} names no installed plugin: unset it, or use xcb, wayland or offscreen"
    return XCB_LIBS_HINT if platform == "xcb" else QT_LIBS_HINT


def _run_probe() -> tuple[int, str]:
    from sage_desk.core.locations import is_bundled

    base = [sys.executable] if is_bundled() else [sys.executable, "-m", "sage_desk"]
    try:
        done = subprocess.run(
            [*base, "doctor", "--probe-platform"], capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        return -1, f"no answer within {PROBE_TIMEOUT_S} s"
    return done.returncode, (done.stdout.strip() + "\n" + done.stderr.strip()).strip()


def probe_platform() -> int:
    """In the child process: start a QGuiApplication on the default platform and say which it is."""
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication(sys.argv[:1])
    print(f"platform {app.platformName()}")
    return OK


def check_fonts() -> Check:
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtGui import QFontDatabase
    from PySide6.QtWidgets import QApplication

    if QCoreApplication.instance() is None:
        # The offscreen platform reads the same fontconfig fonts and needs no display. A full
        # QApplication, not a QGuiApplication: doctor may run inside the app's process (or a test's),
        # where a later QWidget needs one.
        _app = QApplication([sys.argv[0], "-platform", "offscreen"])  # kept alive for the query
    families = QFontDatabase.families()
    if not families:
        return Check(
            "fonts",
            "fail",
            "no fonts found: every text would be drawn as empty boxes",
            "install a font package: apt-get install fonts-dejavu-core",
        )
    default = QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont).family()
    return Check("fonts", "ok", f"{len(families)} families, default {default!r}")


# --- the run database -----------------------------------------------------------------------------


def check_database(db_url: str | None) -> Check:
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    from sage_desk.core.store.engine import default_url, is_sqlite, make_engine
    from sage_desk.core.store.migrate import current_revision, head_revision

    url = make_url(db_url or default_url())
    shown = url.render_as_string(hide_password=True)
    if is_sqlite(url) and url.database and not Path(url.database).is_file():
        if db_url is None:
            return Check(
                "database", "ok", f"{shown} not created yet: the first run creates it (until then the app shows the sample runs)"
            )
        return Check("database", "fail", f"{shown}: no such file", "check the path in --db, or leave --db out")
    try:
        engine = make_engine(url)
        try:
            with engine.connect() as conn:
                damaged = _integrity(conn, url)
                revision = current_revision(conn)
        finally:
            engine.dispose()
    except (SQLAlchemyError, ImportError) as exc:
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        return Check(
            "database",
            "fail",
            f"{shown} cannot be opened: {reason}",
            "check the URL, that the server runs and its driver is installed (psycopg for PostgreSQL)",
        )
    if damaged is not None:
        return Check(damaged.name, damaged.status, f"{shown}: {damaged.detail}", damaged.hint)
    return _schema_check(shown, revision, head_revision())


def repair_run(db_url: str | None, run_id: str) -> int:
    """`doctor --run R`: find and repair a run's finished conversations that have no transcript."""
    from sage_desk.cli._common import fail
    from sage_desk.core.errors import SageError
    from sage_desk.core.store import Store

    try:
        with Store(db_url) as store:
            found = store.repair_run(run_id)
    except SageError as exc:
        return fail(str(exc))
    if not found:
        print(f"ok    run {run_id}: every finished conversation has its transcript")
        return OK
    print(
        f"fixed run {run_id}: {len(found)} finished conversation(s) had no transcript ({', '.join(found[:5])}"
        f"{', ...' if len(found) > 5 else ''}); they are pending again: play them with sage-desk run --resume {run_id}"
    )
    return PROBLEMS


def _integrity(conn: object, url: object) -> Check | None:
    """SQLite's own integrity check (a malformed file is not "ok"); None when it passes or does not apply."""
    from sqlalchemy.engine import Connection

    from sage_desk.core.store.engine import is_sqlite

    assert isinstance(conn, Connection)
    if not is_sqlite(url):  # type: ignore[arg-type]
        return None
    found = [str(r[0]) for r in conn.exec_driver_sql("PRAGMA integrity_check(5)")]
    if found == ["ok"]:
        return None
    return Check(
        "database",
        "fail",
        f"the file is damaged: {found[0]}" + (f" (and {len(found) - 1} more)" if len(found) > 1 else ""),
        "restore it from a backup; `sqlite3 FILE .recover` may save what is readable",
    )


def _schema_check(shown: str, revision: str | None, head: str) -> Check:
    if revision == head:
        return Check("database", "ok", f"{shown} (schema {head}, current)")
    if revision is None:
        return Check("database", "ok", f"{shown} is empty: the first run creates the tables")
    from alembic.script import ScriptDirectory

    from sage_desk.core.store.migrate import alembic_config

    try:
        known = ScriptDirectory.from_config(alembic_config()).get_revision(revision) is not None
    except Exception:  # alembic raises several kinds for an unknown revision
        known = False
    if not known:
        return Check(
            "database",
            "fail",
            f"{shown} has schema {revision}, written by a newer SAGE Desk",
            "upgrade SAGE Desk, or point --db at another database",
        )
    return Check(
        "database",
        "warn",
        f"{shown} has schema {revision}, this version writes {head}",
        "it is upgraded the next time SAGE Desk opens it; back it up first if older versions still use it",
    )


# --- keys and models ------------------------------------------------------------------------------


def check_keyring() -> Check:
    try:
        import keyring
        from keyring.backends import fail
    except ImportError as exc:
        return Check("keyring", "fail", f"keyring does not load: {exc}", "reinstall SAGE Desk")
    backend = keyring.get_keyring()
    name = f"{type(backend).__module__.removeprefix('keyring.backends.')}.{type(backend).__name__}"
    no_keyring_hint = (
        "keys still work as environment variables (OPENAI_API_KEY, ANTHROPIC_API_KEY ...); to keep them "
        "in Runs > API Keys, install and unlock a Secret Service keyring (GNOME Keyring, KWallet)"
    )
    if isinstance(backend, fail.Keyring) or getattr(backend, "priority", 1) <= 0:
        return Check("keyring", "warn", f"no usable keyring (backend {name})", no_keyring_hint)
    error = _read_probe(backend)
    if error:
        return Check("keyring", "warn", f"backend {name} does not answer: {error}", no_keyring_hint)
    return Check("keyring", "ok", f"backend {name}, readable")


def _read_probe(backend: object) -> str | None:
    """Read a key that does not exist, in a thread: a locked keyring may wait for a password prompt."""
    outcome: list[str | None] = []

    def read() -> None:
        try:
            backend.get_password("sage-desk", "SAGE_DESK_DOCTOR_PROBE")  # type: ignore[attr-defined]
            outcome.append(None)
        except Exception as exc:  # any failure means keys cannot be read here
            outcome.append(f"{type(exc).__name__}: {exc}")

    worker = threading.Thread(target=read, daemon=True, name="doctor-keyring")
    worker.start()
    worker.join(KEYRING_TIMEOUT_S)
    return outcome[0] if outcome else f"no answer within {KEYRING_TIMEOUT_S} s (locked?)"


def check_litellm() -> Check:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    if os.environ["LITELLM_LOCAL_MODEL_COST_MAP"].lower() != "true":
        return Check(
            "litellm",
            "fail",
            "LITELLM_LOCAL_MODEL_COST_MAP is not True: importing litellm would go online",
            "unset LITELLM_LOCAL_MODEL_COST_MAP (SAGE Desk sets it) or set it to True",
        )
    from sage_desk.core.llm.client import load_litellm

    started = time.perf_counter()
    try:
        litellm = load_litellm()
    except Exception as exc:  # a broken install shows as any exception at import
        return Check("litellm", "fail", f"does not import: {type(exc).__name__}: {exc}", "reinstall SAGE Desk")
    seconds = time.perf_counter() - started
    prices = len(getattr(litellm, "model_cost", {}) or {})
    if prices == 0:
        return Check(
            "litellm",
            "fail",
            "imported, but its price map is empty",
            "the bundled model_prices_and_context_window_backup.json is missing: reinstall",
        )
    tokenizers = Path(os.environ.get("TIKTOKEN_CACHE_DIR", ""))
    detail = f"{_version('litellm')} imported offline in {seconds:.1f} s, prices for {prices:,} models"
    if not (tokenizers.is_dir() and any(tokenizers.iterdir())):
        return Check(
            "litellm",
            "warn",
            f"{detail}; no bundled tokenizer files",
            "token counting would download encodings: reinstall SAGE Desk",
        )
    return Check("litellm", "ok", detail)


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return package


# --- shipped data and the user's folder -----------------------------------------------------------


def check_domains() -> Check:
    from sage_desk.core.locations import shipped_domains, sops_dir

    domains = shipped_domains()
    if not domains:
        hint = (
            "SAGE_DESK_SOPS points at a folder with no domains"
            if os.environ.get("SAGE_DESK_SOPS")
            else "the installation is incomplete: reinstall, or set SAGE_DESK_SOPS to a folder of domains"
        )
        return Check("domains", "fail", f"no domain folders in {sops_dir()}", hint)
    return Check("domains", "ok", f"{len(domains)} in {sops_dir()}: {', '.join(d.name for d in domains)}")


def check_sample_runs() -> Check:
    from sage_desk.core.locations import sample_runs_dir

    sample = sample_runs_dir() / "sample.db"
    if not sample.is_file():
        return Check(
            "sample runs",
            "warn",
            f"{sample} missing: the app opens with no runs to show",
            "start a run (Runs screen or `sage-desk run`), or reinstall",
        )
    return Check("sample runs", "ok", f"{sample} ({sample.stat().st_size / 1e6:.1f} MB)")


def check_docs() -> Check:
    from sage_desk.core.locations import docs_dir

    docs = sorted(docs_dir().glob("*.md"))
    if not docs:
        return Check(
            "docs",
            "warn",
            f"no documentation in {docs_dir()}: Help > Documentation has nothing to open",
            "reinstall, or read the docs/ folder of the source repository",
        )
    return Check("docs", "ok", f"{len(docs)} pages in {docs_dir()}")


def check_data_folder() -> Check:
    from sage_desk.core.locations import user_data_dir

    try:
        folder = user_data_dir()
    except OSError as exc:
        return Check("data folder", "fail", f"cannot be created: {exc}", "set SAGE_DESK_HOME to a folder you can write")
    if not os.access(folder, os.W_OK):
        return Check("data folder", "fail", f"{folder} is not writable", "set SAGE_DESK_HOME to a folder you can write")
    return Check("data folder", "ok", str(folder))
