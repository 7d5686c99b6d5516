"""Judges: an LLM judge for what rules cannot read, and an offline heuristic stand-in."""
