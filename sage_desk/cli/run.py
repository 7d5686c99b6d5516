"""`sage-desk run`: play cases x agents x repeats, with a live progress bar; `--resume RUN_ID`."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING, Any

from sage_desk.cli._agent import add_agent_options, agent_fields, apply_agent_options, given
from sage_desk.cli._common import OK, PROBLEMS, USAGE, fail, fail_error, print_problems
from sage_desk.cli._store import add_db_option, open_store
from sage_desk.core.errors import InputError, SageError

if TYPE_CHECKING:
    from sage_desk.core.store import Store


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--domain", help="domain name under sops/ (northline) or a folder")
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="[NAME=]MODEL",
        help="agent under test, repeatable: baseline:oracle|complier|escalator, any litellm model, "
        "http://host:port/path (an agent behind HTTP) or python:module:factory (docs/your-agent.md); "
        "NAME= gives it the short name reports show (careful=baseline:imperfect?act=0.9)",
    )
    add_agent_options(parser)
    parser.add_argument(
        "--tools-server",
        metavar="URL",
        help="an HTTP agent with its own tool layer calls the domain's tools at this sage-desk serve-tools URL",
    )
    parser.add_argument(
        "--user", default="scripted", metavar="MODEL", help="customer simulator: scripted (no LLM) or a litellm model"
    )
    parser.add_argument(
        "--judge",
        action="append",
        default=[],
        metavar="MODEL",
        help="judge model, repeatable: a litellm model, baseline:heuristic, or none",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        metavar="N",
        help="plays of each case per agent (default 3: metrics take the median of three, as SupportAgentBench)",
    )
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="spread conversations over N processes (for fast local servers, where one process is CPU-bound)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--api-base",
        action="append",
        metavar="URL",
        help="OpenAI-compatible server for model calls (Ollama, vLLM ...); repeat it (or A,B) to spread "
        "calls over several replicas: each goes to the least busy one that is up",
    )
    parser.add_argument(
        "--user-api-base",
        action="append",
        metavar="URL",
        help="the customer simulator's own server(s), repeatable; 'default': its provider's",
    )
    parser.add_argument(
        "--judge-api-base",
        action="append",
        metavar="URL",
        help="the judges' own server(s), repeatable; 'default': their provider's",
    )
    parser.add_argument(
        "--endpoint-concurrency",
        type=int,
        metavar="N",
        help="at most N requests in flight to any one endpoint (default: no cap beyond --concurrency)",
    )
    parser.add_argument("--cases", metavar="ID,ID", help="only these case ids")
    parser.add_argument("--suite", metavar="FILE", help="a case suite other than the domain's cases.jsonl")
    parser.add_argument(
        "--resume",
        metavar="RUN_ID",
        help="finish a run: play its unfinished and errored conversations, judge its unjudged ones, "
        "taking back what dead processes held; refused while another live process plays it "
        "('run R is being played by process P on host H since ...') unless --join is given too",
    )
    parser.add_argument(
        "--join",
        metavar="RUN_ID",
        nargs="?",
        const=JOIN_RESUMED,
        help="take a share of a run other processes or machines may be playing too (one PostgreSQL "
        "database): claim conversations nobody plays, a few at a time, until none is left; "
        "errored ones are left to --resume. With --resume RUN_ID, plain --join resumes alongside "
        "the processes playing it",
    )
    parser.add_argument(
        "--create-only",
        action="store_true",
        help="create the run and print its id without playing it (then: sage-desk run --join RUN_ID)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_db_option(parser)
    parser.set_defaults(handler=run)


def _spec(args: argparse.Namespace) -> Any:
    from sage_desk.core.engine.runner import RunSpec

    judges = [j for j in args.judge if j != "none"]
    agents, names = _named_agents(args.agent)
    spec = RunSpec(
        domain=args.domain,
        agents=agents,
        agent_names=names or None,
        user=args.user,
        judges=judges,
        repeats=args.repeats,
        concurrency=args.concurrency,
        seed=args.seed,
        api_base=_bases(args.api_base),
        user_api_base=_bases(args.user_api_base),
        judge_api_base=_bases(args.judge_api_base),
        endpoint_concurrency=args.endpoint_concurrency,
        cases=args.cases.split(",") if args.cases else None,
        suite=args.suite,
    )
    apply_agent_options(spec, args)
    spec.tools_server = args.tools_server
    return spec


def _bases(given: list[str] | None) -> str | None:
    """Repeated --api-base values as one API base ("A,B"); 'default' stays itself (the provider's own endpoint)."""
    from sage_desk.core.llm.balance import join_bases

    if given and "default" in given:
        return "default"
    return join_bases(given)


def _named_agents(given: list[str]) -> tuple[list[str], dict[str, str]]:
    """`--agent` values -> the specs, and the names given as NAME=SPEC; a name used twice is a usage error."""
    from sage_desk.core.agents.display import split_named

    agents: list[str] = []
    names: dict[str, str] = {}
    for text in given:
        name, spec = split_named(text)
        if name is not None:
            if name in names.values() and names.get(spec) != name:
                raise ValueError(f"--agent {text}: the name {name!r} is already another agent's")
            names[spec] = name
        agents.append(spec)
    return agents, names


JOIN_RESUMED = "-"  # --join without a run id: share the run --resume names


def run(args: argparse.Namespace) -> int:
    if args.join == JOIN_RESUMED and not args.resume:
        return fail("--join needs a run: --join RUN_ID, or --resume RUN_ID --join", USAGE)
    if args.join and args.resume and args.join not in (JOIN_RESUMED, args.resume):
        return fail("--join and --resume name different runs: give one run", USAGE)
    if args.create_only and (args.join or args.resume):
        return fail("--create-only makes a new run: leave --join and --resume out", USAGE)
    args.retry_errored = bool(args.resume)  # a resume plays errored conversations again; a plain joiner leaves them
    args.resume = args.resume or args.join  # a joiner plays a stored run with its own settings, as a resume does
    if not args.resume and (not args.domain or not args.agent):
        return fail("name --domain and at least one --agent (or --resume RUN_ID)", USAGE)
    if args.workers < 1:
        return fail("--workers must be at least 1", USAGE)
    if args.endpoint_concurrency is not None and args.endpoint_concurrency < 1:
        return fail("--endpoint-concurrency must be at least 1", USAGE)
    try:
        _named_agents(args.agent)
    except ValueError as exc:
        return fail(str(exc), USAGE)
    try:
        agent_fields(args)  # a prompt file that cannot be read, a bad parameter or header: said before anything runs
    except ValueError as exc:
        return fail(str(exc), getattr(exc, "code", USAGE))
    if args.resume and (given(args) or args.tools_server):
        return fail(
            "--resume plays with the run's own prompt, parameters, headers and tools server: "
            "leave the --agent-* options out (a new run takes new ones)",
            USAGE,
        )
    from sqlalchemy.exc import SQLAlchemyError

    try:
        if not args.resume:
            from sage_desk.core.session import check_spec

            check_spec(_spec(args))  # before the database is opened: a wrong name or missing key is said at once
        store = open_store(args)
        return _execute(args, store)
    except InputError as exc:
        print_problems(exc.problems)
        return PROBLEMS
    except SageError as exc:
        return fail_error(exc)
    except SQLAlchemyError as exc:  # a database that failed mid-run (locked past the retries, full disk, corrupted)
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        return fail(f"the run database failed: {reason}; what was recorded is kept: finish the run with --resume")


def _execute(args: argparse.Namespace, store: Store) -> int:
    from sage_desk.core.session import build_runner, run_spec

    if args.resume:
        run_id = args.resume
        spec = run_spec(store, run_id)
        if spec.imported is not None:
            return fail(f"run {run_id} was imported: it has nothing to play (judge it with sage-desk rejudge --run {run_id})")
    else:
        spec = _spec(args)
    bar = _ProgressBar(quiet=args.quiet)
    runner = build_runner(store, spec, on_progress=bar.update, workers=args.workers)
    if not args.resume:
        run_id = runner.create(spec)
        if args.create_only:
            store.set_run_status(run_id, "interrupted")  # nobody plays it yet: it waits for joiners
            print(f"created run {run_id}; play it from any machine with: sage-desk run --join {run_id} --db URL", file=sys.stderr)
            print(run_id)
            return OK
    print(
        f"run {run_id}: {spec.domain}, agents {', '.join(spec.agents)}, user {spec.user}, "
        f"judges {', '.join(spec.judges) or 'none'}, {spec.repeats} repeat(s)",
        file=sys.stderr,
    )
    try:
        with bar:
            progress = asyncio.run(runner.execute(run_id, join=bool(args.join), retry_errored=args.retry_errored))
    except KeyboardInterrupt:
        store.set_run_status(run_id, "interrupted")
        print(f"\ninterrupted; finish it with: sage-desk run --resume {run_id}", file=sys.stderr)
        return 130
    print(summary(progress), file=sys.stderr)
    if progress.errored:
        for line in error_reasons(store, run_id):
            print(line, file=sys.stderr)
    left = progress.errored + progress.unfinished + progress.unjudged
    if left:
        print(
            f"not complete: play the errored, unfinished and unjudged conversations again with: sage-desk run --resume {run_id}",
            file=sys.stderr,
        )
    print(run_id)
    return OK if left == 0 else PROBLEMS


MAX_REASONS = 10


def error_reasons(store: Store, run_id: str) -> list[str]:
    """Why the run's conversations errored: each reason once, with its count, most frequent first."""
    from sage_desk.core.session import error_reasons as reasons_of

    reasons = reasons_of(store, run_id)
    lines = [f"  errored {count}x: {reason}" for reason, count in reasons[:MAX_REASONS]]
    if len(reasons) > MAX_REASONS:
        rest = sum(n for _, n in reasons[MAX_REASONS:])
        lines.append(f"  errored {rest}x: {len(reasons) - MAX_REASONS} other reasons (sage-desk conversations --run {run_id})")
    return lines


def summary(progress: Any) -> str:
    """The closing line: conversations, what errored (and is left unfinished or unjudged), cost and time."""
    parts = [f"{progress.done} conversations", f"{progress.errored} errored"]
    if progress.unfinished:
        parts.append(f"{progress.unfinished} unfinished")
    if progress.unjudged:
        parts.append(f"{progress.unjudged} unjudged")
    return ", ".join([*parts, f"${progress.cost_usd:.4f}", f"{progress.elapsed_s:.1f}s"])


class _ProgressBar:
    """A rich progress bar fed by the runner's progress callback."""

    def __init__(self, quiet: bool = False):
        self.quiet = quiet
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> _ProgressBar:
        if not self.quiet:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self._bar = Progress(
                TextColumn("conversations"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[errors]} errors  ${task.fields[cost]:.4f}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                transient=False,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task("run", total=None, errors=0, cost=0.0)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)

    def update(self, progress: Any) -> None:
        if self._bar is not None:
            self._bar.update(
                self._task, total=progress.total, completed=progress.done, errors=progress.errored, cost=progress.cost_usd
            )
