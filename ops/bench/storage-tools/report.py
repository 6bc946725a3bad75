"""Prints ./ops/bench/storage's table from its results file, with s3/local ratios."""
import json, sys

rows = {}
for line in open(sys.argv[1]):
    row = json.loads(line)
    rows[(row["scenario"], row["store"])] = row
print()
print("| scenario | local p50 ms | local p99 ms | s3 p50 ms | s3 p99 ms | s3/local p50 | s3/local p99 |")
print("|---|---:|---:|---:|---:|---:|---:|")
names = {"stylize": "stylize job, POST → `succeeded` (one at a time)", "download": "result download from `result_url`"}
for scenario in ("stylize", "download"):
    local, s3 = rows.get((scenario, "local")), rows.get((scenario, "s3"))
    if not local or not s3:
        continue
    print(f"| {names[scenario]} | {local['p50_ms']} | {local['p99_ms']} | {s3['p50_ms']} | {s3['p99_ms']} "
          f"| {s3['p50_ms'] / local['p50_ms']:.2f} | {s3['p99_ms'] / local['p99_ms']:.2f} |")
for (scenario, store), row in sorted(rows.items()):
    if scenario == "download":
        print(f"download ({store}): {row['bytes']} bytes {row['content_type']} from {row['from']}")
stylize = rows.get(("stylize", "local")), rows.get(("stylize", "s3"))
if all(stylize):
    ratio = stylize[1]["p50_ms"] / stylize[0]["p50_ms"]
    print(f"goal: the S3 store adds ≤ 10 % at p50 to a stylize job — {'met' if ratio <= 1.10 else 'NOT met'} ({(ratio - 1) * 100:+.1f} %)")
