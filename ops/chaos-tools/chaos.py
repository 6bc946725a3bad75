#!/usr/bin/env python3
"""The driver of ./ops/chaos (run it through that script, which sets up PostgreSQL, builds, and
exports ATELIER_BIN, ATELIER_DATABASE_URL, ATELIER_DATA_DIR, CHAOS_DIR, CHAOS_PG_STOP,
CHAOS_PG_START and CHAOS_PSQL). Python standard library only.

1. Makes test photos (PNG, drawn here) and takes the JPEG fixtures from Tests/.
2. Starts `atelier serve` and `atelier work --processes P` (a supervisor that restarts its
   children; --processes, 2 by default).
3. Sends N jobs through POST /v1/jobs at --rate per second from 8 client threads, each with an
   Idempotency-Key, retrying (same key) on connection errors and 5xx — so a retry never makes a
   second job — while
     - a random worker process is SIGKILLed every --kill-every seconds until every job has ended;
     - PostgreSQL is stopped (fast) at 30 % of the sending window, requests are probed while it is
       down (GET /v1/jobs must answer 503 within --outage-answer seconds), and it is started again
       after --outage seconds; the API must then answer 200 again by itself;
     - the API is restarted (SIGTERM, start) at 60 % of the window.
   With --poison N, N `crash` jobs (a diagnostic kind whose handler SIGKILLs its own worker
   process) are sent among the others: real poison pills.
4. Waits for every job to end, then checks each in the database and the blob directory.

Lost: a job never created, or created but not ended (still queued or running) at the deadline.
Failed: a job of the mix that ended failed or cancelled — e.g. a healthy job taken for a poison
pill (counted apart as failed_as_poison_pill). Duplicated: more than one job for one
Idempotency-Key, or more than one `succeeded` event for one job. Wrong: a result that is not
what the kind makes (a stylize result blob missing or not a JPEG/PNG of the stated size, an
analysis report missing or not HTML, a caption without text, an index without a 384-d vector).
Poison jobs are reported on their own: each must end failed as a poison pill.
"""
import argparse
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
from jobmix import (KINDS, body_for, check_result, drawn_photos, fixture_photos,  # noqa: E402
                    make_specs, percentile, request as http_request)
from worker_logs import LogMark  # noqa: E402

ENV = os.environ
BIN = ENV["ATELIER_BIN"]
CHAOS_DIR = Path(ENV["CHAOS_DIR"])
DATA_DIR = Path(ENV["ATELIER_DATA_DIR"])
REPO = Path(ENV["REPO"])


def log(message):
    print(f"\033[1m[chaos]\033[0m {time.strftime('%H:%M:%S')} {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------- the stack

class Stack:
    def __init__(self, port):
        self.port = port
        self.api = None
        self.supervisor = None
        self.env = dict(ENV, ATELIER_LISTEN=f"127.0.0.1:{port}")
        self.api_log = open(CHAOS_DIR / "serve.log", "ab")
        self.work_log = open(CHAOS_DIR / "work.log", "ab")

    def start_api(self):
        self.api = subprocess.Popen([BIN, "serve"], env=self.env, stdout=self.api_log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            status, _, _ = request("GET", self.port, "/health", timeout=2)
            if status in (200, 503):
                return
            if self.api.poll() is not None:
                raise SystemExit(f"atelier serve exited ({self.api.returncode}); see {CHAOS_DIR / 'serve.log'}")
            time.sleep(0.2)
        raise SystemExit("atelier serve did not answer /health within 60 s")

    def stop_api(self):
        self.api.send_signal(signal.SIGTERM)
        try:
            self.api.wait(30)
        except subprocess.TimeoutExpired:
            self.api.kill()
            self.api.wait()

    def start_workers(self, processes):
        self.supervisor = subprocess.Popen([BIN, "work", "--processes", str(processes)], env=self.env,
                                           stdout=self.work_log, stderr=subprocess.STDOUT)

    def worker_pids(self):
        """The supervisor's live children (the worker processes)."""
        pids = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                text = stat.read_text()
            except OSError:
                continue
            fields = text[text.rfind(")") + 2:].split()
            if int(fields[1]) == self.supervisor.pid and fields[0] not in ("Z", "X"):
                pids.append(int(stat.parent.name))
        return pids

    def stop(self):
        for process in (self.supervisor, self.api):
            if process and process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in (self.supervisor, self.api):
            if process:
                try:
                    process.wait(60)
                except subprocess.TimeoutExpired:
                    process.kill()


def request(method, port, path, body=None, headers=None, timeout=30):
    return http_request(method, "127.0.0.1", port, path, body, headers, timeout)


def psql(sql):
    return subprocess.run(ENV["CHAOS_PSQL"].split() + ["-c", sql], capture_output=True, text=True, timeout=120)


# ---------------------------------------------------------------------------------- the run

def main():
    parser = argparse.ArgumentParser(description="./ops/chaos driver")
    parser.add_argument("--jobs", type=int, default=5000)
    parser.add_argument("--rate", type=float, default=None, help="jobs sent per second (default: 40; 20 with --quick)")
    parser.add_argument("--kill-every", type=float, default=2.0, help="seconds between SIGKILLs of a worker process")
    parser.add_argument("--processes", type=int, default=2, help="worker processes under the supervisor")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"the mix, comma-separated (default {','.join(KINDS)})")
    parser.add_argument("--poison", type=int, default=0,
                        help="crash jobs (each SIGKILLs the worker process running it) sent among the others")
    parser.add_argument("--outage", type=float, default=6.0, help="seconds PostgreSQL stays down")
    parser.add_argument("--outage-answer", type=float, default=5.0, help="seconds the API may take to answer 503")
    parser.add_argument("--deadline", type=float, default=None, help="seconds to wait for every job after sending")
    parser.add_argument("--quick", action="store_true", help="300 jobs, a few minutes")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    if args.quick and "--jobs" not in sys.argv:
        args.jobs = 300
    kinds = [kind.strip() for kind in args.kinds.split(",") if kind.strip()]
    if not kinds or any(kind not in KINDS for kind in kinds):
        raise SystemExit(f"--kinds: choose among {', '.join(KINDS)}")
    rate = args.rate or (20.0 if args.quick else 40.0)
    deadline_after_send = args.deadline or (180.0 if args.quick else 900.0)
    seed = args.seed if args.seed is not None else int(time.time())
    rng = random.Random(seed)

    photos = drawn_photos(6) + fixture_photos(REPO)
    log(f"{args.jobs} jobs ({','.join(kinds)}) at {rate:g}/s, {args.processes} worker processes, one SIGKILLed every "
        f"{args.kill_every:g} s, {args.poison} poison jobs, seed {seed}; {len(photos)} photos; logs in {CHAOS_DIR}")
    token = subprocess.run([BIN, "tokens", "create", "--name", f"chaos-{seed}", "--owner", "chaos"],
                           capture_output=True, text=True, check=True).stdout.strip()
    port = 20000 + (os.getpid() % 20000)
    mark = LogMark([CHAOS_DIR / "work.log"])
    stack = Stack(port)
    stack.start_api()
    stack.start_workers(args.processes)

    # The jobs: a fixed mix, shuffled.
    specs = make_specs(args.jobs, kinds, len(photos), rng, f"chaos-{seed}")
    # The poison pills: spread over the first quarter of the sending window (they meet a busy
    # fleet, and their five crashes alone, spaced out, end before the last healthy jobs do), each
    # waiting a moment before it kills its process, so that it first dies among others.
    poison = [{"key": f"chaos-{seed}-poison-{n}", "kind": "crash", "poison": True,
               "slot": (n + 1) * args.jobs / (4 * (args.poison + 1))} for n in range(args.poison)]

    state = {"killing": True, "sending": True, "kills": 0, "done": False}
    accepted = {}            # key -> job id
    send_log = []            # (key, first_sent, accepted_at, tries, statuses)
    lock = threading.Lock()
    started = time.time()
    send_window = args.jobs / rate

    def sender(my_specs):
        for spec in my_specs:
            due = started + spec["slot"] / rate
            delay = due - time.time()
            if delay > 0:
                time.sleep(delay)
            if spec.get("poison"):
                body, content_type = json.dumps({"kind": "crash", "options": {"after_ms": 300}}).encode(), "application/json"
            else:
                body, content_type = body_for(spec, photos, "chaos")
            first, tries, statuses = time.time(), 0, []
            while True:
                tries += 1
                status, _, answer = request("POST", port, "/v1/jobs", body, {
                    "X-App-Token": token, "Content-Type": content_type, "Idempotency-Key": spec["key"]}, timeout=30)
                if status == 200 or status == 201:
                    job_id = json.loads(answer)["id"]
                    with lock:
                        accepted[spec["key"]] = job_id
                        send_log.append((spec["key"], first, time.time(), tries, statuses))
                    break
                statuses.append(status if status is not None else answer.decode()[:60])
                if status is not None and 400 <= status < 500 and status not in (408, 429):
                    with lock:
                        send_log.append((spec["key"], first, None, tries, statuses))
                    log(f"job {spec['key']} refused: {status} {answer[:200]!r}")
                    break
                if time.time() - first > 600:
                    with lock:
                        send_log.append((spec["key"], first, None, tries, statuses))
                    break
                time.sleep(0.25)

    senders = [threading.Thread(target=sender, args=(specs[i::8],), daemon=True) for i in range(8)]
    senders.append(threading.Thread(target=sender, args=(poison,), daemon=True))
    for thread in senders:
        thread.start()

    def killer():
        while state["killing"]:
            time.sleep(args.kill_every)
            if not state["killing"]:
                return
            pids = stack.worker_pids()
            if pids:
                try:
                    os.kill(rng.choice(pids), signal.SIGKILL)
                    state["kills"] += 1
                except ProcessLookupError:
                    pass

    killer_thread = threading.Thread(target=killer, daemon=True)
    killer_thread.start()

    # PostgreSQL restart at 30 % of the sending window, with probes of the API while it is down.
    outage = {}
    time.sleep(max(0.0, started + 0.3 * send_window - time.time()))
    log("stopping PostgreSQL (pg_ctl -m fast stop)")
    stopped = subprocess.run(ENV["CHAOS_PG_STOP"], shell=True, capture_output=True, text=True)
    if stopped.returncode != 0:
        raise SystemExit(f"pg_ctl stop failed: {stopped.stderr}")
    down_at = time.time()
    probes = []

    def probe():
        t0 = time.time()
        status, _, answer = request("GET", port, "/v1/jobs?limit=1", headers={"X-App-Token": token},
                                    timeout=args.outage_answer + 5)
        probes.append({"status": status, "seconds": round(time.time() - t0, 3), "ended": time.time(),
                       "body": answer[:160].decode(errors="replace")})

    # One probe every 0.5 s, each in its own thread: a hanging answer must not stretch the outage.
    probe_threads = []
    while time.time() - down_at < args.outage:
        thread = threading.Thread(target=probe, daemon=True)
        thread.start()
        probe_threads.append(thread)
        time.sleep(0.5)
    health, _, _ = request("GET", port, "/health", timeout=args.outage_answer + 5)
    log("starting PostgreSQL")
    starting_at = time.time()
    subprocess.run(ENV["CHAOS_PG_START"], shell=True, check=True, capture_output=True)
    up_at = time.time()
    for thread in probe_threads:
        thread.join()
    recovered = None
    while time.time() - up_at < 60:
        status, _, _ = request("GET", port, "/v1/jobs?limit=1", headers={"X-App-Token": token}, timeout=10)
        if status == 200:
            recovered = round(time.time() - up_at, 2)
            break
        time.sleep(0.25)
    outage = {"seconds_down": round(up_at - down_at, 1), "probes": probes, "health_status": health,
              "api_recovered_after_s": recovered}
    # A probe is answered well with 503 in time, or with 200 when PostgreSQL was already being
    # started again before the answer came (a request may outlive the outage it began in).
    good = [p for p in probes if p["seconds"] <= args.outage_answer
            and (p["status"] == 503 or (p["status"] == 200 and p["ended"] >= starting_at))]
    for p in probes:
        p.pop("ended", None)
    outage["ok"] = bool(probes) and len(good) == len(probes) and recovered is not None
    log(f"PostgreSQL was down {outage['seconds_down']} s: API answers "
        f"{sorted(set((p['status'], round(p['seconds'], 1)) for p in probes), key=str)}; /health {health}; "
        f"back to 200 after {recovered} s")

    # API restart at 60 % of the sending window.
    time.sleep(max(0.0, started + 0.6 * send_window - time.time()))
    log("restarting the API (SIGTERM, start)")
    api_down = time.time()
    stack.stop_api()
    stack.start_api()
    api_restart_s = round(time.time() - api_down, 2)

    for thread in senders:
        thread.join()
    sent_at = time.time()
    log(f"all {len(send_log)} jobs sent ({len(accepted)} accepted) in {sent_at - started:.0f} s; waiting for them to end")

    # Wait until every accepted job has ended (or the deadline).
    while time.time() - sent_at < deadline_after_send:
        result = psql("SELECT count(*) FROM jobs WHERE owner = 'chaos' AND state IN ('queued', 'running')")
        if result.returncode == 0 and result.stdout.strip() == "0":
            break
        time.sleep(1)
    state["killing"] = False
    killer_thread.join()
    elapsed = time.time() - started
    stack.stop()
    abandoned = mark.abandoned_handlers()

    # ------------------------------------------------------------------------------ the checks
    query = """
        SELECT coalesce(json_agg(json_build_object(
            'id', j.id, 'key', j.idempotency_key, 'kind', j.kind, 'state', j.state, 'result', j.result,
            'error', j.error, 'attempt', j.attempt, 'crashes', j.crashes,
            'crashes_alone', (SELECT count(*) FROM job_events e WHERE e.job_id = j.id AND e.type IN ('requeued', 'failed')
                                AND (e.data ->> 'shared_with')::int = 0),
            'max_streak', (SELECT coalesce(max((e.data ->> 'crash_streak')::int), 0) FROM job_events e
                            WHERE e.job_id = j.id AND e.data ? 'crash_streak'),
            'ms', extract(epoch FROM (j.finished_at - j.created_at)) * 1000,
            'succeeded_events', (SELECT count(*) FROM job_events e WHERE e.job_id = j.id AND e.type = 'succeeded'),
            'payload_size', j.payload -> 'input' ->> 'bytes')), '[]')
          FROM jobs j WHERE j.owner = 'chaos' AND j.parent_id IS NULL"""
    result = psql(query)
    if result.returncode != 0:
        raise SystemExit(f"could not read the jobs: {result.stderr}")
    rows = json.loads(result.stdout)
    by_key = {}
    for row in rows:
        by_key.setdefault(row["key"], []).append(row)

    lost, failed, duplicated, wrong = [], [], [], []
    for spec in specs:
        found = by_key.get(spec["key"], [])
        if not found:
            lost.append((spec["key"], "never created" if spec["key"] not in accepted else "accepted but no job row"))
            continue
        if len(found) > 1:
            duplicated.append((spec["key"], f"{len(found)} jobs for one Idempotency-Key"))
        row = found[0]
        if row["succeeded_events"] > 1:
            duplicated.append((spec["key"], f"{row['succeeded_events']} succeeded events"))
        if row["state"] in ("queued", "running"):
            lost.append((spec["key"], f"{row['kind']} still {row['state']} at the deadline: {row['error']}"))
            continue
        if row["state"] != "succeeded":
            failed.append((spec["key"], f"{row['kind']} {row['state']}: {row['error']}"))
            continue
        problem = check_result(row["kind"], row["result"], photos[spec["photo"]][2],
                               lambda: blob((row["result"] or {}).get("result_blob")))
        if problem:
            wrong.append((spec["key"], f"{row['kind']}: {problem}"))

    # The poison jobs: each must have ended failed as a poison pill.
    poison_rows = [row for key in (p["key"] for p in poison) for row in by_key.get(key, [])[:1]]
    poison_pills = [row for row in poison_rows if row["state"] == "failed" and (row["error"] or "").startswith("poison pill:")]
    poison_wrong = [(p["key"], "never created" if not by_key.get(p["key"]) else
                     f"{by_key[p['key']][0]['state']}: {by_key[p['key']][0]['error']}")
                    for p in poison if not any(row["key"] == p["key"] for row in poison_pills)]

    healthy = [row for row in rows if row["kind"] != "crash"]
    times = sorted(row["ms"] for row in healthy if row["state"] == "succeeded" and row["ms"] is not None)
    crashed = [row for row in healthy if row["crashes"]]
    in_a_row = crashes_in_a_row()
    summary = {
        "jobs": args.jobs, "kinds": kinds, "processes": args.processes, "accepted": sum(1 for spec in specs if spec["key"] in accepted),
        "succeeded": len(times), "lost": len(lost), "failed": len(failed),
        "failed_as_poison_pill": sum(1 for _, why in failed if "poison pill" in why),
        "duplicated": len(duplicated), "wrong": len(wrong),
        "p50_ms": round(percentile(times, 50)), "p99_ms": round(percentile(times, 99)),
        "max_ms": round(times[-1]) if times else 0,
        "kills": state["kills"], "jobs_with_crashes": len(crashed),
        "max_crashes_one_job": max((row["crashes"] for row in healthy), default=0),
        "crashes_shared": sum(row["crashes"] - row["crashes_alone"] for row in healthy),
        "crashes_alone": sum(row["crashes_alone"] for row in healthy),
        "max_crash_streak": max((row["max_streak"] for row in healthy), default=0),
        # What the streak would have been had every crash counted (0008 before 0013): healthy
        # jobs that lost 5 (the default crash limit) or more attempts in a row to dead workers.
        "max_crashes_in_a_row": max((in_a_row.get(row["id"], 0) for row in healthy), default=0),
        "healthy_with_5_crashes_in_a_row": sum(1 for row in healthy if in_a_row.get(row["id"], 0) >= 5),
        "poison": {"sent": len(poison), "failed_as_poison_pill": len(poison_pills), "not": len(poison_wrong),
                   "crashes": sorted(row["crashes"] for row in poison_pills),
                   "crashes_alone": sorted(row["crashes_alone"] for row in poison_pills)},
        "send_retries": sum(tries - 1 for _, _, _, tries, _ in send_log),
        "pg_outage": {k: v for k, v in outage.items() if k != "probes"},
        "pg_outage_answers": summarize_probes(outage.get("probes", [])),
        "handlers_abandoned": len(abandoned),
        "api_restart_s": api_restart_s, "elapsed_s": round(elapsed), "rate": rate, "seed": seed,
    }
    by_kind = {}
    for row in healthy:
        if row["state"] == "succeeded" and row["ms"] is not None:
            by_kind.setdefault(row["kind"], []).append(row["ms"])
    summary["p50_ms_by_kind"] = {k: round(percentile(sorted(v), 50)) for k, v in sorted(by_kind.items())}

    with open(CHAOS_DIR / "results.jsonl", "a") as out:
        out.write(json.dumps(dict(summary, when=time.strftime("%Y-%m-%dT%H:%M:%S"))) + "\n")
    for title, items in (("lost", lost), ("failed", failed), ("duplicated", duplicated), ("wrong", wrong),
                         ("poison job not failed as a poison pill", poison_wrong)):
        for key, why in items[:20]:
            log(f"{title}: {key} — {why}")
    for _, line in abandoned[:20]:
        log(f"a handler did not stop when told (its job was handed back): {line[:600]}")
    print(json.dumps(summary, indent=2))
    bad = lost or failed or duplicated or wrong or poison_wrong or not outage.get("ok")
    if not outage.get("ok"):
        log("the API did not answer 503 promptly while PostgreSQL was down, or did not recover by itself: see pg_outage_answers")
    poison_note = f"; poison pills {len(poison_pills)}/{len(poison)} failed as such" if poison else ""
    log(("FAILED" if bad else "OK") + f": lost {len(lost)}, failed {len(failed)}, duplicated {len(duplicated)}, "
        f"wrong {len(wrong)}{poison_note}; p50 {summary['p50_ms']} ms, p99 {summary['p99_ms']} ms; "
        f"{state['kills']} kills; {summary['elapsed_s']} s")
    return 1 if bad else 0


def summarize_probes(probes):
    counts = {}
    for probe in probes:
        key = f"{probe['status']}"
        entry = counts.setdefault(key, {"count": 0, "max_s": 0.0, "example": probe["body"][:120]})
        entry["count"] += 1
        entry["max_s"] = max(entry["max_s"], probe["seconds"])
    return counts


def crashes_in_a_row():
    """job id -> the most attempts it lost to dead workers in a row (with no finished attempt between)."""
    result = psql("""
        SELECT e.job_id, e.type, coalesce(e.data ->> 'reason', '') FROM job_events e JOIN jobs j ON j.id = e.job_id
         WHERE j.owner = 'chaos' AND e.type IN ('requeued', 'retrying', 'succeeded', 'failed', 'cancelled')
         ORDER BY e.job_id, e.id""")
    if result.returncode != 0:
        raise SystemExit(f"could not read the events: {result.stderr}")
    best, run = {}, {}
    for line in result.stdout.splitlines():
        job, kind, reason = line.split("|")
        if reason in ("worker_lost", "poison_pill"):
            run[job] = run.get(job, 0) + 1
            best[job] = max(best.get(job, 0), run[job])
        elif reason != "worker shutting down":   # a release is not a finished attempt
            run[job] = 0
    return best


def blob(path):
    if not path:
        return None
    file = DATA_DIR / "blobs" / path
    return file.read_bytes() if file.is_file() else None


if __name__ == "__main__":
    sys.exit(main())
