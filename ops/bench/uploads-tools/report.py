#!/usr/bin/env python3
"""The upload burst's table: per build, medians over the rounds, and the goodput ratio of this
build ("atelier") to each older one ("atelier@SHA").

usage: report.py RESULTS.jsonl
"""
import json
import statistics
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
systems = list(dict.fromkeys(row["system"] for row in rows))
columns = [
    ("accepted/s", "accepted_per_s", "{:,.0f}"),
    ("503 share", "refused_share", "{:.1%}"),
    ("p50 ms", "p50_ms", "{:,.1f}"),
    ("p99 ms", "p99_ms", "{:,.1f}"),
    ("503 p99 ms", "refused_p99_ms", "{:,.1f}"),
    ("resets", "resets", "{:,.0f}"),
    ("server CPU ms/accepted", "server_cpu_ms_per_accepted", "{:,.2f}"),
    ("PostgreSQL CPU ms/job", "pg_cpu_ms_per_job", "{:,.3f}"),
    ("xacts/job", "pg_xacts_per_job", "{:,.2f}"),
    ("WAL bytes/job", "wal_bytes_per_job", "{:,.0f}"),
]


def median(system, key):
    values = [row[key] for row in rows if row["system"] == system and row.get(key) is not None]
    return statistics.median(values) if values else None


print("| build | rounds | " + " | ".join(title for title, _, _ in columns) + " |")
print("|---|---:|" + "---:|" * len(columns))
for system in systems:
    cells = []
    for _, key, shape in columns:
        value = median(system, key)
        cells.append("–" if value is None else shape.format(value))
    rounds = sum(1 for row in rows if row["system"] == system)
    print(f"| {system} | {rounds} | " + " | ".join(cells) + " |")
print()
print("accepted/s per round: " + "; ".join(
    f"{system} " + ", ".join(f"{row['accepted_per_s']:,.0f}" for row in rows if row["system"] == system) for system in systems))
mine = median("atelier", "accepted_per_s")
for system in systems:
    if system != "atelier" and mine is not None and median(system, "accepted_per_s"):
        print(f"goodput atelier / {system}: {mine / median(system, 'accepted_per_s'):.2f}×")
