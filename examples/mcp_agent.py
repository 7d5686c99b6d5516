"""An agent with its own tool layer: it calls the domain's tools through MCP (sage-desk serve-tools).

SAGE Desk POSTs {"conversation_id", "messages", "tools", "tools_url"} as to any HTTP agent; tools_url
is the MCP address of this conversation's sandboxed world on the tools server. The agent calls its
tools there with its own MCP client (here the `mcp` package's Client, installed with SAGE Desk) and
answers with text only; the calls the server saw become the transcript's tool calls. This one looks
the order up, then hands over to a human.

    sage-desk serve-tools --domain northline
    python examples/mcp_agent.py
    sage-desk run --domain northline --agent http://127.0.0.1:8403/agent --tools-server http://127.0.0.1:8765
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from mcp import Client

ORDER = re.compile(r"\b[A-Z]{1,3}-\d{3,}\b")


async def answer(messages: list[dict], tools_url: str) -> dict:
    """Use the tools through MCP, then say something: the reply is text only."""
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    if any(m["role"] == "tool" for m in messages[last_user + 1 :]):
        return {"role": "assistant", "content": "Is there anything else I can do?"}
    orders = ORDER.findall(" ".join(m["content"] or "" for m in messages if m["role"] == "user"))
    async with Client(tools_url) as tools:
        if orders:
            found = await tools.call_tool("lookup_order", {"order_id": orders[0]})
            print("lookup_order ->", found.content[0].text[:80], flush=True)
        await tools.call_tool("handover_to_human", {"reason": "a person should decide"})
    return {"role": "assistant", "content": "Thanks for waiting. I have checked your order and passed it to a colleague."}


class Handler(BaseHTTPRequestHandler):
    disable_nagle_algorithm = True  # send each answer at once (else small replies wait ~40 ms on delayed ACKs)

    def do_POST(self) -> None:  # http.server's name
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        body = json.dumps(asyncio.run(answer(request["messages"], request["tools_url"]))).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass  # quiet


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8403
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"MCP-tooled agent listening on http://127.0.0.1:{port}/agent", flush=True)
    server.serve_forever()
