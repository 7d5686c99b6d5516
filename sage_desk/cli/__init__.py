"""`sage-desk`: the GUI by default, headless sub-commands for everything else.

Each sub-command lives in its own module with `register(parser)`, which declares its arguments
and sets `handler`. Command modules keep heavy imports (litellm, SQLAlchemy, Qt) inside their
handlers, so `sage-desk --help` and the GUI start fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from sage_desk import __version__

# command name -> module under sage_desk.cli, and a one-line help
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("validate", "check graphs, domains and case suites"),
    "paths": ("paths", "list every start-to-end path of a graph"),
    "import-sop": ("import_sop", "draft a graph from a prose SOP with a model"),
    "diff-sop": ("diff_sop", "show how two graphs differ: nodes, edges, conditions"),
    "synthesize": ("synthesize", "write a case suite covering every path of a domain's graph"),
    "cases": ("cases", "summarise a case suite: buckets, conflict, tactics, uncovered paths"),
    "run": ("run", "run cases against agents (offline with the baselines)"),
    "runs": ("runs", "list the runs in the database: id, domain, agents, conversations, status, created"),
    "conversations": ("conversations", "list a run's conversation ids with case, agent, ending and failed verdicts"),
    "show": ("show", "print one conversation (by id, or --run R --case C) with its tool calls and verdicts"),
    "report": ("report", "per-model metrics of a run (table, json, csv, html)"),
    "rejudge": ("rejudge", "score a run's stored conversations again with other judges"),
    "doctor": ("doctor", "check this machine: Python, Qt, display, fonts, database, keyring, litellm, data"),
    "label": ("label", "import human labels in bulk from CSV, as overrides"),
    "calibration": ("calibration", "judge vs human agreement per criterion; --calibrate MODEL with few-shot examples"),
    "export-calibration": ("export_calibration", "write a run's labelled items as a calibration set (jsonl, csv)"),
    "import": (
        "import_conversations",
        "import production conversations (openai, tau2, events) into a run, placed on the SOP graph",
    ),
    "set-slot": ("set_slot", "set a slot of an imported conversation; its rules re-run"),
    "export-results": (
        "export_results",
        "one record per conversation: ending, resolved, unsafe acts, every verdict (jsonl, csv)",
    ),
    "compare": ("compare", "compare two runs: metric deltas with paired intervals, flipped cases, --fail-on-regression"),
    "serve-tools": ("serve_tools", "serve a domain's sandboxed tools over MCP, for an agent with its own tool layer"),
    "replay": ("replay", "play one turn of a conversation again N times: how often the agent takes each action there"),
    "reviewer": ("reviewer", "set, show or clear your reviewer name (the author of your labels)"),
    "agreement": ("agreement", "agreement between human reviewers per criterion: kappa, alpha, % agreement, disagreements"),
    "adjudicate": ("adjudicate", "record the final label where reviewers disagree (with a reason); lists open disagreements"),
    "queue": ("queue", "review queues: create, list, status, export"),
}


def _configure_environment() -> None:
    # litellm fetches its price map over the network at import unless told not to (ENVIRONMENT.md).
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _window_size(text: str) -> tuple[int, int]:
    """`1280x720` -> (1280, 720), for --size."""
    width, sep, height = text.lower().partition("x")
    if not (sep and width.isdigit() and height.isdigit() and int(width) >= 320 and int(height) >= 240):
        raise argparse.ArgumentTypeError(f"{text!r} is not a window size like 1280x720 (at least 320x240)")
    return int(width), int(height)


def _no_display() -> str | None:
    """Why the window cannot open here, in one line, or None.

    Checked before Qt loads: without a display Qt aborts the process (SIGABRT) with a message
    about a missing xcb-cursor library, which sends people to install the wrong thing.
    """
    from sage_desk.cli.doctor import display_available, expected_platform

    if sys.platform != "linux" or display_available() or expected_platform() not in ("xcb", "wayland"):
        return None
    return (
        f"no display for the window (DISPLAY and WAYLAND_DISPLAY are unset): run `xvfb-run -a {_launcher()}`, "
        "or set QT_QPA_PLATFORM (offscreen: draw nowhere); sub-commands need no display"
    )


def _launcher() -> str:
    """How this person started the app, to repeat in advice: `./dev app` (which says so), `sage-desk` when it is
    on PATH, else the script's own path (a virtualenv not activated)."""
    import shutil

    given = os.environ.get("SAGE_DESK_LAUNCHER")
    if given:
        return given
    if shutil.which("sage-desk"):
        return "sage-desk"
    script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return script if os.path.basename(script) == "sage-desk" else f"{sys.executable} -m sage_desk"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sage-desk", description="Test customer-service agents against SOPs.")
    parser.add_argument("--version", action="version", version=f"sage-desk {__version__}")
    parser.add_argument(
        "--screenshot", metavar="DIR", help="open the app offscreen, write one PNG per screen and dialog into DIR, exit"
    )
    parser.add_argument(
        "--size",
        metavar="WxH",
        type=_window_size,
        default=None,
        help="with --screenshot: the screen size to draw every screen and dialog on (default 1440x900)",
    )
    parser.add_argument(
        "--db",
        metavar="URL",
        help="database URL for the app, or for the command after it (default: your runs, else a copy of the sample runs; `sample`: the sample runs read-only)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        mod = importlib.import_module(f"sage_desk.cli.{module}")
        # argparse %-formats a sub-command's help (not its description): a bare % must be doubled
        mod.register(sub.add_parser(name, help=help_text.replace("%", "%%"), description=help_text))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `sage-desk` console script."""
    _configure_environment()
    args = build_parser().parse_args(argv)
    if args.command is None:
        if args.size and not args.screenshot:
            build_parser().error("--size goes with --screenshot DIR")
        if not args.screenshot and (missing := _no_display()):
            print(f"sage-desk: {missing}", file=sys.stderr)
            return 1
        from sage_desk.gui.app import run_app

        return run_app(screenshot_dir=args.screenshot, db_url=args.db, size=args.size)
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `sage-desk ... | head`: the reader left; not an error of ours
        sys.stderr.close()
        return 0
    except Exception as exc:
        from sage_desk.core.store.errors import plain_database_error

        message = plain_database_error(exc)  # a full disk, a lock held too long, a damaged file: one line
        if message is None:
            raise
        print(f"sage-desk: {message}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
