"""Regenerate sops/northline/world.yaml: Northline's seeded orders and customers.

Deterministic (fixed seed). Run: python scripts/gen_northline_world.py
The output is data; cases.jsonl refers to its order numbers, so regenerate both together.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from pathlib import Path

import yaml

OUT = Path(__file__).resolve().parents[1] / "sops" / "northline" / "world.yaml"
TODAY = date(2026, 11, 20)

CATALOGUE = [
    ("Aeris Carry-On 55", "AER-CO55", 395.0, ["graphite", "sand", "navy"]),
    ("Aeris Check-In 75", "AER-CI75", 495.0, ["graphite", "sand", "navy"]),
    ("Meridian Weekender Duffel", "MER-WKD", 245.0, ["black", "olive", "tan"]),
    ("Transit Backpack 28L", "TRN-BP28", 189.0, ["black", "slate"]),
    ("Compression Packing Cubes (set of 3)", "PCK-CUB3", 59.0, ["grey", "teal"]),
    ("Voyager Toiletry Kit", "VOY-TKIT", 69.0, ["black", "cognac"]),
    ("Nomad Passport Wallet", "NMD-PSPT", 79.0, ["cognac", "black"]),
    ("Altitude Memory-Foam Neck Pillow", "ALT-PLW", 45.0, ["grey"]),
    ("Horizon Garment Bag", "HRZ-GRMT", 215.0, ["black", "navy"]),
    ("Summit Hardshell Trunk 85", "SUM-TRK85", 645.0, ["silver", "graphite"]),
]
FIRST = [
    "Maya",
    "Daniel",
    "Priya",
    "Tom",
    "Elena",
    "Marcus",
    "Aisha",
    "Jonas",
    "Sofia",
    "Liam",
    "Hannah",
    "Kenji",
    "Olivia",
    "Mateo",
    "Grace",
    "Noah",
    "Fatima",
    "Ethan",
    "Chloe",
    "Ravi",
    "Isabel",
    "Owen",
    "Leah",
    "Victor",
    "Nadia",
    "Samuel",
    "Zoe",
    "Andre",
    "Claire",
    "Hugo",
]
LAST = [
    "Fischer",
    "Okafor",
    "Raman",
    "Whitfield",
    "Moreau",
    "Lindqvist",
    "Haddad",
    "Brennan",
    "Castillo",
    "Nakamura",
    "Adeyemi",
    "Kowalski",
    "Sullivan",
    "Duarte",
    "Petrov",
    "Greene",
    "Bianchi",
    "Yilmaz",
    "Chen",
    "Novak",
    "Ortega",
    "Hughes",
    "Tanaka",
    "Schmidt",
    "Mensah",
]
STREETS = [
    "Maple Avenue",
    "Harbor Street",
    "Cedar Lane",
    "Lakeview Drive",
    "Mill Road",
    "Park Place",
    "Orchard Way",
    "Bayshore Boulevard",
    "Willow Court",
    "Summit Ridge Road",
    "Elm Street",
    "Pine Hollow",
]
CITIES = [
    ("Portland", "OR", "972"),
    ("Austin", "TX", "787"),
    ("Denver", "CO", "802"),
    ("Boston", "MA", "021"),
    ("Seattle", "WA", "981"),
    ("Chicago", "IL", "606"),
    ("Atlanta", "GA", "303"),
    ("San Diego", "CA", "921"),
    ("Minneapolis", "MN", "554"),
    ("Raleigh", "NC", "276"),
]
CARRIERS = {
    "UPS": lambda r: "1Z" + "".join(r.choice("0123456789ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(16)),
    "FedEx": lambda r: "".join(r.choice("0123456789") for _ in range(12)),
    "USPS": lambda r: "9400" + "".join(r.choice("0123456789") for _ in range(18)),
}
STATUSES = (
    ["processing"] * 50
    + ["shipped"] * 30
    + ["in_transit"] * 40
    + ["delivered"] * 80
    + ["lost"] * 15
    + ["returned"] * 12
    + ["cancelled"] * 13
)


def address(r: random.Random, name: str) -> str:
    city, state, zip3 = r.choice(CITIES)
    return f"{name}, {r.randint(12, 980)} {r.choice(STREETS)}, {city}, {state} {zip3}{r.randint(10, 99)}, USA"


def customers(r: random.Random) -> list[dict]:
    rows = []
    for i in range(120):
        name = f"{FIRST[i % len(FIRST)]} {LAST[(i * 7) % len(LAST)]}"
        claims = 0
        if i % 10 == 3:
            claims = r.choice([2, 3, 4])
        elif i % 6 == 1:
            claims = 1
        row = {
            "customer_id": f"C-{2001 + i}",
            "name": name,
            "email": f"{name.lower().replace(' ', '.')}@example.com",
            "vip": i % 8 == 0,
            "claims_last_year": claims,
            "customer_since": (TODAY - timedelta(days=r.randint(60, 2400))).isoformat(),
        }
        if claims >= 2:
            row["note"] = f"{claims} delivery or damage claims in the last 12 months"
        rows.append(row)
    return rows


def order(r: random.Random, n: int, status: str, cust: dict) -> dict:
    placed = TODAY - timedelta(
        days={"processing": r.randint(0, 2), "shipped": r.randint(2, 4), "in_transit": r.randint(3, 7)}.get(
            status, r.randint(8, 60)
        )
    )
    items = []
    for product, sku, price, colours in r.sample(CATALOGUE, r.choice([1, 1, 1, 2, 2, 3])):
        colour = r.choice(colours)
        items.append({"name": f"{product} ({colour})", "variant_id": f"{sku}-{colour[:3].upper()}", "qty": 1, "price": price})
    row = {
        "order_id": f"NL-{n}",
        "customer_id": cust["customer_id"],
        "placed_at": placed.isoformat(),
        "status": status,
        "items": items,
        "total": round(sum(i["price"] for i in items), 2),
        "currency": "USD",
        "shipping_address": address(r, cust["name"]),
    }
    if status != "processing" and status != "cancelled":
        carrier = r.choice(sorted(CARRIERS))
        shipped = placed + timedelta(days=1)
        row.update(carrier=carrier, tracking_number=CARRIERS[carrier](r), shipped_at=shipped.isoformat())
        if status in ("delivered", "returned"):
            row["delivered_at"] = (shipped + timedelta(days=r.randint(2, 5))).isoformat()
            row["delivery_note"] = r.choice(
                [
                    "Left at front door",
                    "Handed to resident",
                    "Left with concierge",
                    "Left in parcel locker",
                    "Signed for by customer",
                ]
            )
        if status == "lost":
            row["delivery_note"] = "Carrier reports the parcel lost in transit"
    return row


def main() -> None:
    r = random.Random(20261120)
    custs = customers(r)
    statuses = STATUSES[:]
    r.shuffle(statuses)
    orders = [order(r, 10400 + 7 * i + r.randint(0, 6), s, custs[(i * 11) % len(custs)]) for i, s in enumerate(statuses)]
    text = yaml.safe_dump({"customers": custs, "orders": orders}, sort_keys=False, allow_unicode=True, width=120)
    OUT.write_text("# Generated by scripts/gen_northline_world.py; edit the script, not this file.\n" + text)
    print(f"wrote {OUT} ({len(orders)} orders, {len(custs)} customers)")


if __name__ == "__main__":
    main()
