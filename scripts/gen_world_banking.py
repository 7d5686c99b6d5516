"""Regenerate sops/banking/world.yaml: Kestrel Bank's seeded customers, cards and card transactions.

Deterministic (fixed seed). Run: python scripts/gen_world_banking.py
The output is data; sops/banking/cases.jsonl names its transaction ids, so regenerate the suite
(`sage-desk synthesize banking --per-path 3 --seed 7 --out sops/banking/cases.jsonl`) after it.

The mix is chosen so every path of sops/banking/sop.yaml has real rows: pending, posted and
already-disputed transactions, posted ones inside and outside the 120-day dispute window, bank
fees on customers with and without a waiver used this year, cards active, frozen, blocked and
closed, and a few customers whose accounts are on a fraud hold.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from pathlib import Path

import yaml

OUT = Path(__file__).resolve().parents[1] / "sops" / "banking" / "world.yaml"
TODAY = date(2026, 11, 20)

FIRST = [
    "Amelia",
    "Ben",
    "Carmen",
    "Dev",
    "Erin",
    "Farid",
    "Gwen",
    "Hiro",
    "Ines",
    "Jakub",
    "Keira",
    "Luca",
    "Mina",
    "Nico",
    "Orla",
    "Pavel",
    "Quinn",
    "Rosa",
    "Sami",
    "Tara",
    "Umar",
    "Vera",
    "Wes",
    "Yara",
    "Zane",
]
LAST = [
    "Abbott",
    "Baptiste",
    "Cho",
    "Dlamini",
    "Eriksen",
    "Farouk",
    "Garcia",
    "Horvat",
    "Iqbal",
    "Jensen",
    "Kaur",
    "Lopez",
    "Murphy",
    "Nowak",
    "Okoro",
    "Patel",
    "Quint",
    "Rossi",
    "Silva",
    "Toivonen",
]
MERCHANTS = [
    ("Brightway Grocers", "purchase", (12, 180)),
    ("Cityline Rail", "purchase", (4, 95)),
    ("Parcelpoint Online", "purchase", (15, 420)),
    ("Lumos Electronics", "purchase", (60, 1400)),
    ("Harbor Fuel", "purchase", (25, 110)),
    ("Streamly Subscription", "purchase", (9, 18)),
    ("Atlas Hotels", "purchase", (90, 780)),
    ("Nimbus Air", "purchase", (120, 950)),
    ("Corner Pharmacy", "purchase", (5, 60)),
    ("ATM withdrawal", "atm", (20, 400)),
]
FEES = [
    ("Overdraft fee", 35.0),
    ("Foreign transaction fee", 7.5),
    ("Late payment fee", 29.0),
    ("Card replacement fee", 10.0),
    ("Monthly maintenance fee", 12.0),
]


def customers(r: random.Random) -> list[dict]:
    rows = []
    for i in range(60):
        name = f"{FIRST[i % len(FIRST)]} {LAST[(i * 7) % len(LAST)]}"
        standing = "fraud_hold" if i % 12 == 5 else "good"
        rows.append(
            {
                "customer_id": f"CU-{50001 + i}",
                "name": name,
                "email": f"{name.lower().replace(' ', '.')}@example.com",
                "phone": f"+1 555 01{r.randint(10, 99)} {r.randint(1000, 9999)}",
                "segment": "premier" if i % 7 == 0 else "everyday",
                "standing": standing,
                "fee_waivers_12m": 1 if i % 3 == 1 else 0,
                "customer_since": (TODAY - timedelta(days=r.randint(200, 5000))).isoformat(),
            }
        )
        if standing == "fraud_hold":
            rows[-1]["note"] = "Account under fraud review; only the fraud team may act on it"
    return rows


def cards(r: random.Random, custs: list[dict]) -> list[dict]:
    statuses = ["active"] * 52 + ["frozen"] * 8 + ["blocked"] * 10 + ["closed"] * 6
    r.shuffle(statuses)
    rows = []
    for i, status in enumerate(statuses):
        cust = custs[i % len(custs)]
        rows.append(
            {
                "card_id": f"CD-{70001 + i}",
                "customer_id": cust["customer_id"],
                "product": "credit" if i % 3 == 0 else "debit",
                "last4": f"{r.randint(0, 9999):04d}",
                "status": status,
                "expires": f"{r.randint(1, 12):02d}/{r.choice([27, 28, 29, 30])}",
            }
        )
    return rows


def transactions(r: random.Random, card_rows: list[dict]) -> list[dict]:
    plan = ["posted_recent"] * 60 + ["posted_old"] * 14 + ["pending"] * 14 + ["disputed"] * 10 + ["fee"] * 22
    r.shuffle(plan)
    rows = []
    for i, kind in enumerate(plan):
        card = card_rows[(i * 5) % len(card_rows)]
        if kind == "fee":
            merchant, amount = r.choice(FEES)
            category, channel = "fee", "bank"
        else:
            merchant, category, (lo, hi) = r.choice(MERCHANTS)
            amount = round(r.uniform(lo, hi), 2) if category != "atm" else float(r.choice(range(lo, hi, 20)))
            channel = "atm" if category == "atm" else r.choice(["chip_pin", "contactless", "online", "online"])
        age = {
            "posted_recent": r.randint(1, 110),
            "posted_old": r.randint(125, 400),
            "pending": 0,
            "disputed": r.randint(5, 60),
            "fee": r.randint(1, 90),
        }[kind]
        status = {"pending": "pending", "disputed": "disputed"}.get(kind, "posted")
        rows.append(
            {
                "txn_id": f"TX-{880101 + 3 * i}",
                "card_id": card["card_id"],
                "date": (TODAY - timedelta(days=age + (1 if status == "pending" else 2))).isoformat(),
                "merchant": merchant,
                "amount": amount,
                "currency": "USD",
                "category": category,
                "channel": channel,
                "status": status,
                "days_since_posted": age,
            }
        )
        if status == "disputed":
            rows[-1]["note"] = f"Dispute opened {(TODAY - timedelta(days=age - 2)).isoformat()}; decision due within 45 days"
    return rows


def main() -> None:
    r = random.Random(20261121)
    custs = customers(r)
    card_rows = cards(r, custs)
    txns = transactions(r, card_rows)
    text = yaml.safe_dump(
        {"customers": custs, "cards": card_rows, "transactions": txns}, sort_keys=False, allow_unicode=True, width=120
    )
    OUT.write_text("# Generated by scripts/gen_world_banking.py; edit the script, not this file.\n" + text)
    print(f"wrote {OUT} ({len(txns)} transactions, {len(card_rows)} cards, {len(custs)} customers)")


if __name__ == "__main__":
    main()
