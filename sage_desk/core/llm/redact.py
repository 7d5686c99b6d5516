"""Keep API keys out of text we show, log or raise."""

from __future__ import annotations

import re
from collections.abc import Iterable

MASK = "***"
# Shapes a key takes inside provider error text, whoever's key it is.
_PATTERNS = (
    re.compile(r"\b(sk|pk|rk|ak)-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/\-]{6,}=*"),
    re.compile(r"(?i)((?:api[_-]?key|x-api-key|key|token|secret)[\"']?\s*[:=]\s*[\"']?)[^\s\"',&}]{4,}"),
)


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` with each given secret and anything shaped like a key replaced by `***`."""
    for secret in secrets:
        if secret and len(secret) >= 3:
            text = text.replace(secret, MASK)
    text = _PATTERNS[0].sub(MASK, text)
    for pattern in _PATTERNS[1:]:
        text = pattern.sub(lambda m: m.group(1) + MASK, text)
    return text
