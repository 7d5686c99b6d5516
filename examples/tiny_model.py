"""A tiny OpenAI-compatible chat model, rule-based, for trying --agent-prompt and --agent-param offline.

It serves POST /v1/chat/completions on 127.0.0.1 (port 8401, or the first argument) the way vLLM,
Ollama or LM Studio do. Its "reasoning": look up the order number the customer wrote, then hand
the ticket to a human. Its replies start with the first line of the system prompt it was sent,
so you can see which prompt it got. Standard library only.

    python examples/tiny_model.py
    sage-desk run --domain northline --agent openai/tiny --api-base http://127.0.0.1:8401/v1 \
        --agent-prompt examples/support-prompt.txt --agent-param temperature=0.2
"""

from __future__ import annotations

import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ORDER = re.compile(r"\b[A-Z]{1,3}-\d{3,}\b")


def call(messages: list[dict], name: str, arguments: dict) -> dict:
    return {
        "id": f"call_{len(messages)}_{name}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def answer(messages: list[dict], tools: list[dict]) -> dict:
    """One assistant message: a lookup first, then a reply that hands the ticket over."""
    names = {t["function"]["name"] for t in tools}
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    results = [m["content"] for m in messages[last_user + 1 :] if m["role"] == "tool"]
    said = " ".join(m["content"] or "" for m in messages if m["role"] == "user")
    orders = ORDER.findall(said)
    if not results and orders and "lookup_order" in names:
        return {"role": "assistant", "content": None, "tool_calls": [call(messages, "lookup_order", {"order_id": orders[0]})]}
    prompt = next((m["content"] for m in messages if m["role"] == "system"), "")
    first_line = prompt.strip().splitlines()[0] if prompt.strip() else "(no system prompt)"
    text = f"[{first_line}] Thanks, I have looked into it. A colleague will take it from here."
    return {
        "role": "assistant",
        "content": text,
        "tool_calls": [call(messages, "handover_to_human", {"reason": "the customer needs a person to decide"})],
    }


class Handler(BaseHTTPRequestHandler):
    disable_nagle_algorithm = True  # send each answer at once (else small replies wait ~40 ms on delayed ACKs)

    def do_POST(self) -> None:  # http.server's name
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        message = answer(request["messages"], request.get("tools") or [])
        body = json.dumps(
            {
                "id": "tiny-1",
                "object": "chat.completion",
                "model": request.get("model", "tiny"),
                "choices": [
                    {"index": 0, "message": message, "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}
                ],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass  # quiet


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8401
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"tiny model listening on http://127.0.0.1:{port}/v1", flush=True)
    server.serve_forever()
