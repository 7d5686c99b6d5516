"""Test doubles: a local fake OpenAI-compatible server (never a real provider)."""

from .openai_server import FAULTS, FakeOpenAIServer, FakeReply, FakeToolCall, echo_script

__all__ = ["FAULTS", "FakeOpenAIServer", "FakeReply", "FakeToolCall", "echo_script"]
