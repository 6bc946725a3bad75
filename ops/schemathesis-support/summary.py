"""./ops/schemathesis's closing summary, from schemathesis's JSON run report."""

import json
import pathlib
import sys

folder = pathlib.Path(sys.argv[1])
reports = sorted(folder.glob("*.json"))
if not reports:
    print("schemathesis wrote no run report (see its output above)")
    sys.exit(1)
report = json.loads(reports[-1].read_text())
operations = report.get("operations") or {}
cases = report.get("test_cases") or {}
failures = report.get("failures") or []
errors = report.get("errors") or []
unique = cases.get("unique_failures", sum(group.get("count", 0) for group in failures))
print()
print("── schemathesis summary " + "─" * 56)
print(f"  operations: {operations.get('tested', '?')} tested of {operations.get('selected', '?')} selected"
      f" ({operations.get('total', '?')} in the document); errored {operations.get('errored', 0)}, skipped {operations.get('skipped', 0)}")
print(f"  cases: {cases.get('generated', '?')} generated, {cases.get('with_failures', 0)} with failures;"
      f" {unique} unique failure(s), {len(errors)} error group(s)")
phases = report.get("phases") or {}
if phases:
    print("  phases: " + ", ".join(f"{name} {value.get('status')}" for name, value in phases.items()))
print(f"  seed {report.get('seed')}, {report.get('running_time', 0):.0f} s, stopped: {report.get('stop_reason')}")
for group in failures:
    print(f"  FAIL {group.get('title')} ×{group.get('count')}: {', '.join(group.get('operations') or [])}")
for group in errors:
    print(f"  ERROR {group.get('title')} ×{group.get('count')}")
print(f"  {0 if not failures and not errors else unique + len(errors)} failure(s)" + ("" if failures or errors else ": the API matches its document"))
