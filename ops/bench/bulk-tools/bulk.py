"""One run of ./ops/bench/bulk: VARIANT (alone | bulk) ROUND HELD DRAIN; prints one JSON line.

A fresh database holds HELD queued jobs (queue `held`), HELD failed jobs (queue `old`) and DRAIN
no-op jobs (queue `drain`). Two worker processes × 16 serve only `drain`. In the `bulk` run, once
the drain has started, `atelier jobs cancel --where queue=held` and then `atelier jobs retry
--where queue=old --where state=failed` run (each --yes); the window is from the first action's
start to the second's end. In the `alone` run nothing else runs, and the window is the same
offsets from the drain's start (the previous `bulk` run's, else 2 s and 20 s). The drain's rate in
the window is the no-op jobs that succeeded in it over its length (polled every 100 ms).
"""
import json
import os
import subprocess
import sys
import time

variant, rnd, held, drain = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
PSQL = [os.path.join(os.environ["PG_BIN"], "psql"), "-qAt", "-v", "ON_ERROR_STOP=1"]
BIN = os.environ["ATELIER_BIN"]
DB = os.environ["DB_URL"]
WINDOW_FILE = "/tmp/atelier-bench-bulk-window.json"
# noop is a diagnostic kind: the workers run it only when told to.
env = dict(os.environ, ATELIER_DATABASE_URL=DB, ATELIER_LOG_LEVEL="error", ATELIER_DIAGNOSTIC_KINDS="true")


def sql(url, text):
    return subprocess.run(PSQL + [url, "-c", text], check=True, capture_output=True, text=True).stdout.strip()


sql(os.environ["ADMIN_URL"], "DROP DATABASE IF EXISTS bench_bulk WITH (FORCE)")
sql(os.environ["ADMIN_URL"], "CREATE DATABASE bench_bulk")
subprocess.run([BIN, "migrate"], env=env, check=True, capture_output=True)
# The held and failed jobs as an enqueue and a last failed attempt leave them; the drain's jobs
# through the enqueue itself (fair tags and counts as in production).
sql(DB, f"""INSERT INTO jobs (id, kind, queue, owner, fair_tag)
            SELECT atelier_uuid_v7(), 'noop', 'held', 'user:' || (i % 50), i FROM generate_series(1, {held}) i""")
sql(DB, f"""INSERT INTO jobs (id, kind, queue, owner, state, attempt, error, finished_at)
            SELECT atelier_uuid_v7(), 'noop', 'old', 'user:' || (i % 50), 'failed', 5, 'provider down', now()
              FROM generate_series(1, {held}) i""")
left = drain
while left > 0:
    n = min(left, 50000)
    subprocess.run([BIN, "jobs", "enqueue", "noop", "--queue", "drain", "--count", str(n)], env=env, check=True, capture_output=True)
    left -= n
sql(DB, "VACUUM ANALYZE jobs")


def done():
    return int(sql(DB, "SELECT count(*) FROM jobs WHERE queue = 'drain' AND state = 'succeeded'"))


workers = subprocess.Popen([BIN, "work", "--queues", "drain", "--processes", "2", "--concurrency", "16"],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
samples = []  # (seconds since the drain started, jobs done)
start = None
actions = {}
window = None
if variant == "alone" and os.path.exists(WINDOW_FILE):
    window = tuple(json.load(open(WINDOW_FILE)))
elif variant == "alone":
    window = (2.0, 20.0)
bulk_proc = None
launched = time.monotonic()
try:
    while True:
        now = time.monotonic()
        count = done()
        if start is None and count > 0:
            start = now
        if start is not None:
            samples.append((now - start, count))
            t = now - start
            if variant == "bulk" and bulk_proc is None and t >= 2.0:
                began = t
                script = (f"s=$(date +%s.%N); {BIN} jobs cancel --where queue=held --yes >/dev/null 2>&1; "
                          f"m=$(date +%s.%N); {BIN} jobs retry --where queue=old --where state=failed --yes >/dev/null 2>&1; "
                          f"e=$(date +%s.%N); echo $s $m $e")
                bulk_proc = subprocess.Popen(["bash", "-c", script], env=env, stdout=subprocess.PIPE, text=True)
            if bulk_proc is not None and "ended" not in actions and bulk_proc.poll() is not None:
                s, m, e = (float(x) for x in bulk_proc.stdout.read().split())
                if bulk_proc.returncode != 0:
                    raise SystemExit("a bulk action failed")
                actions = {"cancel": m - s, "retry": e - m, "ended": t}
                window = (began, t)
        if count >= drain:
            break
        if start is None and now - launched > 120:
            raise SystemExit("the workers did not start the drain within 120 s")
        if start is not None and now - start > 900:
            raise SystemExit("the drain did not finish in 900 s")
        time.sleep(0.1)
finally:
    workers.terminate()
    workers.wait()
if variant == "bulk":
    if "ended" not in actions:
        raise SystemExit("the drain ended before the bulk actions: raise DRAIN")
    json.dump(window, open(WINDOW_FILE, "w"))
    cancelled = int(sql(DB, "SELECT count(*) FROM jobs WHERE queue = 'held' AND state = 'cancelled'"))
    retried = int(sql(DB, "SELECT count(*) FROM jobs WHERE queue = 'old' AND state = 'queued'"))
    if cancelled != held or retried != held:
        raise SystemExit(f"the actions missed jobs: cancelled {cancelled}, retried {retried} of {held}")


def at(t):
    """Jobs done at time t (the last sample at or before it)."""
    best = 0
    for when, count in samples:
        if when <= t:
            best = count
    return best


lo, hi = window
if samples[-1][0] < hi:
    raise SystemExit("the drain ended inside the window: raise DRAIN")
total = samples[-1][0]
row = {"variant": variant, "round": rnd, "held": held, "drain": drain,
       "window_s": [round(lo, 2), round(hi, 2)],
       "window_jobs_per_second": round((at(hi) - at(lo)) / (hi - lo), 1),
       "drain_jobs_per_second": round(drain / total, 1)}
if variant == "bulk":
    row["cancel_seconds"] = round(actions["cancel"], 2)
    row["retry_seconds"] = round(actions["retry"], 2)
print(json.dumps(row), flush=True)
sql(os.environ["ADMIN_URL"], "DROP DATABASE IF EXISTS bench_bulk WITH (FORCE)")
