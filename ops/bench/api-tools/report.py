"""Prints the API benchmark's results as a table, with Atelier/nginx ratios."""
import json
import sys

rows = {}
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("{"):
        row = json.loads(line)
        rows[row["scenario"]] = row

print()
print(f"{'scenario':<22} {'req/s':>10} {'p50 ms':>9} {'p99 ms':>9}  statuses")
for name in ["atelier-get-200", "atelier-get-304", "atelier-post-200kb", "atelier-variant-cached", "nginx-get-200",
             "nginx-get-304", "nginx-variant", "floor-get-200", "floor-get-304", "floor-variant"]:
    r = rows.get(name)
    if r:
        print(f"{name:<22} {r['rps']:>10,.0f} {r['p50_ms']:>9.2f} {r['p99_ms']:>9.2f}  {r['statuses']}")
for kind in ["200", "304"]:
    a, n = rows.get(f"atelier-get-{kind}"), rows.get(f"nginx-get-{kind}")
    f = rows.get(f"floor-get-{kind}")
    if a and n:
        line = f"GET {kind}: atelier/nginx = {a['rps'] / n['rps']:.2f}×"
        if f:
            line += f", atelier/hummingbird-alone = {a['rps'] / f['rps']:.2f}×, hummingbird-alone/nginx = {f['rps'] / n['rps']:.2f}×"
        print(line)
a, n = rows.get("atelier-variant-cached"), rows.get("nginx-variant")
if a and n:
    ratio = a["rps"] / n["rps"]
    line = f"cached variant: atelier/nginx = {ratio:.2f}× (goal ≥ 0.5×: {'✓' if ratio >= 0.5 else '✗'})"
    f = rows.get("floor-variant")
    if f:
        line += f", atelier/hummingbird-alone = {a['rps'] / f['rps']:.2f}×, hummingbird-alone/nginx = {f['rps'] / n['rps']:.2f}×"
    print(line)
sse = rows.get("sse-idle")
if sse:
    print(f"SSE: {sse['ready']}/{sse['streams']} idle streams open, RSS {sse['rss_before_mb']} → "
          f"{sse['rss_after_mb']} MB = {sse['bytes_per_stream'] / 1024:.1f} KB per stream")
