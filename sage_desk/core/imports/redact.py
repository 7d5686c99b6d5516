"""Masking personal data in imported text: e-mail addresses, phone numbers, card numbers, IBANs.

Patterns are deliberately strict so record keys survive (an order number such as NL-10482 or a
tracking number such as MP4821093375 is not a phone number): a phone number needs 9 to 15 digits
and a separator or a leading `+`; a card number 13 to 19 digits that pass the Luhn check; an IBAN
a country code and a valid mod-97 checksum (either case). Keys of JSON objects, log ids, tag_ticket
slots and card numbers stored as JSON numbers are masked too. Names and street addresses are masked
only when asked (`--redact names,addresses`): found by rule (an introduction, a title, a field called
name or address, a house number beside a street type), so some slip through and some words are taken.
"""

from __future__ import annotations

import re
from collections import Counter

from sage_desk.core.jsonsafe import Json

EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
CARD = re.compile(r"(?<![\w-])(?:\d[ .-]?){12,18}\d(?![\w-])")  # separated by spaces, dashes or dots
IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]{4}){2,7}(?: ?[A-Za-z0-9]{1,3})?(?![A-Za-z0-9])")
PHONE = re.compile(r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?\(?\d{2,4}\)?(?:[ .-]\d{2,4}){2,4}(?![\w-])|(?<![\w+])\+\d{9,14}(?!\w)")
MASKS = {"email": "[email]", "card": "[card]", "iban": "[iban]", "phone": "[phone]", "name": "[name]", "address": "[address]"}
OPTIONAL = ("names", "addresses")
"""Kinds masked only when asked (`--redact names,addresses`): found by rule, so some slip through."""
# A name: introduced ("my name is", "this is", "Dear", a title), or the value of a record field called so.
NAME = re.compile(
    r"(?:(?i:my name is|my name's|this is|i am|i'm|dear|hi|hello|thanks|thank you)\s*,?\s+|"
    r"\b(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+)((?!(?:Mr|Mrs|Ms|Miss|Dr|Prof)\b)[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+){0,2})"
)
NAME_KEYS = re.compile(
    r"(^|_)(first_?name|last_?name|full_?name|given_?name|family_?name|surname|customer_?name|"
    r"name|contact)$",
    re.IGNORECASE,
)
# A street address: a house number, one to four words, and a street type (English, German, Dutch, French).
ADDRESS = re.compile(
    r"\b\d{1,5}[A-Za-z]?,?\s+(?:[A-Z][\w'’.-]*\s+){0,3}(?:Street|St|Road|Rd|Avenue|Ave|Boulevard|"
    r"Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Square|Sq|Terrace|Close|Crescent|Highway|Hwy)\b|"
    r"\b[A-Z][\w'’-]*(?:straße|strasse|str\.|weg|laan|straat|gracht|plein)\s+\d{1,5}[a-z]?\b|"
    r"\b\d{1,4},?\s+(?:rue|avenue|boulevard|chemin|place)\s+(?:[\w'’-]+\s?){1,4}",
    re.IGNORECASE,
)
ADDRESS_KEYS = re.compile(r"(^|_)(address(_?line)?_?\d?|street(_?address)?|address1|address2|line1|line2)$", re.IGNORECASE)


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _iban_ok(text: str) -> bool:
    compact = text.replace(" ", "").upper()
    moved = compact[4:] + compact[:4]
    number = "".join(str(int(c, 36)) for c in moved)
    return 15 <= len(compact) <= 34 and int(number) % 97 == 1


class Redactor:
    """Masks what it finds and counts it by kind; `also` adds optional kinds (names, addresses)."""

    def __init__(self, also: tuple[str, ...] | list[str] = ()) -> None:
        self.counts: Counter[str] = Counter()
        unknown = set(also) - set(OPTIONAL)
        if unknown:
            raise ValueError(
                f"cannot redact {', '.join(sorted(unknown))}: besides the usual kinds, {' and '.join(OPTIONAL)} can be asked for"
            )
        self.names, self.addresses = "names" in also, "addresses" in also

    def text(self, value: str) -> str:
        value = EMAIL.sub(lambda m: self._mask("email"), value)
        value = IBAN.sub(lambda m: self._mask("iban") if _iban_ok(m.group()) else m.group(), value)
        value = CARD.sub(lambda m: self._card(m.group()), value)
        value = PHONE.sub(lambda m: self._phone(m.group()), value)
        if self.addresses:
            value = ADDRESS.sub(lambda m: self._mask("address"), value)
        if self.names:
            value = NAME.sub(lambda m: m.group(0)[: m.start(1) - m.start(0)] + self._mask("name"), value)
        return value

    def value(self, value: Json, key: str = "") -> Json:
        """Any JSON value, strings masked wherever they are: in keys too, a card stored as a number, and
        (when asked) the whole value of a field called name or address."""
        if isinstance(value, str):
            if (self.names and NAME_KEYS.search(key)) or (self.addresses and ADDRESS_KEYS.search(key)):
                return self._mask("name" if NAME_KEYS.search(key) else "address") if value.strip() else value
            return self.text(value)
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and 13 <= len(str(abs(value))) <= 19 and _luhn(str(abs(value))):
            return self._mask("card")  # a card number stored as a JSON number
        if isinstance(value, list):
            return [self.value(v, key) for v in value]
        if isinstance(value, dict):
            return {(self.text(k) if isinstance(k, str) else k): self.value(v, str(k)) for k, v in value.items()}
        return value

    def _mask(self, kind: str) -> str:
        self.counts[kind] += 1
        return MASKS[kind]

    def _card(self, found: str) -> str:
        digits = re.sub(r"\D", "", found)
        return self._mask("card") if 13 <= len(digits) <= 19 and _luhn(digits) else found

    def _phone(self, found: str) -> str:
        digits = re.sub(r"\D", "", found)
        return self._mask("phone") if 9 <= len(digits) <= 15 else found

    def summary(self) -> str:
        if not self.counts:
            return "nothing to mask"
        return ", ".join(
            f"{n} {kind}{('es' if kind.endswith('s') else 's') if n != 1 else ''}" for kind, n in sorted(self.counts.items())
        )
