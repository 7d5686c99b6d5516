"""An agent behind HTTP, as SAGE Desk calls one (--agent http://127.0.0.1:8402/agent).

SAGE Desk POSTs {"conversation_id", "messages", "tools"}: the OpenAI-format messages so far (a system
message, the customer's messages, your earlier replies and tool results) and the domain's tools as
OpenAI tool schemas. You answer with ONE assistant message: "content" (text for the customer) and/or
"tool_calls" (SAGE Desk runs them in its sandboxed world and calls you again with their results).
Your turn ends when you answer with text. This one looks the order up, then hands over to a human.
Standard library only; replace answer() with your own agent (a LangGraph app, a Rasa bot ...).

    python examples/http_agent.py
    sage-desk run --domain northline --agent http://127.0.0.1:8402/agent
"""

from __future__ import annotations

import json
import os
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ORDER = re.compile(r"\b[A-Z]{1,3}-\d{3,}\b")
TOKEN = os.environ.get("AGENT_TOKEN", "")  # when set, every call must carry it (see --agent-header)


def call(messages: list[dict], name: str, arguments: dict) -> dict:
    return {
        "id": f"call_{len(messages)}_{name}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def answer(conversation_id: str, messages: list[dict], tools: list[dict]) -> dict:
    """One assistant message for the conversation so far."""
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    looked_up = [m for m in messages[last_user + 1 :] if m["role"] == "tool"]
    orders = ORDER.findall(" ".join(m["content"] or "" for m in messages if m["role"] == "user"))
    if not looked_up and orders:
        return {"role": "assistant", "content": None, "tool_calls": [call(messages, "lookup_order", {"order_id": orders[0]})]}
    return {
        "role": "assistant",
        "content": "Thanks for waiting. I have checked your order and passed it to a colleague.",
        "tool_calls": [call(messages, "handover_to_human", {"reason": "a person should decide"})],
    }


class Handler(BaseHTTPRequestHandler):
    disable_nagle_algorithm = True  # send each answer at once (else small replies wait ~40 ms on delayed ACKs)

    def do_POST(self) -> None:  # http.server's name
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if TOKEN and self.headers.get("Authorization") != f"Bearer {TOKEN}":
            self.send_error(401, "wrong token")
            return
        body = json.dumps(answer(request["conversation_id"], request["messages"], request["tools"])).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass  # quiet


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8402
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"HTTP agent listening on http://127.0.0.1:{port}/agent", flush=True)
    server.serve_forever()
