"""Regenerate sops/logistics/world.yaml: Meridian Parcel's seeded shipments and shippers.

Deterministic (fixed seed). Run: python scripts/gen_world_logistics.py
cases.jsonl refers to these tracking numbers, so re-synthesize the suite after regenerating:
sage-desk synthesize logistics --per-path 3 --seed 7 --out sops/logistics/cases.jsonl
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from pathlib import Path

import yaml

OUT = Path(__file__).resolve().parents[1] / "sops" / "logistics" / "world.yaml"
TODAY = date(2026, 11, 20)
SEED = 4172

SHIPPERS = [
    ("Northwind Outfitters", True),
    ("Bluebell Books", False),
    ("Kiln & Crane Ceramics", False),
    ("Volt Audio Supply", True),
    ("Harvest Table Meal Kits", False),
    ("Pinecrest Pharmacy", False),
    ("Lumen Home Lighting", True),
    ("Stride Running Co.", False),
    ("Tessellate Board Games", True),
    ("Copperleaf Tea", False),
    ("Atlas Camera Exchange", False),
    ("Marigold Baby", True),
]
FIRST = [
    "Ava",
    "Ben",
    "Carmen",
    "Dev",
    "Elif",
    "Felix",
    "Gita",
    "Hamza",
    "Ines",
    "Jack",
    "Keiko",
    "Luca",
    "Mira",
    "Nate",
    "Oona",
    "Pablo",
    "Quinn",
    "Rosa",
    "Sami",
    "Tara",
    "Umar",
    "Vera",
    "Wes",
    "Yara",
]
LAST = [
    "Alvarez",
    "Brooks",
    "Chowdhury",
    "Dubois",
    "Eriksen",
    "Farah",
    "Gallagher",
    "Ito",
    "Jovanovic",
    "Kaur",
    "Lambert",
    "Mwangi",
    "Nilsen",
    "O'Brien",
    "Pereira",
    "Quist",
    "Rossi",
    "Sato",
    "Thorne",
]
STREETS = [
    "Alder Street",
    "Beacon Road",
    "Canal Walk",
    "Dover Lane",
    "Fairview Avenue",
    "Granite Way",
    "Holloway Drive",
    "Juniper Court",
    "Kestrel Row",
    "Linden Boulevard",
]
CITIES = [
    ("Columbus", "OH", "432"),
    ("Nashville", "TN", "372"),
    ("Sacramento", "CA", "958"),
    ("Pittsburgh", "PA", "152"),
    ("Tucson", "AZ", "857"),
    ("Madison", "WI", "537"),
    ("Richmond", "VA", "232"),
    ("Spokane", "WA", "992"),
]
HUBS = ["Memphis TN hub", "Louisville KY hub", "Indianapolis IN hub", "Reno NV hub", "Allentown PA hub"]
CONTENTS = [
    ("Running shoes", 140),
    ("Board game", 65),
    ("Hardcover books (3)", 78),
    ("Ceramic dinner set", 310),
    ("Studio headphones", 420),
    ("Mirrorless camera body", 1850),
    ("Vintage lens kit", 3200),
    ("Pendant lamp", 260),
    ("Loose-leaf tea selection", 48),
    ("Baby carrier", 189),
    ("Prescription refill (non-controlled)", 35),
    ("Professional cinema camera", 6400),
]
EXCEPTIONS = [
    "No one available to sign; card left",
    "Building access code required and not provided",
    "Business closed at time of delivery",
    "Address incomplete: apartment number missing",
    "Held at depot: recipient requested pickup but did not collect",
]
LEFT = ["front door", "reception desk", "neighbour at the next door", "parcel locker", "side porch", "mailroom"]
# (status, count, gap range, share stuck ten days or more)
PLAN = [
    ("label_created", 10, (0, 3), 0.0),
    ("in_transit", 26, (0, 2), 0.45),
    ("out_for_delivery", 9, (0, 0), 0.0),
    ("delivery_exception", 14, (0, 4), 0.35),
    ("delivered", 24, (0, 6), 0.0),
    ("returned_to_sender", 7, (1, 6), 0.0),
]


def shippers() -> list[dict]:
    rows = []
    for i, (name, allows) in enumerate(SHIPPERS):
        slug = "".join(c for c in name.lower() if c.isalnum())[:28]
        rows.append(
            {
                "shipper_id": f"SH-{101 + i * 17}",
                "name": name,
                "email": f"shipping@{slug}.example.com",
                "allows_recipient_change": allows,
                "account_since": (TODAY - timedelta(days=200 + i * 97)).isoformat(),
            }
        )
    return rows


def shipment(r: random.Random, n: int, status: str, gap: int, shipper: dict) -> dict:
    name = f"{r.choice(FIRST)} {r.choice(LAST)}"
    city, state, zip3 = r.choice(CITIES)
    contents, value = r.choice(CONTENTS)
    insured = value >= 250 and r.random() < 0.75 or r.random() < 0.2
    express = r.random() < 0.35
    scan = TODAY - timedelta(days=gap)
    row = {
        "tracking_number": f"MP{4820000000 + n * 7919:010d}",
        "recipient_name": name,
        "recipient_email": f"{name.lower().replace(' ', '.').replace(chr(39), '')}@example.com",
        "delivery_address": f"{name}, {r.randint(3, 990)} {r.choice(STREETS)}, {city}, {state} {zip3}{r.randint(10, 99)}",
        "shipper_id": shipper["shipper_id"],
        "service": "express" if express else "standard",
        "status": status,
        "last_scan_at": f"{scan.isoformat()}T{r.randint(6, 20):02d}:{r.randint(0, 59):02d}",
        "last_scan_location": r.choice(HUBS),
        "days_since_last_scan": gap,
        "days_late": 0,
        "weight_kg": round(r.uniform(0.3, 14.0), 1),
        "contents": contents,
        "declared_value": float(value),
        "insured": insured,
        "redelivery_booked": False,
        "claim_filed": False,
    }
    late = gap >= 10 or (status in ("in_transit", "delivery_exception", "delivered") and r.random() < 0.4)
    if late and status != "label_created":
        row["days_late"] = max(1, gap - 2) if gap >= 10 else r.randint(1, 3)
    if status == "label_created":
        row["last_scan_location"] = f"Label created by {shipper['name']}"
    elif status == "out_for_delivery":
        row["last_scan_location"] = f"{city} delivery station, on vehicle"
    elif status == "delivery_exception":
        row["exception_reason"] = r.choice(EXCEPTIONS)
        row["last_scan_location"] = f"{city} delivery station"
    elif status == "delivered":
        row["delivered_at"] = row["last_scan_at"]
        row["last_scan_location"] = city
        if r.random() < 0.4:
            row["delivered_to"] = "signed for at the door"
            row["pod_signed_by"] = name.split()[-1].upper()
        else:
            row["delivered_to"] = r.choice(LEFT)
    elif status == "returned_to_sender":
        row["last_scan_location"] = f"Returned to {shipper['name']}"
    return row


def main() -> None:
    r = random.Random(SEED)
    ships = shippers()
    rows, n = [], 0
    for status, count, (lo, hi), stuck in PLAN:
        for i in range(count):
            n += 1
            gap = r.randint(10, 24) if i < round(count * stuck) else r.randint(lo, hi)
            rows.append(shipment(r, n, status, gap, ships[(n * 5) % len(ships)]))
    r.shuffle(rows)
    header = "# Generated by scripts/gen_world_logistics.py; edit the script, not this file.\n"
    text = yaml.safe_dump({"shippers": ships, "shipments": rows}, sort_keys=False, allow_unicode=True, width=120)
    OUT.write_text(header + text, encoding="utf-8")
    print(f"wrote {len(ships)} shippers and {len(rows)} shipments to {OUT}")


if __name__ == "__main__":
    main()
