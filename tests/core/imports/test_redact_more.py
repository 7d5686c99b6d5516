"""`import --redact` masks what issue 34 found left behind: e-mails in log ids and JSON keys, card
numbers stored as JSON numbers or with dots, lowercase IBANs, values in tag_ticket slots; and, when
asked (`--redact names,addresses`), people's names and street addresses. Order numbers stay."""

from __future__ import annotations

import json
from pathlib import Path

from sage_desk.cli import main
from sage_desk.core.store import Store

CARD = "4111111111111111"  # passes the Luhn check
IBAN = "de89 3704 0044 0532 0130 00"  # a valid IBAN, written in lowercase


def _log(path: Path) -> None:
    messages = [
        {
            "role": "user",
            "content": f"Hi, my name is Dana Okafor, I live at 12 Baker Street. Card {CARD[:4]}.{CARD[4:8]}."
            f"{CARD[8:12]}.{CARD[12:]}, refund to {IBAN}. Order NL-90002.",
        },
        {
            "role": "assistant",
            "content": "Dear Ms. Okafor, let me look.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "lookup_order", "arguments": json.dumps({"order_id": "NL-90002"})},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {
                        "name": "tag_ticket",
                        "arguments": json.dumps({"intent": "refund", "slots": {"contact": "dana.okafor@example.com"}}),
                    },
                },
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": json.dumps(
                {
                    "order_id": "NL-90002",
                    "card": int(CARD),
                    "dana.okafor@example.com": "owner",
                    "name": "Dana Okafor",
                    "address": "Keizersgracht 123",
                }
            ),
        },
        {"role": "tool", "tool_call_id": "c2", "content": '{"tagged": true}'},
    ]
    path.write_text(json.dumps({"id": "dana.okafor@example.com", "messages": messages}) + "\n")


def _stored(db: str) -> str:
    store = Store(db)
    rows = store.conversations()
    return json.dumps([[r.source_id, [e.model_dump(mode="json") for e in store.events(r.id)]] for r in rows])


def _import(db: str, log: Path, *redact: str) -> int:
    return main(["import", str(log), "--db", db, "--domain", "northline", "--format", "openai", *redact])


def test_redact_masks_ids_keys_numbers_dotted_cards_lowercase_ibans_and_slots(tmp_path: Path, capsys) -> None:
    log, db = tmp_path / "log.jsonl", f"sqlite:///{tmp_path / 'runs.db'}"
    _log(log)
    assert _import(db, log, "--redact") == 0
    text = _stored(db)
    for secret in ("dana.okafor@example.com", CARD, CARD[:4] + "." + CARD[4:8], "de89", str(int(CARD))):
        assert secret not in text, secret
    assert "NL-90002" in text  # the order number is not personal data
    assert "Dana Okafor" in text and "Baker Street" in text  # names and addresses only when asked
    assert "masked:" in capsys.readouterr().err


def test_redact_names_and_addresses_when_asked(tmp_path: Path, capsys) -> None:
    log, db = tmp_path / "log.jsonl", f"sqlite:///{tmp_path / 'runs.db'}"
    _log(log)
    assert _import(db, log, "--redact", "names,addresses") == 0
    text = _stored(db)
    for secret in ("Dana", "Okafor", "Baker Street", "Keizersgracht"):
        assert secret not in text, secret
    assert "[name]" in text and "[address]" in text and "NL-90002" in text
    err = capsys.readouterr().err
    assert "name" in err and "address" in err


def test_redact_refuses_a_kind_it_does_not_know(tmp_path: Path, capsys) -> None:
    log, db = tmp_path / "log.jsonl", f"sqlite:///{tmp_path / 'runs.db'}"
    _log(log)
    assert _import(db, log, "--redact", "shoe sizes") == 2
    assert "names and addresses" in capsys.readouterr().err
