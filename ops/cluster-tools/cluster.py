#!/usr/bin/env python3
"""The driver of ./ops/cluster. It runs on the `client` host (network namespace); ./ops/cluster has
made the hosts, started db's PostgreSQL and SeaweedFS, and exported ATELIER_BIN, ATELIER_* (the
shared database URL and S3 store), CLUSTER_NS, CLUSTER_HOSTS, CLUSTER_DIR, CLUSTER_PG_STOP,
CLUSTER_PG_START, CLUSTER_PSQL and CLUSTER_PHOTOS. Python standard library only.

The proof (default):
1. Migrates, makes an app token, starts `atelier serve` on api1 and api2 and
   `atelier work --processes 2` on work1 and work2, each under its own hostname.
2. Sends N jobs (stylize on real photos, caption, index, analysis) at --rate per second from
   8 threads, alternately to api1 and api2, each with an Idempotency-Key, retrying with the same
   key on connection errors and 5xx. Each accepted job is polled through the OTHER API until it
   ends; every 20th is also followed as a stream (SSE) through the other API, resuming with
   Last-Event-ID when the stream breaks. Every result blob is downloaded from its pre-signed
   result_url, which must point at db's object store, not at an API.
3. At 30 % of the sending window, while work1 runs a job, work1 loses power: its network link goes down, then every
   process on it is SIGKILLed, so PostgreSQL never hears of it and its jobs come back only when
   their leases expire (the host returns at 80 %; when the cut strands none of its jobs, work1 is
   started again and cut again); at 55 % db's PostgreSQL vanishes for --outage seconds and comes
   back: every connection open to it goes silent (db drops their packets, both ways, from then
   on: no FIN, no RST, no answer — as when a database host loses power or a container's network
   is torn down), PostgreSQL is stopped, then started again on the same address; only new
   connections reach it.
4. Checks: lost (never accepted, or not succeeded), duplicated (two jobs for one key, or two
   `succeeded` events for one job), wrong (a result that is not what the kind makes, a blob that
   cannot be downloaded from the store or differs from the result, a stream that ended on a
   different event than the job), stalled (a worker process running through the outage that
   starts no job within --stall-limit seconds of PostgreSQL's return, while jobs wait) and slow
   to stop (a process that has not exited --stop-limit seconds after SIGTERM). Prints p50/p99
   completion and per-host counts; exit 1 unless every one of them is 0.

--throughput: N stylize jobs enqueued into the paused queue and drained by work1 alone, then N
more by work1 and work2; jobs/s each (first start to last finish) and the ratio (on one 2-core machine the hosts share the cores: it shows the cost of the split).
"""
import argparse
import heapq
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
from jobmix import body_for, check_result, download, make_specs, percentile, request, scaled_photos  # noqa: E402
from worker_logs import LogMark  # noqa: E402

ENV = os.environ
BIN = ENV["ATELIER_BIN"]
NS = ENV["CLUSTER_NS"]
CLUSTER_DIR = Path(ENV["CLUSTER_DIR"])
HOSTS = dict(item.split("=") for item in ENV["CLUSTER_HOSTS"].strip(",").split(","))
API_PORT = 8080
APIS = ["api1", "api2"]
KINDS = ["stylize", "caption", "index", "analysis"]
STORE = urllib.parse.urlsplit(ENV["ATELIER_S3_ENDPOINT"]).netloc
TERMINAL = {"succeeded", "failed", "cancelled"}


def log(message):
    print(f"\033[1m[cluster]\033[0m {time.strftime('%H:%M:%S')} {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------- hosts

class Hosts:
    """The Atelier processes on each host, started with `ip netns exec` under the host's own name."""

    def __init__(self):
        self.processes = {}
        (CLUSTER_DIR / "logs").mkdir(parents=True, exist_ok=True)

    def command(self, host, argv):
        return ["ip", "netns", "exec", f"{NS}-{host}", "unshare", "--uts",
                "sh", "-c", 'hostname "$0" && exec "$@"', host, *argv]

    def env(self, host):
        data = CLUSTER_DIR / "hosts" / host / "data"
        data.mkdir(parents=True, exist_ok=True)
        env = dict(ENV, ATELIER_DATA_DIR=str(data))
        if host in APIS:
            env.update(ATELIER_LISTEN=f"{HOSTS[host]}:{API_PORT}", ATELIER_PUBLIC_URL=f"http://{HOSTS[host]}:{API_PORT}")
        return env

    def run(self, host, *argv):
        """Runs a CLI command on a host; its standard output."""
        done = subprocess.run(self.command(host, [BIN, *argv]), env=self.env(host), capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"atelier {' '.join(argv)} on {host} failed: {done.stderr.strip()}")
        return done.stdout.strip()

    def start(self, host):
        subprocess.run(["ip", "netns", "exec", f"{NS}-{host}", "ip", "link", "set", "eth0", "up"], check=True)
        argv = [BIN, "serve"] if host in APIS else [BIN, "work", "--processes", "2"]
        logfile = open(CLUSTER_DIR / "logs" / f"{host}.log", "ab")
        self.processes[host] = subprocess.Popen(self.command(host, argv), env=self.env(host),
                                                stdout=logfile, stderr=subprocess.STDOUT)
        if host in APIS:
            deadline = time.time() + 60
            while time.time() < deadline:
                status, _, _ = request("GET", HOSTS[host], API_PORT, "/health", timeout=2)
                if status == 200:
                    return
                if self.processes[host].poll() is not None:
                    raise SystemExit(f"atelier serve on {host} exited; see {CLUSTER_DIR / 'logs' / (host + '.log')}")
                time.sleep(0.2)
            raise SystemExit(f"atelier serve on {host} did not answer /health within 60 s")

    def kill_host(self, host):
        """The host loses power: its network goes first (so no FIN or RST from the dying processes
        reaches PostgreSQL or the store), then every process in its namespace gets SIGKILL."""
        subprocess.run(["ip", "netns", "exec", f"{NS}-{host}", "ip", "link", "set", "eth0", "down"], check=True)
        pids = subprocess.run(["ip", "netns", "pids", f"{NS}-{host}"], capture_output=True, text=True).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
        process = self.processes.pop(host, None)
        if process:
            process.wait()
        return len(pids)

    def stop_all(self, limit=60.0):
        """SIGTERM to every process; the hosts whose process had not exited within `limit`
        seconds (it is then killed)."""
        signalled = time.time()
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        slow = []
        for host, process in self.processes.items():
            try:
                process.wait(max(0.1, signalled + limit - time.time()))
            except subprocess.TimeoutExpired:
                slow.append(host)
                dump_stacks(host, process.pid)
                process.kill()
                process.wait()
        return slow


def dump_stacks(host, pid):
    """Every thread's backtrace of a process that did not stop, and of its children, into
    logs/HOST-stacks.txt before it is killed: what it was waiting for. Skipped without gdb."""
    target = CLUSTER_DIR / "logs" / f"{host}-stacks.txt"
    try:
        children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
        with open(target, "w") as out:
            for each in [str(pid)] + children:
                out.write(f"== pid {each}\n")
                out.flush()
                subprocess.run(["gdb", "-p", each, "-batch", "-ex", "thread apply all bt"],
                               stdout=out, stderr=subprocess.STDOUT, timeout=60)
            # And what its sessions are doing on the server: waiting on a lock, idle in a
            # transaction, or nothing at all (then it waits inside the process).
            sessions = psql(f"""
                SELECT pid, application_name, state, wait_event_type, wait_event,
                       now() - state_change AS for, left(regexp_replace(query, '\\s+', ' ', 'g'), 200)
                  FROM pg_stat_activity WHERE client_addr = '{HOSTS[host]}' ORDER BY state_change""")
            out.write("== sessions on the database\n" + sessions.stdout + sessions.stderr)
            # And the host's TCP connections: an HTTP client still connected, a stream still open.
            sockets = subprocess.run(["ip", "netns", "exec", f"{NS}-{host}", "ss", "-tnoi"],
                                     capture_output=True, text=True, timeout=30)
            out.write("== the host's TCP connections\n" + sockets.stdout + sockets.stderr)
        log(f"slow to stop: {host}'s stacks are in {target}")
    except (OSError, subprocess.SubprocessError) as error:
        log(f"slow to stop: no stacks of {host} ({error})")


def psql(sql):
    return subprocess.run(ENV["CLUSTER_PSQL"].split() + ["-c", sql], capture_output=True, text=True, timeout=120)


def psql_now():
    """The database's clock, as text PostgreSQL reads back."""
    result = psql("SELECT now()::text")
    if result.returncode != 0:
        raise SystemExit(f"could not read the database's clock: {result.stderr}")
    return result.stdout.strip()


def vanish_postgres(outage):
    """db's PostgreSQL goes away without a word: every connection open to it is silenced (db drops
    its packets both ways with nftables: no FIN, RST or answer reaches the other end, ever), the
    server is stopped, and after `outage` seconds started again on the same address, where new
    connections reach it. The other hosts' processes must notice their dead connections by
    themselves. Returns how many connections were silenced."""
    db = ["ip", "netns", "exec", f"{NS}-db"]
    listed = subprocess.run(db + ["ss", "-Htn", "state", "established", "( sport = :5432 )"],
                            capture_output=True, text=True, check=True).stdout.split("\n")
    peers = [line.split()[-1].rsplit(":", 1) for line in listed if line.strip()]
    rules = ["table inet atelier_vanished {", "  chain input { type filter hook input priority 0; policy accept;"]
    rules += [f"    ip saddr {address} tcp sport {port} tcp dport 5432 drop" for address, port in peers]
    rules += ["  }", "  chain output { type filter hook output priority 0; policy accept;"]
    rules += [f"    ip daddr {address} tcp dport {port} tcp sport 5432 drop" for address, port in peers]
    rules += ["  }", "}"]
    subprocess.run(db + ["nft", "-f", "-"], input="\n".join(rules), text=True, check=True)
    log(f"db: PostgreSQL vanishes for {outage:g} s ({len(peers)} connections silenced for good)")
    stopped = subprocess.run(ENV["CLUSTER_PG_STOP"].replace("-m fast", "-m immediate"), shell=True, capture_output=True, text=True)
    if stopped.returncode != 0:
        raise SystemExit(f"pg_ctl stop failed: {stopped.stderr}")
    time.sleep(outage)
    subprocess.run(ENV["CLUSTER_PG_START"], shell=True, check=True, capture_output=True)
    log("db: PostgreSQL started again")
    return len(peers)


def stalled_workers(back_at, limit):
    """The worker processes that started a job before PostgreSQL vanished and none within `limit`
    seconds of its return, though jobs were queued then (each with the job it was given last)."""
    result = psql(f"""
        WITH before AS (SELECT DISTINCT e.data ->> 'worker' AS worker FROM job_events e
                         WHERE e.type = 'running' AND e.created_at < '{back_at}'),
             after AS (SELECT DISTINCT e.data ->> 'worker' AS worker FROM job_events e
                        WHERE e.type = 'running' AND e.created_at >= '{back_at}'
                          AND e.created_at < '{back_at}'::timestamptz + interval '{limit} seconds')
        SELECT coalesce(json_agg(worker), '[]') FROM before
         WHERE worker NOT IN (SELECT worker FROM after) AND split_part(worker, '/', 1) <> 'work1'""")
    if result.returncode != 0:
        raise SystemExit(f"could not read the workers' jobs: {result.stderr}")
    return json.loads(result.stdout)


def running_on(host):
    """Jobs the database shows running on a host's workers."""
    result = psql(f"SELECT count(*) FROM jobs WHERE state = 'running' AND lease_owner LIKE '{host}/%'")
    return int(result.stdout.strip() or 0) if result.returncode == 0 else 0


def wait_for_workers(count):
    deadline = time.time() + 60
    while time.time() < deadline:
        result = psql("SELECT count(*) FROM workers")
        if result.returncode == 0 and int(result.stdout.strip() or 0) >= count:
            return
        time.sleep(0.2)
    raise SystemExit(f"fewer than {count} worker processes registered within 60 s")


def other(api):
    return APIS[1 - APIS.index(api)]


# ---------------------------------------------------------------------------------- client side

def follow_stream(api, job_id, token, deadline):
    """Reads GET /v1/jobs/:id/events on `api` until a terminal event; resumes after a broken stream
    with Last-Event-ID. (terminal event type or None, events seen, reconnects)."""
    last_id, seen, reconnects = None, 0, -1
    while time.time() < deadline:
        reconnects += 1
        headers = {"X-App-Token": token, "Accept": "text/event-stream"}
        if last_id:
            headers["Last-Event-ID"] = last_id
        connection = http.client.HTTPConnection(HOSTS[api], API_PORT, timeout=30)
        try:
            connection.request("GET", f"/v1/jobs/{job_id}/events", headers=headers)
            response = connection.getresponse()
            if response.status != 200:
                response.read()
                time.sleep(0.5)
                continue
            event_id, event_type = None, None
            while True:
                line = response.fp.readline()
                if not line:
                    break
                line = line.decode().rstrip("\r\n")
                if line.startswith("id: "):
                    event_id = line[4:]
                elif line.startswith("event: "):
                    event_type = line[7:]
                elif line == "":
                    if event_type and event_type != "snapshot":
                        seen += 1
                        if event_id:
                            last_id = event_id
                        if event_type in TERMINAL:
                            return event_type, seen, reconnects
                    event_id, event_type = None, None
        except (OSError, http.client.HTTPException):
            time.sleep(0.5)
        finally:
            connection.close()
    return None, seen, reconnects


def run_proof(args, hosts, photos, token, rng, seed):
    rate = args.rate
    specs = make_specs(args.jobs, KINDS, len(photos), rng, f"cluster-{seed}")
    lock = threading.Lock()
    accepted = {}            # key -> {"id", "api", "accepted_at"}
    final = {}               # key -> the job's JSON as the other API last showed it
    downloads = {}           # key -> (status, bytes, where)
    streams = {}             # key -> (terminal event, events, reconnects)
    counts = {"polls": {a: 0 for a in APIS}, "poll_errors": 0, "send_retries": 0, "refused": 0}
    due = []                 # heap of (next poll time, key)
    started = time.time()
    send_window = args.jobs / rate
    deadline = started + send_window + args.deadline

    def sender(my_specs):
        for spec in my_specs:
            time.sleep(max(0.0, started + spec["slot"] / rate - time.time()))
            api = APIS[spec["slot"] % 2]
            body, content_type = body_for(spec, photos, "cluster")
            first = time.time()
            while True:
                status, _, answer = request("POST", HOSTS[api], API_PORT, "/v1/jobs", body, {
                    "X-App-Token": token, "Content-Type": content_type, "Idempotency-Key": spec["key"]}, timeout=30)
                if status in (200, 201):
                    job_id = json.loads(answer)["id"]
                    with lock:
                        accepted[spec["key"]] = {"id": job_id, "api": api, "accepted_at": time.time()}
                        heapq.heappush(due, (time.time() + 0.3, spec["key"]))
                    if spec["n"] % 20 == 0:
                        threading.Thread(target=streamer, args=(spec["key"], other(api), job_id), daemon=True).start()
                    break
                if status is not None and 400 <= status < 500 and status not in (408, 429):
                    with lock:
                        counts["refused"] += 1
                    log(f"job {spec['key']} refused by {api}: {status} {answer[:200]!r}")
                    break
                if time.time() - first > 600:
                    break
                with lock:
                    counts["send_retries"] += 1
                time.sleep(0.25)

    def streamer(key, api, job_id):
        outcome = follow_stream(api, job_id, token, deadline)
        with lock:
            streams[key] = outcome + (api,)

    def poller():
        while True:
            with lock:
                if not due:
                    key = None
                elif due[0][0] <= time.time():
                    _, key = heapq.heappop(due)
                else:
                    key = ""
                sending = state["sending"]
            if key is None and not sending:
                return
            if not key:
                if time.time() > deadline:
                    return
                time.sleep(0.05)
                continue
            job = accepted[key]
            api = other(job["api"])
            status, _, answer = request("GET", HOSTS[api], API_PORT, f"/v1/jobs/{job['id']}",
                                        headers={"X-App-Token": token}, timeout=30)
            with lock:
                counts["polls"][api] += 1
            view = json.loads(answer) if status == 200 else None
            if view and view["state"] in TERMINAL:
                fetched = None
                if view["state"] == "succeeded" and view.get("result_url"):
                    fetched = download(view["result_url"])
                with lock:
                    final[key] = view
                    if fetched:
                        downloads[key] = fetched
                continue
            if view is None:
                with lock:
                    counts["poll_errors"] += 1
            if time.time() < deadline:
                with lock:
                    heapq.heappush(due, (time.time() + 0.5, key))

    state = {"sending": True}
    senders = [threading.Thread(target=sender, args=(specs[i::8],), daemon=True) for i in range(8)]
    pollers = [threading.Thread(target=poller, daemon=True) for _ in range(8)]
    for thread in senders + pollers:
        thread.start()

    def at(fraction):
        time.sleep(max(0.0, started + fraction * send_window - time.time()))

    events = {}
    at(0.30)
    # The cut must strand work1's jobs, so their rescue is part of the proof: it comes while work1
    # runs one, and the jobs still shown running there after it are stranded (work1 cannot write
    # any more). A job may finish in the instant before the cut; then work1 is started again and
    # cut once more (at most 5 times).
    events["work1_power_cuts"] = 0
    for _ in range(5):
        wait_until = time.time() + 15
        while time.time() < wait_until and not running_on("work1"):
            time.sleep(0.02)
        killed = hosts.kill_host("work1")
        events["work1_power_cuts"] += 1
        stranded = running_on("work1")
        log(f"work1: power cut (link down, SIGKILL to its {killed} processes); {stranded} of its jobs stranded")
        if stranded:
            break
        hosts.start("work1")
    events["work1_jobs_stranded"] = stranded
    at(0.55)
    events["silenced_connections"] = vanish_postgres(args.outage)
    events["postgres_back_at"] = psql_now()
    at(0.80)
    if "work1" not in hosts.processes:
        hosts.start("work1")
        log("work1: back (atelier work --processes 2)")

    for thread in senders:
        thread.join()
    state["sending"] = False
    log(f"all {len(specs)} jobs sent ({len(accepted)} accepted) in {time.time() - started:.0f} s; waiting for them to end")
    for thread in pollers:
        thread.join()
    stream_wait = time.time() + 60
    while len(streams) < len([s for s in specs if s["n"] % 20 == 0 and s["key"] in accepted]) and time.time() < stream_wait:
        time.sleep(0.2)
    elapsed = time.time() - started
    return specs, accepted, final, downloads, streams, counts, events, elapsed


def check_proof(specs, accepted, final, downloads, streams, photos):
    query = """
        SELECT coalesce(json_agg(json_build_object(
            'id', j.id, 'key', j.idempotency_key, 'kind', j.kind, 'state', j.state, 'result', j.result,
            'attempt', j.attempt, 'crashes', j.crashes,
            'ms', extract(epoch FROM (j.finished_at - j.created_at)) * 1000,
            'succeeded_events', (SELECT count(*) FROM job_events e WHERE e.job_id = j.id AND e.type = 'succeeded'),
            'lost_worker', (SELECT array_agg(e.data ->> 'error' ORDER BY e.id) FROM job_events e
                              WHERE e.job_id = j.id AND e.type = 'requeued'),
            'hosts', (SELECT array_agg(split_part(e.data ->> 'worker', '/', 1) ORDER BY e.id)
                        FROM job_events e WHERE e.job_id = j.id AND e.type = 'running'))), '[]')
          FROM jobs j WHERE j.owner = 'cluster' AND j.parent_id IS NULL"""
    result = psql(query)
    if result.returncode != 0:
        raise SystemExit(f"could not read the jobs: {result.stderr}")
    rows = json.loads(result.stdout)
    by_key = {}
    for row in rows:
        by_key.setdefault(row["key"], []).append(row)

    lost, duplicated, wrong = [], [], []
    for spec in specs:
        key = spec["key"]
        found = by_key.get(key, [])
        if key not in accepted:
            lost.append((key, "never accepted"))
            continue
        if not found:
            lost.append((key, "accepted but no job row"))
            continue
        if len(found) > 1:
            duplicated.append((key, f"{len(found)} jobs for one Idempotency-Key"))
        row = found[0]
        if row["succeeded_events"] > 1:
            duplicated.append((key, f"{row['succeeded_events']} succeeded events"))
        view = final.get(key)
        if view is None:
            lost.append((key, f"{row['kind']} never ended as seen by the other API (database: {row['state']})"))
            continue
        if view["state"] != "succeeded":
            lost.append((key, f"{row['kind']} {view['state']}: {view.get('error')}"))
            continue
        if view["id"] != accepted[key]["id"]:
            wrong.append((key, "the other API showed another job"))
            continue
        if view["result"] != row["result"]:
            wrong.append((key, "the other API's result differs from the database's"))
            continue

        def blob(key=key, view=view):
            if not view.get("result_url"):
                return None
            status, body, where = downloads.get(key, (None, b"", ""))
            return body if status == 200 and where == STORE else None

        problem = check_result(row["kind"], view["result"], photos[spec["photo"]][2], blob)
        if not problem and view.get("result_url"):
            status, body, where = downloads.get(key, (None, b"", ""))
            if where != STORE:
                problem = f"result_url points at {where}, not at the object store {STORE}"
            elif len(body) != view["result"].get("bytes", len(body)):
                problem = f"downloaded {len(body)} bytes, the result says {view['result'].get('bytes')}"
        if problem:
            wrong.append((key, f"{row['kind']}: {problem}"))
        stream = streams.get(key)
        if spec["n"] % 20 == 0 and (stream is None or stream[0] != "succeeded"):
            wrong.append((key, f"its stream through the other API ended on {stream[0] if stream else 'nothing'}"))
    return rows, lost, duplicated, wrong


def proof(args, hosts, photos, token, rng, seed):
    for host in ("api1", "api2", "work1", "work2"):
        hosts.start(host)
    wait_for_workers(4)
    log(f"{args.jobs} jobs at {args.rate:g}/s across api1 and api2, seed {seed}; {len(photos)} real photos; "
        f"logs in {CLUSTER_DIR / 'logs'}")
    mark = LogMark([CLUSTER_DIR / "logs" / f"{host}.log" for host in ("work1", "work2")])
    specs, accepted, final, downloads, streams, counts, events, elapsed = run_proof(args, hosts, photos, token, rng, seed)
    slow_to_stop = hosts.stop_all(args.stop_limit)
    abandoned = mark.abandoned_handlers()
    rows, lost, duplicated, wrong = check_proof(specs, accepted, final, downloads, streams, photos)
    # work1 is off (power cut) when PostgreSQL vanishes, so its processes are not counted.
    stalled = stalled_workers(events["postgres_back_at"], args.stall_limit)

    times = sorted(row["ms"] for row in rows if row["state"] == "succeeded" and row["ms"] is not None)
    ran_on, finished_on = {}, {}
    for row in rows:
        for host in set(row["hosts"] or []):
            ran_on[host] = ran_on.get(host, 0) + 1
        if row["state"] == "succeeded" and row["hosts"]:
            finished_on[row["hosts"][-1]] = finished_on.get(row["hosts"][-1], 0) + 1
    moved = sum(1 for row in rows if row["hosts"] and len(set(row["hosts"])) > 1)
    requeues = [error or "" for row in rows for error in (row["lost_worker"] or [])]
    by_kind = {}
    for row in rows:
        if row["state"] == "succeeded" and row["ms"] is not None:
            by_kind.setdefault(row["kind"], []).append(row["ms"])
    summary = {
        "jobs": args.jobs, "accepted": len(accepted), "succeeded": len(times),
        "lost": len(lost), "duplicated": len(duplicated), "wrong": len(wrong),
        "p50_ms": round(percentile(times, 50)), "p99_ms": round(percentile(times, 99)),
        "p50_ms_by_kind": {k: round(percentile(sorted(v), 50)) for k, v in sorted(by_kind.items())},
        "accepted_by_api": {a: sum(1 for j in accepted.values() if j["api"] == a) for a in APIS},
        "polls_by_api": counts["polls"], "poll_errors": counts["poll_errors"], "send_retries": counts["send_retries"],
        "succeeded_on_host": dict(sorted(finished_on.items())), "attempts_on_host": dict(sorted(ran_on.items())),
        "jobs_moved_between_hosts": moved,
        "rescued_lease_expired": sum(1 for e in requeues if "lease expired" in e),
        "rescued_process_gone": sum(1 for e in requeues if "process is gone" in e),
        "handlers_abandoned": len(abandoned),
        "stalled_after_outage": stalled, "slow_to_stop": slow_to_stop,
        "streams": len(streams), "streams_resumed": sum(1 for s in streams.values() if s[2] > 0),
        "downloads_from_store": sum(1 for d in downloads.values() if d[0] == 200 and d[2] == STORE),
        "download_bytes": sum(len(d[1]) for d in downloads.values()),
        **events, "elapsed_s": round(elapsed), "rate": args.rate, "seed": seed,
    }
    with open(CLUSTER_DIR / "results.jsonl", "a") as out:
        out.write(json.dumps(dict(summary, when=time.strftime("%Y-%m-%dT%H:%M:%S"))) + "\n")
    for title, items in (("lost", lost), ("duplicated", duplicated), ("wrong", wrong)):
        for key, why in items[:20]:
            log(f"{title}: {key} — {why}")
    for worker in stalled:
        log(f"stalled: worker {worker} started no job within {args.stall_limit:g} s of PostgreSQL's return")
    for host in slow_to_stop:
        log(f"slow to stop: {host} had not exited {args.stop_limit:g} s after SIGTERM")
    for host, line in abandoned[:20]:
        log(f"{host}: a handler did not stop when told (its job was handed back): {line[:600]}")
    print(json.dumps(summary, indent=2))
    failed = bool(lost or duplicated or wrong or stalled or slow_to_stop)
    log(("FAILED" if failed else "OK") + f": lost {len(lost)}, duplicated {len(duplicated)}, wrong {len(wrong)}, "
        f"stalled {len(stalled)}, slow to stop {len(slow_to_stop)}; "
        f"p50 {summary['p50_ms']} ms, p99 {summary['p99_ms']} ms; succeeded on {summary['succeeded_on_host']}; "
        f"{summary['elapsed_s']} s")
    return 1 if failed else 0


# ---------------------------------------------------------------------------------- throughput

def drain(hosts, token, photos, count, label, rng, queue=None):
    """Enqueues `count` stylize jobs through api1 (into `queue` paused, so the workers meet them
    all at once, when given) and waits for them; jobs/s from the first start to the last finish
    (database clock). Returns (report, the jobs' queue)."""
    if queue:
        hosts.run("api1", "queue", "pause", queue)
    keys = []
    for n in range(count):
        spec = {"n": n, "kind": "stylize", "photo": n % len(photos), "style": rng.choice(["cartoon", "sketch", "watercolor", "comic"]),
                "advisor": "", "image_index": False}
        body, content_type = body_for(spec, photos, "cluster")
        status, _, answer = request("POST", HOSTS["api1"], API_PORT, "/v1/jobs", body,
                                    {"X-App-Token": token, "Content-Type": content_type}, timeout=30)
        if status not in (200, 201):
            raise SystemExit(f"enqueue refused: {status} {answer[:200]!r}")
        keys.append(json.loads(answer)["id"])
    ids = ",".join(f"'{k}'" for k in keys)
    if queue:
        hosts.run("api1", "queue", "resume", queue)
    while True:
        result = psql(f"SELECT count(*) FILTER (WHERE state IN ('queued', 'running')), count(*) FILTER (WHERE state = 'failed') "
                      f"FROM jobs WHERE id IN ({ids})")
        left, failed = map(int, result.stdout.strip().split("|"))
        if failed:
            raise SystemExit(f"{failed} stylize jobs failed during the {label} drain")
        if left == 0:
            break
        time.sleep(0.2)
    result = psql(f"SELECT extract(epoch FROM max(finished_at) - min(started_at)), "
                  f"(SELECT count(DISTINCT split_part(e.data ->> 'worker', '/', 1)) FROM job_events e "
                  f"  WHERE e.type = 'running' AND e.job_id IN ({ids})) FROM jobs WHERE id IN ({ids})")
    seconds, host_count = result.stdout.strip().split("|")
    seconds = float(seconds)
    log(f"{label}: {count} stylize jobs in {seconds:.2f} s = {count / seconds:.1f} jobs/s (ran on {host_count} hosts)")
    report = {"label": label, "jobs": count, "seconds": round(seconds, 2), "jobs_per_second": round(count / seconds, 2),
              "hosts_used": int(host_count)}
    return report, psql(f"SELECT queue FROM jobs WHERE id = '{keys[0]}'").stdout.strip()


def throughput(args, hosts, photos, token, rng):
    hosts.start("api1")
    hosts.start("work1")
    wait_for_workers(2)
    _, queue = drain(hosts, token, photos, max(10, args.jobs // 10), "warm-up, work1", rng)
    one, _ = drain(hosts, token, photos, args.jobs, "1 worker host (work1: 2 processes)", rng, queue)
    hosts.start("work2")
    wait_for_workers(4)
    two, _ = drain(hosts, token, photos, args.jobs, "2 worker hosts (work1 + work2: 4 processes)", rng, queue)
    hosts.stop_all()
    summary = {"scenario": "stylize-throughput", "one_host": one, "two_hosts": two,
               "two_over_one": round(two["jobs_per_second"] / one["jobs_per_second"], 2),
               "photos": [list(p[2]) for p in photos], "cores": os.cpu_count()}
    with open(CLUSTER_DIR / "results.jsonl", "a") as out:
        out.write(json.dumps(dict(summary, when=time.strftime("%Y-%m-%dT%H:%M:%S"))) + "\n")
    print(json.dumps(summary, indent=2))
    log(f"2 hosts / 1 host: {summary['two_over_one']}× ({os.cpu_count()} cores shared by every host)")
    return 0


def main():
    parser = argparse.ArgumentParser(description="./ops/cluster driver")
    parser.add_argument("--jobs", type=int, default=None, help="jobs (default 2,000; 400 with --quick; 200 with --throughput)")
    parser.add_argument("--rate", type=float, default=None, help="jobs sent per second (default 20; 10 with --quick)")
    parser.add_argument("--outage", type=float, default=5.0, help="seconds db's PostgreSQL stays down")
    parser.add_argument("--stall-limit", type=float, default=60.0,
                        help="seconds after PostgreSQL's return by which every worker process up through the outage starts a job")
    parser.add_argument("--stop-limit", type=float, default=30.0, help="seconds each process has to exit after SIGTERM")
    parser.add_argument("--deadline", type=float, default=None, help="seconds to wait for every job after sending")
    parser.add_argument("--quick", action="store_true", help="400 jobs, a few minutes (CI)")
    parser.add_argument("--throughput", action="store_true", help="stylize throughput with 1, then 2 worker hosts")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    args.jobs = args.jobs or (200 if args.throughput else 400 if args.quick else 2000)
    args.rate = args.rate or (10.0 if args.quick else 20.0)
    args.deadline = args.deadline or 300.0
    seed = args.seed if args.seed is not None else int(time.time())
    rng = random.Random(seed)

    photos = scaled_photos([p for p in ENV["CLUSTER_PHOTOS"].split(":") if p][:6])
    hosts = Hosts()
    try:
        hosts.run("api1", "migrate")
        token = hosts.run("api1", "tokens", "create", "--name", f"cluster-{seed}", "--owner", "cluster")
        if args.throughput:
            return throughput(args, hosts, photos, token, rng)
        return proof(args, hosts, photos, token, rng, seed)
    finally:
        hosts.stop_all()


if __name__ == "__main__":
    sys.exit(main())
