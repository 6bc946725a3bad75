#!/usr/bin/env python3
"""Prints Markdown tables from the JSON lines ops/bench/image collected: per thread count, each
system's median ms per op and the atelier/peer ratios (< 1: Atelier is faster), then the goals.
Usage: image_report.py RESULTS.jsonl"""
import json
import sys

STYLES = ["cartoon", "sketch", "watercolor", "pop_art", "comic"]
OPS = (["decode", "pipeline"] + [f"style:{s}" for s in STYLES] + [f"stylize:{s}" for s in STYLES]
       + ["color:transform", "color:job_decode", "color:job_decode_ignored"] + [f"color:stylize:{s}" for s in STYLES]
       + ["variant:jpeg", "variant:webp", "variant:avif", "variant:webp_cover"])
COLOR_SHARE = 0.10        # color:transform (12 MP) ≤ 10 % of stylize:* at threads=2
PEERS = ["djpeg", "pillow", "pyvips", "opencv", "vipsthumbnail"]
STYLIZE_BUDGET_MS = 500   # stylize:* at threads=2
DECODE_VS_DJPEG = 1.2     # decode at threads=1


def ms(value):
    return "—" if value is None else f"{value:.1f}"


def ratio(mine, theirs):
    return None if mine is None or not theirs else mine / theirs


def fmt_ratio(value):
    return "—" if value is None else f"{value:.2f}"


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip().startswith("{")]
    # The first measurement of each (system, op, threads) counts; error lines are listed apart.
    median = {}
    for row in rows:
        if row.get("median_ms") is not None:
            median.setdefault((row["system"], row["op"], row["threads"]), row["median_ms"])
    systems = {row["system"] for row in rows}
    peers = [p for p in PEERS if p in systems] + sorted(systems - set(PEERS) - {"atelier"})
    ops = OPS + sorted({op for (_, op, _) in median} - set(OPS))
    thread_counts = sorted({row["threads"] for row in rows})
    get = lambda system, op, threads: median.get((system, op, threads))

    for threads in thread_counts:
        print(f"### threads = {threads} (median ms; atelier/peer < 1: Atelier is faster)\n")
        header = ["op", "atelier"] + peers + [f"atelier/{p}" for p in peers]
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for op in ops:
            values = {s: get(s, op, threads) for s in ["atelier"] + peers}
            if all(v is None for v in values.values()):
                continue
            cells = [op] + [ms(values[s]) for s in ["atelier"] + peers]
            cells += [fmt_ratio(ratio(values["atelier"], values[p])) for p in peers]
            print("| " + " | ".join(cells) + " |")
        print()

    # Goals: ✓ all checks met, ✗ one failed, — some data missing (and none failed).
    def goal(title, checks):
        """checks: [(label, passed or None, detail)]"""
        results = [passed for _, passed, _ in checks]
        mark = "✗" if False in results else ("—" if None in results or not checks else "✓")
        print(f"- {mark} {title}")
        for label, passed, detail in checks:
            print(f"  - {'—' if passed is None else '✓' if passed else '✗'} {label}: {detail}")

    print("### Goals\n")
    r = ratio(get("atelier", "decode", 1), get("djpeg", "decode", 1))
    goal(f"decode ≤ {DECODE_VS_DJPEG}× djpeg at threads=1",
         [("decode", None if r is None else r <= DECODE_VS_DJPEG,
           f"atelier {ms(get('atelier', 'decode', 1))} ms, djpeg {ms(get('djpeg', 'decode', 1))} ms, "
           f"ratio {fmt_ratio(r)}")])
    checks = []
    for style in STYLES:
        value = get("atelier", f"stylize:{style}", 2)
        checks.append((f"stylize:{style}", None if value is None else value <= STYLIZE_BUDGET_MS, f"{ms(value)} ms"))
    goal(f"stylize:* ≤ {STYLIZE_BUDGET_MS} ms at threads=2, every style", checks)
    checks = []
    for threads in thread_counts:
        for style in STYLES:
            r = ratio(get("atelier", f"style:{style}", threads), get("opencv", f"style:{style}", threads))
            checks.append((f"style:{style}, threads={threads}", None if r is None else r < 1,
                           f"atelier/opencv {fmt_ratio(r)}"))
    goal("every style:* faster than its OpenCV counterpart (ratio < 1)", checks)
    # Colour: what managing colour adds to a stylize job of a 12 MP photo (its decode with the
    # profile honoured minus ignored), as a share of the job; and, for the record, the transform
    # of the whole 12 MP picture against the job (no job transforms at full size).
    for threads in thread_counts:
        managed, ignored = get("atelier", "color:job_decode", threads), get("atelier", "color:job_decode_ignored", threads)
        added = None if managed is None or ignored is None else managed - ignored
        transform = get("atelier", "color:transform", threads)
        checks = []
        for style in STYLES:
            job = get("atelier", f"stylize:{style}", threads)
            share = ratio(added, job)
            checks.append((f"stylize:{style}", None if share is None else share <= COLOR_SHARE,
                           f"colour adds {ms(added)} ms to a {ms(job)} ms job = {fmt_ratio(share)}; "
                           f"the whole 12 MP transform ({ms(transform)} ms) would be {fmt_ratio(ratio(transform, job))}"))
        goal(f"colour management adds ≤ {COLOR_SHARE:.0%} to each stylize:* job of the 12 MP photo, threads={threads}", checks)

    # Variants (issue 34): the first rendering of a 512 px WebP and AVIF no slower than
    # vipsthumbnail's, at each thread count.
    checks = []
    for threads in thread_counts:
        for op in ["variant:webp", "variant:avif"]:
            r = ratio(get("atelier", op, threads), get("vipsthumbnail", op, threads))
            checks.append((f"{op}, threads={threads}", None if r is None else r <= 1,
                           f"atelier {ms(get('atelier', op, threads))} ms, vipsthumbnail {ms(get('vipsthumbnail', op, threads))} ms, "
                           f"ratio {fmt_ratio(r)}"))
    goal("a variant's first rendering ≤ vipsthumbnail's time", checks)

    errors = [row for row in rows if row.get("error")]
    if errors:
        print("\n### Errors\n")
        for row in errors:
            op = f" {row['op']}" if row.get("op") else ""
            print(f"- {row['system']}{op} threads={row.get('threads')}: {row['error']}")
    # What each system ran, once per (system, op): the note of its first measurement.
    notes, versions = {}, {}
    for row in rows:
        if row.get("note"):
            notes.setdefault((row["system"], row["op"]), row["note"])
        if row.get("version"):
            versions.setdefault(row["system"], row["version"])
    if notes:
        print("\n### What was measured\n")
        if versions:
            print("Versions: " + "; ".join(f"{s} {v}" for s, v in versions.items()) + "\n")
        for (system, op), note in notes.items():
            print(f"- {system} {op}: {note}")


if __name__ == "__main__":
    main(sys.argv[1])
