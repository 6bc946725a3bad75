#!/usr/bin/env python3
"""Prints Markdown tables from the JSON lines ops/bench/queue collected: each system's figure
per scenario and the atelier/peer ratio, claim latency by backlog, and enqueue jobs/s per shape
(jobs per call × producers). With several rounds (--rounds), each figure is the median of its
rounds, and the table says how many there were. Drain and sustained runs that carry PostgreSQL's
cost per job (queue-tools/pg_cost.py) get a table of their own. Usage: report.py RESULTS.jsonl"""
import json
import statistics
import sys

# scenario, field, unit, which way is better
METRICS = [
    ("drain", "jobs_per_second", "jobs/s", "higher"),
    ("sustained", "jobs_per_second", "jobs/s", "higher"),
    ("pickup", "p50_ms", "ms", "lower"),
    ("pickup", "p95_ms", "ms", "lower"),
    ("pickup", "p99_ms", "ms", "lower"),
    ("crash", "seconds_to_rerun", "s", "lower"),
]


def label(row):
    """A peer's run with non-default settings is its own column, "<system> (tuned)"."""
    return row["system"] + (" (tuned)" if row.get("settings") else "")


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip().startswith("{")]
    # A peer may report a scenario twice (defaults, then a tuned setting); keep both, labelled.
    # Rounds of one (scenario, system) are folded into their medians.
    runs = {}
    for row in rows:
        runs.setdefault((row["scenario"], label(row)), []).append(row)
    by_key = {key: median_row(group) for key, group in runs.items()}
    rounds = max((len(group) for key, group in runs.items() if key[0] in ("drain", "sustained", "pickup")), default=1)
    if rounds > 1:
        print(f"Medians of {rounds} rounds.\n")
    systems = []
    for row in rows:
        system = label(row)
        if system not in systems:
            systems.append(system)
    peers = [s for s in systems if s != "atelier"]

    header = ["scenario", "metric", "better"] + systems + [f"atelier/{p}" for p in peers]
    if any(by_key.get((scenario, s), {}).get(field) is not None
           for scenario, field, _, _ in METRICS for s in systems):
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    for scenario, field, unit, better in METRICS:
        values = {s: by_key.get((scenario, s), {}).get(field) for s in systems}
        if all(v is None for v in values.values()):
            continue
        cells = [scenario, f"{field} ({unit})", better]
        cells += ["—" if values[s] is None else f"{values[s]:g}" for s in systems]
        mine = values.get("atelier")
        for peer in peers:
            theirs = values[peer]
            ok = mine is not None and theirs not in (None, 0)
            cells.append(f"{mine / theirs:.2f}" if ok else "—")
        print("| " + " | ".join(cells) + " |")

    cost_table(by_key, systems)
    depths = [r for r in rows if r["scenario"] == "claim-latency"]
    if depths:
        print()
        print("| claim latency, queued jobs | p50 ms | p99 ms |")
        print("|---|---|---|")
        for row in depths:
            print(f"| {row['queued']:,} | {row['p50_ms']:g} | {row['p99_ms']:g} |")
    enqueue_table(rows, [s for s in systems if any(r["scenario"] == "enqueue" and label(r) == s for r in rows)])
    noisy_table(rows)
    limits_table(rows)
    notes = [r for r in rows if r.get("note") or r.get("settings")]
    if notes:
        print()
        for row in notes:
            print(f"- {label(row)} {row['scenario']}: {row.get('note') or ''} {row.get('settings') or ''}".rstrip())


def median_row(group):
    """One row standing for a scenario's rounds: each numeric field's median."""
    row = dict(group[0])
    for key, value in group[0].items():
        values = [r.get(key) for r in group]
        if isinstance(value, (int, float)) and not isinstance(value, bool) and all(isinstance(v, (int, float)) for v in values):
            row[key] = statistics.median(values)
    return row


COSTS = [
    ("pg_cpu_us_per_job", "PostgreSQL CPU µs"),
    ("client_cpu_us_per_job", "workers' and harness's CPU µs"),
    ("xacts_per_job", "transactions"),
    ("rows_per_job", "rows written"),
    ("non_hot_updates_per_job", "updates not HOT"),
    ("wal_bytes_per_job", "WAL bytes"),
]


def cost_table(by_key, systems):
    """What PostgreSQL spent per job in the drain and sustained runs (medians), per system, and the
    functions that took the most self time in atelier's drain."""
    cells = [(scenario, s) for scenario in ("drain", "sustained") for s in systems
             if by_key.get((scenario, s), {}).get("pg_cpu_us_per_job") is not None]
    if not cells:
        return
    print()
    print("| per job | " + " | ".join(f"{s} {scenario}" for scenario, s in cells) + " |")
    print("|---|" + "---|" * len(cells))
    for field, name in COSTS:
        print(f"| {name} | " + " | ".join(f"{by_key[c].get(field, 0):g}" for c in cells) + " |")
    for scenario, system in cells:
        functions = by_key[(scenario, system)].get("functions") or {}
        top = sorted(functions.items(), key=lambda kv: -kv[1]["us_per_job"])[:6]
        if top:
            print(f"\n{system} {scenario}, self time per job: " +
                  ", ".join(f"{name} {f['us_per_job']:g} µs ({f['calls_per_job']:g} calls)" for name, f in top))


def noisy_table(rows):
    """The noisy-neighbour scenario: owner B's waits behind owner A's backlog, per system and
    fair-share setting, in milliseconds and in job lengths (the goal: p99 ≤ 2 with fair share)."""
    noisy = [r for r in rows if r["scenario"] == "noisy-neighbour"]
    if not noisy:
        return
    print()
    print("| noisy neighbour | fair share | B p50 ms | B p99 ms | B max ms | B p99 in job lengths |")
    print("|---|---|---|---|---|---|")
    for row in noisy:
        print(f"| {label(row)} | {'on' if row['fair_share'] else 'off'} | {row['b_p50_ms']:g} | {row['b_p99_ms']:g}"
              f" | {row['b_max_ms']:g} | {row['b_p99_in_jobs']:g} |")
    first = noisy[0]
    print(f"\n{first['backlog']:,} jobs of owner A, then {first['newcomers']} of owner B one every "
          f"{first['interval_ms']:g} ms; jobs of {first['job_ms']:g} ms; {first['workers']} workers × {first['concurrency']}.")


def limits_table(rows):
    """The limits scenario: one kind under a concurrency limit (and, where the system has one, a
    rate limit) across worker processes; the highest number running the database showed (must
    not pass the limit), and the rate of starts (overall, and after the first burst)."""
    limited = [r for r in rows if r["scenario"] == "limits"]
    if not limited:
        return
    print()
    print("| limits | concurrency limit | highest seen | rate limit | starts/s | late half starts/s | busiest second | largest excess over rate × T (≤ N) | seconds |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in limited:
        def cell(key):
            return "—" if row.get(key) is None else f"{row[key]:g}"
        print(f"| {label(row)} | {row['concurrency_limit']} | {row['max_running_seen']} | {row.get('rate_limit') or '— (none offered)'}"
              f" | {cell('starts_per_s')} | {cell('late_half_starts_per_s')} | {cell('busiest_second_starts')} | {cell('largest_excess_over_rate')} | {row['seconds']:g} |")
    first = limited[0]
    print(f"\n{first['jobs']:,} jobs of {first['job_ms']:g} ms; {first['workers']} workers × {first['concurrency']}; "
          "running jobs sampled from the database every 2 ms.")


def enqueue_table(rows, systems):
    """The enqueue scenario: jobs inserted per second for each shape (batch × producers), each
    system's figure and the atelier/peer ratio (higher is better)."""
    shapes = {}
    for row in rows:
        if row["scenario"] == "enqueue":
            shapes.setdefault((row["batch"], row["producers"]), {}).setdefault(label(row), row["jobs_per_second"])
    if not shapes:
        return
    peers = [s for s in systems if s != "atelier"]
    header = ["enqueue: jobs per call", "producers"] + [f"{s} jobs/s" for s in systems] + [f"atelier/{p}" for p in peers]
    print()
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for (batch, producers), values in sorted(shapes.items()):
        cells = [str(batch), str(producers)]
        cells += ["—" if values.get(s) is None else f"{values[s]:g}" for s in systems]
        mine = values.get("atelier")
        for peer in peers:
            theirs = values.get(peer)
            ok = mine is not None and theirs not in (None, 0)
            cells.append(f"{mine / theirs:.2f}" if ok else "—")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
