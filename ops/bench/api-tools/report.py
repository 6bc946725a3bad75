"""Prints the API benchmark's results as a table, with Atelier/nginx ratios. Scenarios run in
rounds (`name#1`, `name#2`, …) are shown per round and compared by their mean."""
import json
import sys
from statistics import mean

rows = {}
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("{"):
        row = json.loads(line)
        rows[row["scenario"]] = row

print()
print(f"{'scenario':<26} {'req/s':>10} {'p50 ms':>9} {'p99 ms':>9}  statuses")
for name, r in rows.items():
    if "rps" in r:
        print(f"{name:<26} {r['rps']:>10,.0f} {r['p50_ms']:>9.2f} {r['p99_ms']:>9.2f}  {r['statuses']}")


def rate(name):
    """req/s of a scenario, or the mean over its rounds; None when it did not run."""
    if name in rows:
        return rows[name]["rps"]
    rounds = [r["rps"] for key, r in rows.items() if key.startswith(name + "#")]
    return mean(rounds) if rounds else None


for kind in ["200", "304"]:
    a, n, f = rate(f"atelier-get-{kind}"), rate(f"nginx-get-{kind}"), rate(f"floor-get-{kind}")
    if a and n:
        line = f"GET {kind}: atelier/nginx = {a / n:.2f}×"
        if f:
            line += f", atelier/hummingbird-alone = {a / f:.2f}×, hummingbird-alone/nginx = {f / n:.2f}×"
        print(line)
a, n, f = rate("atelier-variant-cached"), rate("nginx-variant"), rate("floor-variant")
if a and n:
    rounds = sorted(rows[f"atelier-variant-cached#{i}"]["rps"] / rows[f"nginx-variant#{i}"]["rps"]
                    for i in range(1, 10) if f"atelier-variant-cached#{i}" in rows and f"nginx-variant#{i}" in rows)
    line = f"cached variant (means): atelier/nginx = {a / n:.2f}× (goal ≥ 0.5×: {'✓' if a / n >= 0.5 else '✗'})"
    if rounds:
        line += f", rounds {rounds[0]:.2f}–{rounds[-1]:.2f}×"
    if f:
        line += (f"; atelier/hummingbird-alone = {a / f:.2f}× (goal ≥ 0.65×: {'✓' if a / f >= 0.65 else '✗'}), "
                 f"hummingbird-alone/nginx = {f / n:.2f}×")
    print(line)
first, broken, other = rows.get("variant-broken-first"), rows.get("atelier-variant-broken"), rows.get("variant-other-first")
if first and broken and other:
    print(f"broken thumbnail: first request {first['status']} in {first['ms']:.0f} ms (rendered once, in a worker); then "
          f"8 clients: p50 {broken['p50_ms']:.2f} ms (goal < 50 ms: {'✓' if broken['p50_ms'] < 50 else '✗'}), "
          f"{broken['rps']:,.0f} req/s, {broken['statuses']}; meanwhile another photo's first thumbnail "
          f"{other['status']} in {other['ms']:.0f} ms (goal < 1000 ms: {'✓' if other['ms'] < 1000 and other['status'] == 200 else '✗'})")
sse = rows.get("sse-idle")
if sse:
    print(f"SSE: {sse['ready']}/{sse['streams']} idle streams open, RSS {sse['rss_before_mb']} → "
          f"{sse['rss_after_mb']} MB = {sse['bytes_per_stream'] / 1024:.1f} KB per stream")
