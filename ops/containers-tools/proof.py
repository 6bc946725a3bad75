"""./ops/containers proof — the driver. The stack is docker-compose.yml's, run by podman-compose as
project $PROJECT (the API on 127.0.0.1:$HTTP_PORT, the object store on 127.0.0.1:$S3_HOST_PORT):

1. A cold `up` (no volumes: the database is made, migrated, the bucket created) with one worker
   container; the time until /health/ready first answers 200.
2. What the images promise: an unprivileged user and a read-only root filesystem in each
   container of ours; JSON log lines. What the stack exposes (secure_defaults.py): the key pair
   once shipped as a default is refused by the object store, whose own identity reaches its
   bucket only; SeaweedFS's master, volume and filer are unreachable from another container; a
   user signs in.
3. Stylize throughput on real photos with 1 worker container, then `--scale` to 3 (podman-compose
   takes it as deploy.replicas) and the same again.
4. N mixed jobs (stylize on real photos, caption, index, analysis) through the API container at
   --rate per second. A third of the way in, one worker container gets `kill -9`; two thirds in,
   the PostgreSQL container restarts (while it is down, /health/live must stay 200 and
   /health/ready answer 503). Every result is checked, the blob ones downloaded from their
   pre-signed URL on the SeaweedFS container.
5. SIGTERM: a worker container stopped (`podman stop -t 30`) while it runs jobs exits 0 and
   its jobs finish there, none handed back.

Exit status 1 unless lost = duplicated = wrong = failed = 0 and every check holds. Python standard
library only; jobmix is shared with ./ops/chaos and ./ops/cluster."""
import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(os.environ["REPO"])
sys.path.insert(0, str(REPO / "ops" / "lib"))
from jobmix import body_for, check_result, download, make_specs, percentile, request, scaled_photos  # noqa: E402
sys.path.insert(0, str(Path(__file__).parent))
import secure_defaults  # noqa: E402

PROJECT = os.environ["PROJECT"]
HTTP_PORT = int(os.environ["HTTP_PORT"])
S3_HOST_PORT = int(os.environ["S3_HOST_PORT"])
LOGS = Path(os.environ["CONTAINERS_DIR"])
COMPOSE = os.environ["PROOF_COMPOSE"]
KINDS = ["stylize", "caption", "index", "analysis"]
OURS = ["api", "worker", "postgres", "seaweedfs"]


def log(message):
    print(f"[proof {time.strftime('%H:%M:%S')}] {message}", flush=True)


def container(service, number=1):
    return f"{PROJECT}_{service}_{number}"


def podman(*argv, check=True, timeout=300):
    done = subprocess.run(["podman", *argv], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise SystemExit(f"podman {' '.join(argv)} failed: {done.stderr.strip()[:500]}")
    return done.stdout.strip()


def compose_up(workers):
    """podman-compose up -d with `workers` worker containers; running containers are left as they are."""
    env = dict(os.environ, WORKERS=str(workers))
    with open(LOGS / f"{PROJECT}.log", "a") as out:
        done = subprocess.run([COMPOSE, "_compose", "up", "-d", "--no-build"], env=env, stdout=out, stderr=out,
                              stdin=subprocess.DEVNULL, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"podman-compose up failed; see {LOGS / (PROJECT + '.log')}")


def psql(sql):
    return podman("exec", container("postgres"), "psql", "-h", "/tmp", "-U", "postgres", "-d", "atelier",
                  "-qAtc", sql, check=False, timeout=60)


def health(path):
    status, _, _ = request("GET", "127.0.0.1", HTTP_PORT, path, timeout=5)
    return status


def wait_until(what, predicate, limit, every=0.25):
    deadline = time.time() + limit
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(every)
    raise SystemExit(f"{what}: not within {limit:.0f} s")


class Client:
    def __init__(self, token, photos):
        self.token, self.photos = token, photos

    def send(self, spec, collection="proof"):
        """POST /v1/jobs until accepted (retrying through outages with the same Idempotency-Key): id or None."""
        body, content_type = body_for(spec, self.photos, collection)
        first = time.time()
        while time.time() - first < 600:
            status, _, answer = request("POST", "127.0.0.1", HTTP_PORT, "/v1/jobs", body, {
                "X-App-Token": self.token, "Content-Type": content_type, "Idempotency-Key": spec["key"]}, timeout=30)
            if status in (200, 201):
                return json.loads(answer)["id"]
            if status is not None and 400 <= status < 500 and status not in (408, 429):
                log(f"job {spec['key']} refused: {status} {answer[:200]!r}")
                return None
            time.sleep(0.25)
        return None

    def view(self, job_id):
        for _ in range(40):
            status, _, answer = request("GET", "127.0.0.1", HTTP_PORT, f"/v1/jobs/{job_id}", headers={"X-App-Token": self.token})
            if status == 200:
                return json.loads(answer)
            time.sleep(0.5)
        return None


def run_batch(client, specs, rate, events=None):
    """Sends `specs` at `rate`/s from 8 threads; calls events[slot]() when that slot is due. {key: id}."""
    accepted, lock, started = {}, threading.Lock(), time.time()

    def sender(mine):
        for spec in mine:
            delay = started + spec["slot"] / rate - time.time()
            if delay > 0:
                time.sleep(delay)
            job_id = client.send(spec)
            if job_id:
                with lock:
                    accepted[spec["key"]] = job_id

    threads = [threading.Thread(target=sender, args=(specs[i::8],), daemon=True) for i in range(8)]
    for thread in threads:
        thread.start()
    for at, action in sorted((events or {}).items()):
        delay = started + at / rate - time.time()
        if delay > 0:
            time.sleep(delay)
        action()
    for thread in threads:
        thread.join()
    return accepted


def wait_for_jobs(owner, limit):
    def ended():
        left = psql(f"SELECT count(*) FROM jobs WHERE owner = '{owner}' AND state IN ('queued', 'running')")
        return left == "0"
    try:
        wait_until("every job ended", ended, limit, every=1)
    except SystemExit as error:
        log(str(error))


def throughput(client, photos, workers, count, seed):
    """Stylize jobs/s on real photos with `workers` worker containers (all sent at once, after a warm-up)."""
    rng = random.Random(seed)
    # A warm-up first: a worker's first stylize jobs pay for its one-time set-up.
    run_batch(client, make_specs(4 * workers, ["stylize"], len(photos), rng, f"warm-{workers}-{seed}"), rate=1000)
    wait_for_jobs("proof", 600)
    prefix = f"throughput-{workers}-{seed}"
    run_batch(client, make_specs(count, ["stylize"], len(photos), rng, prefix), rate=1000)
    wait_for_jobs("proof", 600)
    # From the first job created to the last finished, as the database recorded them.
    succeeded, elapsed = psql(f"""SELECT count(*), extract(epoch FROM max(finished_at) - min(created_at))
                                    FROM jobs WHERE idempotency_key LIKE '{prefix}-%' AND state = 'succeeded'""").split("|")
    succeeded, elapsed = int(succeeded), float(elapsed or 0)
    return (succeeded / elapsed if elapsed else 0.0), succeeded, elapsed


def main():
    parser = argparse.ArgumentParser(description="./ops/containers proof driver")
    parser.add_argument("--quick", action="store_true", help="CI's form: 120 mixed jobs, 12 half-size photos per throughput round")
    parser.add_argument("--jobs", type=int, default=None, help="mixed jobs (default 300; 120 with --quick)")
    parser.add_argument("--rate", type=float, default=None, help="jobs sent per second (default 8; 6 with --quick)")
    parser.add_argument("--throughput-jobs", type=int, default=None, help="large stylize jobs per throughput round (default 48; 12 with --quick)")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    quick = args.quick or os.environ.get("CI") == "true"
    jobs = args.jobs or (120 if quick else 300)
    rate = args.rate or (6.0 if quick else 8.0)
    per_round = args.throughput_jobs or (12 if quick else 48)
    seed = args.seed if args.seed is not None else int(time.time())
    problems = []

    photos_paths = sorted(Path("/usr/share/backgrounds").glob("*.jpg"))[:6]
    if not photos_paths:
        raise SystemExit("no real photos in /usr/share/backgrounds (lomiri-wallpapers-16.04)")
    photos = scaled_photos(photos_paths)
    # The same photos larger, for what must take a while: throughput, the kill, the drain.
    heavy = scaled_photos(photos_paths, "1/2" if quick else "1/1")
    log(f"build {os.environ.get('PROOF_BUILD')}; {jobs} mixed jobs at {rate:g}/s; {len(photos)} real photos "
        f"({', '.join(f'{w}×{h}' for _, _, (w, h) in photos)}), for stylize rounds "
        f"{', '.join(f'{w}×{h}' for _, _, (w, h) in heavy)}; seed {seed}")

    # 1. Cold up.
    started = time.time()
    compose_up(1)
    wait_until("the API ready after a cold up", lambda: health("/health/ready") == 200, 600)
    cold_up = time.time() - started
    log(f"cold up: the API answered /health/ready 200 after {cold_up:.1f} s")
    sizes = {image: int(podman("image", "inspect", f"localhost/{image}", "--format", "{{.Size}}"))
             for image in ["atelier", "atelier-postgres", "atelier-seaweedfs"]}
    size = sizes["atelier"]
    log("images: " + ", ".join(f"{image} {bytes_ / 1e6:.0f} MB" for image, bytes_ in sizes.items()))

    # 2. What the images promise.
    for service in OURS:
        uid = podman("exec", container(service), "id", "-u")
        read_only = podman("inspect", container(service), "--format", "{{.HostConfig.ReadonlyRootfs}}")
        if uid == "0" or read_only != "true":
            problems.append(f"{service}: uid {uid}, read-only root {read_only}")
    log("users and root filesystems: " + ("as promised" if not problems else "; ".join(problems)))
    secrets = {**{k: v for k, v in os.environ.items() if k.startswith("ATELIER_S3_")},
               **secure_defaults.read_env_file(REPO / ".env")}
    keys = (secrets["ATELIER_S3_ACCESS_KEY_ID"], secrets["ATELIER_S3_SECRET_ACCESS_KEY"])
    problems += secure_defaults.object_store(S3_HOST_PORT, keys, "atelier", log)
    problems += secure_defaults.internal_ports(container("api"), log)
    problems += secure_defaults.sign_in(container("api"), HTTP_PORT, seed, log)

    token = podman("exec", container("api"), "atelier", "tokens", "create", "--name", f"proof-{seed}", "--owner", "proof").splitlines()[-1]
    client = Client(token, photos)
    heavy_client = Client(token, heavy)

    # 3. Throughput with 1, then 3 worker containers.
    one = throughput(heavy_client, heavy, 1, per_round, seed)
    log(f"stylize with 1 worker container: {one[0]:.2f} jobs/s ({one[1]} in {one[2]:.1f} s)")
    compose_up(3)
    wait_until("3 worker containers running",
               lambda: len([n for n in podman("ps", "--format", "{{.Names}}").split() if n.startswith(f"{PROJECT}_worker_")]) == 3, 120)
    wait_until("3 workers registered", lambda: psql(
        "SELECT count(*) FROM workers WHERE heartbeat_at > now() - interval '15 seconds'") == "3", 180)
    three = throughput(heavy_client, heavy, 3, per_round, seed + 1)
    log(f"stylize with 3 worker containers: {three[0]:.2f} jobs/s ({three[1]} in {three[2]:.1f} s); "
        f"{three[0] / one[0]:.2f}× one")

    # 4. The mixed load with a kill -9 and a PostgreSQL restart.
    rng = random.Random(seed)
    specs = make_specs(jobs, KINDS, len(photos), rng, f"proof-{seed}")
    outage = {"live": [], "ready": [], "restarted_in": None}

    victim = {}

    def kill_worker():
        """SIGKILL to worker 2's process, from the host, while it runs jobs (large stylize jobs are
        sent for it): a crash, not a stop, so podman's restart policy applies, and its jobs must
        run again elsewhere. Which jobs it was running is read after the kill: a dead process's
        rows stay `running` until they are rescued."""
        name = container("worker", 2)
        hostname = podman("inspect", name, "--format", "{{.Config.Hostname}}")
        worker_id = psql(f"SELECT id FROM workers WHERE host = '{hostname}' ORDER BY started_at DESC LIMIT 1")
        pid = int(podman("inspect", name, "--format", "{{.State.Pid}}"))
        run_batch(heavy_client, make_specs(12, ["stylize"], len(heavy), random.Random(seed + 3), f"kill-{seed}"), rate=1000)
        running = f"SELECT id FROM jobs WHERE state = 'running' AND lease_owner = '{worker_id}'"
        try:
            wait_until(f"{name} running a job", lambda: psql(running) != "", 60, every=0.05)
        except SystemExit as error:
            log(str(error))
        os.kill(pid, 9)
        jobs_at_kill = [job for job in psql(running).split() if job]
        victim.update(name=name, worker=worker_id, jobs=jobs_at_kill)
        log(f"kill -9 {name} (process {pid}) while it ran {len(jobs_at_kill)} job(s)")

    def restart_postgres():
        # Stopped until /health/ready has said 503, then started: a plain restart can be over
        # (0.6 s) before any probe sees it, and the check would depend on who wins that race.
        log(f"stopping {container('postgres')} until /health/ready answers 503, then starting it")
        done = threading.Event()

        def probe():
            while not done.is_set():
                outage["live"].append(health("/health/live"))
                outage["ready"].append(health("/health/ready"))
                time.sleep(0.2)
        prober = threading.Thread(target=probe, daemon=True)
        prober.start()
        podman("stop", "--time", "30", container("postgres"))
        try:
            wait_until("/health/ready to answer 503 with PostgreSQL stopped", lambda: 503 in outage["ready"], 60)
        finally:
            begun = time.time()
            podman("start", container("postgres"))
        wait_until("PostgreSQL back", lambda: psql("SELECT 1") == "1", 120)
        outage["restarted_in"] = time.time() - begun
        time.sleep(2)
        done.set()
        prober.join()

    started = time.time()
    accepted = run_batch(client, specs, rate, {jobs // 3: kill_worker, 2 * jobs // 3: restart_postgres})
    log(f"{len(accepted)} of {jobs} jobs accepted in {time.time() - started:.0f} s; waiting for them to end")
    wait_for_jobs("proof", 900)
    elapsed = time.time() - started

    rows = json.loads(psql("""
        SELECT coalesce(json_agg(json_build_object('key', j.idempotency_key, 'id', j.id, 'attempt', j.attempt,
               'succeeded_events', (SELECT count(*) FROM job_events e WHERE e.job_id = j.id AND e.type = 'succeeded'),
               'handed_back', (SELECT count(*) FROM job_events e WHERE e.job_id = j.id AND e.type = 'requeued'),
               'ms', extract(epoch FROM (j.finished_at - j.created_at)) * 1000)), '[]')
          FROM jobs j WHERE j.owner = 'proof' AND j.idempotency_key LIKE 'proof-%'""") or "[]")
    by_key = {}
    for row in rows:
        by_key.setdefault(row["key"], []).append(row)
    lost, failed, duplicated, wrong = [], [], [], []
    for spec in specs:
        found = by_key.get(spec["key"], [])
        if not found:
            lost.append((spec["key"], "never created" if spec["key"] not in accepted else "accepted, no row"))
            continue
        if len(found) > 1 or found[0]["succeeded_events"] > 1:
            duplicated.append((spec["key"], f"{len(found)} jobs, {found[0]['succeeded_events']} succeeded events"))
        view = client.view(found[0]["id"]) or {}
        if view.get("state") in ("queued", "running", None):
            lost.append((spec["key"], f"{spec['kind']} {view.get('state')} at the deadline"))
            continue
        if view["state"] != "succeeded":
            failed.append((spec["key"], f"{spec['kind']} {view['state']}: {view.get('error')}"))
            continue
        url = view.get("result_url")
        fetched = {}

        def blob(url=url, fetched=fetched):
            if not url:
                return None
            status, body, where = download(url)
            fetched["where"] = where
            return body if status == 200 else None
        problem = check_result(spec["kind"], view.get("result"), photos[spec["photo"]][2], blob)
        if not problem and fetched.get("where") and fetched["where"] != f"localhost:{S3_HOST_PORT}":
            problem = f"result_url points at {fetched['where']}, not at the object store"
        if problem:
            wrong.append((spec["key"], f"{spec['kind']}: {problem}"))
    times = sorted(row["ms"] for rows_ in by_key.values() for row in rows_[:1] if row["ms"] is not None)
    handed_back = sum(1 for rows_ in by_key.values() if rows_[0]["handed_back"])
    restarts = podman("inspect", container("worker", 2), "--format", "{{.RestartCount}}", check=False)
    # The killed worker's jobs: each handed back and finished once, by another worker process.
    for job in victim.get("jobs", []):
        row = psql(f"""SELECT state, (SELECT count(*) FROM job_events e WHERE e.job_id = j.id AND e.type = 'requeued'),
                              (SELECT e.data ->> 'worker' FROM job_events e WHERE e.job_id = j.id AND e.type = 'running'
                                ORDER BY e.id DESC LIMIT 1)
                         FROM jobs j WHERE id = '{job}'""").split("|")
        if len(row) != 3 or row[0] != "succeeded" or row[1] == "0" or row[2] == victim["worker"]:
            problems.append(f"job {job} of the killed worker: state, times handed back, finished by = {row}")
    if not victim.get("jobs"):
        problems.append("the killed worker was running no job")
    extra = heavy_jobs_check(f"kill-{seed}")
    if extra:
        problems.append(extra)
    live_ok = bool(outage["live"]) and all(status == 200 for status in outage["live"])
    ready_refused = 503 in outage["ready"]
    if not live_ok:
        problems.append(f"/health/live during the PostgreSQL restart: {sorted(set(map(str, outage['live'])))}")
    if not ready_refused:
        problems.append(f"/health/ready never answered 503 while PostgreSQL was down: {sorted(set(map(str, outage['ready'])))}")
    log(f"mixed: {len(rows)} jobs in {elapsed:.0f} s; lost {len(lost)}, failed {len(failed)}, duplicated {len(duplicated)}, "
        f"wrong {len(wrong)}; {handed_back} of them handed back; the killed worker's {len(victim.get('jobs', []))} job(s) handed back and finished elsewhere; p50 {percentile(times, 50):.0f} ms, "
        f"p99 {percentile(times, 99):.0f} ms; PostgreSQL back in {outage['restarted_in'] or 0:.1f} s "
        f"(live {'200 throughout' if live_ok else 'NOT 200'}, ready {'503 meanwhile' if ready_refused else 'never 503'}); "
        f"killed worker restarted {restarts} time(s) by podman")

    # 5. SIGTERM drains.
    drain = sigterm_drain(heavy_client, heavy, seed, 12 if quick else 24)
    if drain:
        problems.append(drain)

    # Every container's log is kept beside the summary (a failed proof is read from them), and
    # ours must be JSON lines.
    for name in [container("api")] + [container("worker", number) for number in (1, 2, 3)] + [container("postgres")]:
        kept = subprocess.run(["podman", "logs", "--timestamps", name], capture_output=True, text=True)
        (LOGS / f"{name}.log").write_text(kept.stdout + kept.stderr)
    for service in ["api", "worker"]:
        text = subprocess.run(["podman", "logs", container(service)], capture_output=True, text=True).stdout
        lines = [line for line in text.splitlines() if line.strip()]
        bad = [line for line in lines if not line.startswith("{") or not _json(line)]
        if not lines or bad:
            problems.append(f"{service} logs: {len(lines)} lines, {len(bad)} not JSON objects (e.g. {bad[:1]})")
    log("logs: JSON lines" if not any("logs:" in p for p in problems) else "logs: NOT all JSON")

    summary = {"build": os.environ.get("PROOF_BUILD"), "cold_up_seconds": round(cold_up, 1), "image_bytes": sizes,
               "stylize_jobs_per_second": {"1": round(one[0], 2), "3": round(three[0], 2)},
               "jobs": jobs, "accepted": len(accepted), "lost": len(lost), "failed": len(failed),
               "duplicated": len(duplicated), "wrong": len(wrong), "handed_back_after_kill": handed_back,
               "p50_ms": round(percentile(times, 50)), "p99_ms": round(percentile(times, 99)),
               "postgres_restart_seconds": round(outage["restarted_in"] or 0, 1), "problems": problems, "seed": seed}
    (LOGS / "proof-summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    for title, items in (("lost", lost), ("failed", failed), ("duplicated", duplicated), ("wrong", wrong)):
        for key, why in items[:10]:
            log(f"{title}: {key}: {why}")
    for problem in problems:
        log(f"problem: {problem}")
    bad = lost or failed or duplicated or wrong or problems
    log(("FAILED" if bad else "OK") + f": lost {len(lost)}, duplicated {len(duplicated)}, wrong {len(wrong)}, "
        f"failed {len(failed)}; cold up {cold_up:.1f} s; image {size / 1e6:.0f} MB; stylize {one[0]:.2f} → {three[0]:.2f} jobs/s "
        f"with 1 → 3 worker containers ({LOGS / 'proof-summary.json'})")
    return 1 if bad else 0


def sigterm_drain(client, photos, seed, count):
    """Stops worker 1 with SIGTERM while it runs jobs: it must exit 0 with its jobs finished there. None or the problem."""
    rng = random.Random(seed + 2)
    specs = make_specs(count, ["stylize"], len(photos), rng, f"drain-{seed}")
    hostname = podman("inspect", container("worker"), "--format", "{{.Config.Hostname}}")
    worker_id = psql(f"SELECT id FROM workers WHERE host = '{hostname}' ORDER BY started_at DESC LIMIT 1")
    run_batch(client, specs, rate=1000)
    try:
        wait_until("worker 1 running jobs", lambda: psql(
            f"SELECT count(*) FROM jobs WHERE state = 'running' AND lease_owner = '{worker_id}'") not in ("", "0"), 60, every=0.1)
    except SystemExit as error:
        return f"SIGTERM drain not tried: {error}"
    running = psql(f"SELECT string_agg(id::text, ',') FROM jobs WHERE state = 'running' AND lease_owner = '{worker_id}'").split(",")
    began = time.time()
    podman("stop", "--time", "30", container("worker"))
    took = time.time() - began
    code = podman("inspect", container("worker"), "--format", "{{.State.ExitCode}}")
    wait_for_jobs("proof", 300)
    handed = psql("SELECT count(*) FROM job_events WHERE type = 'requeued' AND job_id IN ("
                  + ",".join(f"'{job}'" for job in running) + ")")
    finished_there = psql("SELECT count(*) FROM jobs WHERE state = 'succeeded' AND id IN ("
                          + ",".join(f"'{job}'" for job in running) + ")")
    log(f"SIGTERM: {container('worker')} was running {len(running)} job(s); it stopped in {took:.1f} s with exit status {code}; "
        f"{finished_there} of them succeeded, {handed} handed back")
    podman("start", container("worker"))
    extra = heavy_jobs_check(f"drain-{seed}")
    if extra:
        return extra
    if code != "0" or handed != "0" or finished_there != str(len(running)):
        return f"SIGTERM drain: exit {code}, {finished_there}/{len(running)} finished, {handed} handed back"
    return None


def heavy_jobs_check(prefix):
    """None when every job whose Idempotency-Key starts with `prefix` succeeded once, else what is wrong."""
    rows = psql(f"""SELECT count(*), count(*) FILTER (WHERE state = 'succeeded'),
                           count(*) FILTER (WHERE (SELECT count(*) FROM job_events e WHERE e.job_id = j.id
                                                    AND e.type = 'succeeded') > 1)
                      FROM jobs j WHERE idempotency_key LIKE '{prefix}-%'""").split("|")
    if len(rows) != 3 or rows[0] != rows[1] or rows[2] != "0" or rows[0] == "0":
        return f"{prefix} jobs: total, succeeded, succeeded twice = {rows}"
    return None


def _json(line):
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


if __name__ == "__main__":
    sys.exit(main())
