"""`sage-desk serve-tools --domain D`: the domain's sandboxed tools as an MCP server, for an agent with its own tool layer."""

from __future__ import annotations

import argparse
import sys

from sage_desk.cli._common import OK, PROBLEMS, fail
from sage_desk.core.errors import SageError

DEFAULT_PORT = 8765


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--domain", required=True, help="domain name under sops/ (northline) or a folder")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port on 127.0.0.1 (default {DEFAULT_PORT}; 0: any free one)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from sage_desk.core.domain.loader import load_domain
    from sage_desk.core.toolserver import ToolServer

    try:
        bundle = load_domain(args.domain)
        server = ToolServer(bundle, port=args.port)
    except SageError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}", PROBLEMS)
    tools = ", ".join(s["function"]["name"] for s in bundle.tool_schemas())
    print(f"serving {bundle.name}'s tools over MCP at {server.url}/mcp?conversation_id=ID", file=sys.stderr)
    print(f"  tools: {tools}", file=sys.stderr)
    print(
        f"  run an agent against it: sage-desk run --domain {bundle.name} --agent http://YOUR-AGENT --tools-server {server.url}",
        file=sys.stderr,
    )
    print("  Ctrl-C stops it", file=sys.stderr)
    try:
        server.serve()
    except KeyboardInterrupt:
        pass
    return OK
