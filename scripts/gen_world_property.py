"""Regenerate sops/property/world.yaml: Harborview Residential's seeded units and tenancies.

Deterministic (fixed seed). Run: python scripts/gen_world_property.py
cases.jsonl refers to these tenancy ids, so re-synthesize the suite after regenerating:
sage-desk synthesize property --per-path 3 --seed 7 --out sops/property/cases.jsonl
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from pathlib import Path

import yaml

OUT = Path(__file__).resolve().parents[1] / "sops" / "property" / "world.yaml"
TODAY = date(2026, 11, 20)
SEED = 2719

BUILDINGS = [  # (building, street address, unit type, units, heating, gas)
    ("Harborview Lofts", "410 Quay Street", "apartment", 16, "district_heat", False),
    ("Maple Court", "88 Maple Avenue", "apartment", 14, "gas_boiler", True),
    ("The Foundry", "1200 Forge Road", "studio", 10, "electric", False),
    ("Linden Terrace", "Linden Terrace", "townhouse", 10, "gas_boiler", True),
    ("Riverside Gardens", "Riverside Gardens", "apartment", 12, "heat_pump", False),
    ("Scattered homes", "", "house", 12, "gas_boiler", True),
]
HOUSE_STREETS = ["Oak Hollow Lane", "Birch Street", "Cove Road", "Heron Way", "Sparrow Drive", "Willow Bend"]
FIRST = [
    "Amara",
    "Bilal",
    "Chiara",
    "Dmitri",
    "Esme",
    "Farid",
    "Greta",
    "Hiro",
    "Isla",
    "Jamal",
    "Kira",
    "Leon",
    "Maeve",
    "Nikhil",
    "Odile",
    "Piotr",
    "Rania",
    "Soren",
    "Tess",
    "Uche",
    "Valentina",
    "Wanjiru",
    "Xavier",
    "Yusuf",
]
LAST = [
    "Abbott",
    "Banerjee",
    "Costa",
    "Delacroix",
    "Eze",
    "Fontaine",
    "Grant",
    "Hassan",
    "Ivanova",
    "Jensen",
    "Kowalczyk",
    "Lindgren",
    "Murphy",
    "Nkosi",
    "Ochoa",
    "Park",
    "Reyes",
    "Singh",
    "Tremblay",
    "Vance",
]
PURPOSES = [
    "Annual gas safety inspection",
    "Smoke and CO alarm test",
    "Contractor: replace bathroom extractor fan",
    "Contractor: repair window latch",
    "Pre-renewal condition inspection",
    "Pest control treatment",
    "Viewing for prospective tenants (lease ending)",
]


def units(r: random.Random) -> list[dict]:
    rows = []
    for b, (building, street, kind, count, heating, gas) in enumerate(BUILDINGS):
        for i in range(count):
            if kind == "house":
                address = f"{r.randint(5, 480)} {r.choice(HOUSE_STREETS)}, Portland, ME 041{r.randint(0, 9)}{r.randint(0, 9)}"
                name = "Single-family house"
            elif kind == "townhouse":
                address, name = f"{i + 1} {street}, Portland, ME 04101", building
            else:
                address, name = f"Apt {100 * (1 + i // 4) + i % 4 + 1}, {street}, Portland, ME 04101", building
            rows.append(
                {
                    "unit_id": f"U-{1000 + b * 100 + i + 1}",
                    "address": address,
                    "unit_type": kind,
                    "building": name,
                    "bedrooms": 0 if kind == "studio" else r.randint(1, 4),
                    "heating": heating,
                    "has_gas_supply": gas,
                }
            )
    return rows


def visit(r: random.Random, row: dict, i: int) -> None:
    choice = i % 5
    if choice in (0, 1):
        row.update(visit_status="none", visit_notice_hours=0)
        return
    status = "confirmed" if choice == 4 else "proposed"
    notice = r.choice([4, 12, 18]) if i % 7 == 3 else r.choice([24, 48, 72, 96])
    when = TODAY + timedelta(days=max(1, notice // 24))
    row.update(
        visit_status=status,
        visit_purpose=r.choice(PURPOSES),
        visit_at=f"{when.isoformat()} {r.choice(['09:00-12:00', '13:00-16:00', '10:00-11:00'])}",
        visit_notice_hours=notice,
    )


def tenancy(r: random.Random, n: int, unit: dict) -> dict:
    name = f"{FIRST[n % len(FIRST)]} {LAST[(n * 7) % len(LAST)]}"
    rent = {"studio": 1150, "apartment": 1650, "townhouse": 2200, "house": 2600}[unit["unit_type"]] + 50 * r.randint(0, 8)
    start = TODAY - timedelta(days=r.randint(60, 2200))
    status = ["active"] * 6 + ["periodic"] * 2 + ["notice_given"] + ["ended"]
    lease = status[n % len(status)]
    row = {
        "tenancy_id": f"T-{30000 + n * 37}",
        "tenant_name": name,
        "tenant_email": f"{name.lower().replace(' ', '.')}@example.com",
        "unit_id": unit["unit_id"],
        "occupants": [name] + ([f"{r.choice(FIRST)} {name.split()[1]}"] if r.random() < 0.4 else []),
        "lease_status": lease,
        "lease_start": start.isoformat(),
        "monthly_rent": float(rent),
        "arrears_balance": 0.0,
        "late_fee_balance": 0.0,
        "late_fee_waivers_last_12m": 0,
    }
    if lease in ("notice_given", "ended"):
        row["lease_end"] = (TODAY + timedelta(days=20 if lease == "notice_given" else -r.randint(10, 90))).isoformat()
    money = n % 6
    if money in (1, 2):  # a late fee on a rent account now paid up
        row["late_fee_balance"] = 75.0
    if money == 2 or n % 11 == 0:
        row["late_fee_waivers_last_12m"] = 1
    if money in (3, 4):  # rent still owing, usually with a late fee
        row["arrears_balance"] = float(rent * r.choice([0.5, 1, 1.5, 2]))
        row["late_fee_balance"] = 75.0 if money == 3 else 150.0
    if lease == "ended":
        row.update(visit_status="none", visit_notice_hours=0, note="Keys returned; deposit being settled")
    else:
        visit(r, row, n)
    return row


def main() -> None:
    r = random.Random(SEED)
    unit_rows = units(r)
    rows = [tenancy(r, n + 1, unit) for n, unit in enumerate(unit_rows)]
    header = "# Generated by scripts/gen_world_property.py; edit the script, not this file.\n"
    text = yaml.safe_dump({"units": unit_rows, "tenancies": rows}, sort_keys=False, allow_unicode=True, width=120)
    OUT.write_text(header + text, encoding="utf-8")
    print(f"wrote {len(unit_rows)} units and {len(rows)} tenancies to {OUT}")


if __name__ == "__main__":
    main()
