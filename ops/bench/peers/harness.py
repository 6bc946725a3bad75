"""Shared harness for the peer queue benchmarks (see README.md).

A peer script (pgqueuer_bench.py, procrastinate_bench.py) defines a small peer
object and calls ``harness.main(peer)``. The peer object provides:

    system, version     names for the JSON output
    unfinished_sql      SELECT count(*) of jobs not finished yet
    crash_note          text for the crash scenario's "note"
    crash_variant       None, or a settings string for a second crash run
    empty_sql           (only for the enqueue scenario) statement that empties the
                        peer's job tables between shapes
    async install(dsn)  install the peer's schema
    async client(dsn)   object with async enqueue(list[dict]) and async close()
    async work(dsn, concurrency, handler, ready, variant)
                        run the peer's worker until SIGTERM; ``handler(dict)``
                        is the job body, ``ready()`` is called once it starts
    async discard_stuck(dsn)   (only with a crash_variant) end jobs left
                               running by a killed worker

The same script runs as the harness and, with the hidden ``--worker`` flag, as
each worker process. Workers report to the harness through a JSON-lines file
each (never through the database). Only the harness writes to stdout: one
JSON line per result.
"""

from __future__ import annotations

import argparse
import asyncio
import faulthandler
import json
import logging
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import asyncpg

log = logging.getLogger("bench")

POLL_S = 0.05  # drain: database poll interval
STOP_GRACE_S = 20  # how long a worker gets to stop after SIGTERM


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dsn", required=True)
    p.add_argument("--scenario", required=True, choices=sorted(SCENARIOS))
    p.add_argument("--jobs", type=int, help="drain: 50000, pickup: 1000, enqueue: 20000 per shape")
    p.add_argument("--workers", type=int, help="worker processes; pickup: 1, else 2")
    p.add_argument("--concurrency", type=int, default=16, help="per worker process")
    p.add_argument("--seconds", type=float, default=30, help="sustained: window length")
    p.add_argument("--batch", type=int, default=10, help="sustained: jobs per enqueue")
    p.add_argument("--producers", default="2",
                   help="sustained: producer tasks; enqueue: comma-separated counts (1,4,16)")
    p.add_argument("--batches", default="1,10,100", help="enqueue: comma-separated jobs per call")
    p.add_argument("--interval-ms", type=float, default=20, help="pickup: enqueue spacing")
    p.add_argument("--backlog", type=int, default=20_000, help="noisy-neighbour: owner A's jobs")
    p.add_argument("--newcomers", type=int, default=100, help="noisy-neighbour: owner B's jobs")
    p.add_argument("--job-ms", type=float, default=20, help="noisy-neighbour, limits: each job's sleep")
    p.add_argument("--limit", type=int, default=4, help="limits: the concurrency limit across workers")
    p.add_argument("--crash-timeout", type=float, default=180, help="crash: wait for rerun")
    p.add_argument("--timeout", type=float, help="give up after this many seconds")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--events", help=argparse.SUPPRESS)
    p.add_argument("--variant", default="", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.jobs is None:
        args.jobs = {"pickup": 1000, "enqueue": 20_000}.get(args.scenario, 50_000)
    if args.workers is None:
        args.workers = 1 if args.scenario == "pickup" else 2
    if args.timeout is None:
        args.timeout = {
            "drain": 900,
            "sustained": args.seconds + 180,
            "pickup": args.jobs * args.interval_ms / 1000 + 180,
            "crash": 2 * args.crash_timeout + 240,
            "enqueue": 900,
            "noisy-neighbour": 900,
            "limits": 900,
        }[args.scenario]
    return args


def main(peer) -> None:
    args = parse_args()
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.WARNING,
        format=f"%(asctime)s {peer.system} %(process)d %(name)s %(levelname)s %(message)s",
    )
    if args.worker:
        worker_main(peer, args)
        return
    # Last resort if the event loop itself is stuck: dump stacks and exit 1.
    # Workers then see EOF on stdin and exit too.
    faulthandler.dump_traceback_later(args.timeout + 60, exit=True)
    try:
        results = asyncio.run(run(peer, args))
    except TimeoutError as exc:
        why = str(exc) or f"no result after {args.timeout:.0f} s"
        print(f"{peer.system} {args.scenario}: timed out ({why}), giving up", file=sys.stderr)
        sys.exit(2)
    except (asyncio.CancelledError, KeyboardInterrupt):
        print(f"{peer.system} {args.scenario}: interrupted", file=sys.stderr)
        sys.exit(130)
    for result in results:
        print(json.dumps(result), flush=True)


async def run(peer, args) -> list[dict]:
    main_task = asyncio.current_task()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main_task.cancel)
    await peer.install(args.dsn)
    db = await asyncpg.connect(args.dsn)
    try:
        async with asyncio.timeout(args.timeout):
            return await SCENARIOS[args.scenario](peer, args, db)
    finally:
        await db.close()


# ---------------------------------------------------------------- worker side


def worker_main(peer, args) -> None:
    events = open(args.events, "a", buffering=1)  # line-buffered: one write per event
    pid = os.getpid()

    def emit(**event) -> None:
        events.write(json.dumps(event) + "\n")

    async def handler(payload: dict) -> None:
        started_ns = time.time_ns()
        if "warmup" in payload:
            emit(warmup=pid)
        elif "nn" in payload:  # noisy-neighbour: owner "a" or "b"
            if payload["nn"] == "b":
                emit(nn="b", t=payload["t"], s=started_ns)
            else:
                emit(nn="a")
            await asyncio.sleep(payload["ms"] / 1000)
        elif "lim" in payload:  # limits
            emit(lim=started_ns)
            await asyncio.sleep(payload["ms"] / 1000)
        elif "t" in payload:  # pickup
            emit(t=payload["t"], s=started_ns)
        elif "crash" in payload:
            emit(crash=payload["crash"], pid=pid, ns=started_ns)
            await asyncio.sleep(5)
        # anything else: no-op

    def exit_when_harness_dies() -> None:
        while os.read(0, 4096):  # b"" = EOF: the harness is gone
            pass
        os._exit(3)

    threading.Thread(target=exit_when_harness_dies, daemon=True).start()
    asyncio.run(peer.work(args.dsn, args.concurrency, handler,
                          lambda: emit(ready=pid), args.variant))


# ---------------------------------------------------------------- harness side


class Workers:
    """W worker processes of the current script, stopped on exit whatever happens."""

    def __init__(self, args, count: int, variant: str = ""):
        self.args, self.count, self.variant = args, count, variant
        self.dir = tempfile.TemporaryDirectory(prefix="bench-peer-")
        self.procs: list[subprocess.Popen] = []
        self.killed: set[int] = set()

    async def __aenter__(self) -> Workers:
        for i in range(self.count):
            cmd = [sys.executable, os.path.abspath(sys.argv[0]), "--worker",
                   "--dsn", self.args.dsn, "--scenario", self.args.scenario,
                   "--concurrency", str(self.args.concurrency),
                   "--events", str(Path(self.dir.name) / f"worker-{i}.jsonl"),
                   "--variant", self.variant]
            self.procs.append(subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=sys.stderr))
        return self

    async def __aexit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        for p in self.procs:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("worker %d ignored SIGTERM for %d s, killing it", p.pid, STOP_GRACE_S)
                p.kill()
                p.wait()
            p.stdin.close()
        self.dir.cleanup()

    def kill(self, pid: int) -> None:
        self.killed.add(pid)
        os.kill(pid, signal.SIGKILL)

    def check_alive(self) -> None:
        for p in self.procs:
            if p.pid not in self.killed and p.poll() is not None:
                raise RuntimeError(f"worker {p.pid} exited with code {p.returncode}")

    def events(self) -> list[dict]:
        out = []
        for f in sorted(Path(self.dir.name).glob("*.jsonl")):
            text = f.read_text()
            out += [json.loads(line) for line in text[: text.rfind("\n") + 1].splitlines()]
        return out

    async def wait_for(self, match, count: int = 1, timeout: float = 60) -> list[dict]:
        """Wait until ``count`` events satisfy ``match``; TimeoutError after ``timeout``."""
        deadline = time.monotonic() + timeout
        while len(found := [e for e in self.events() if match(e)]) < count:
            self.check_alive()
            if time.monotonic() > deadline:
                raise TimeoutError(f"{len(found)}/{count} expected worker events")
            await asyncio.sleep(0.01)
        return found

    async def wait_ready(self, client) -> None:
        """All workers started, one warm-up job ran, then 1 s of quiet."""
        await self.wait_for(lambda e: "ready" in e, self.count)
        await client.enqueue([{"warmup": True}])
        await self.wait_for(lambda e: "warmup" in e)
        await asyncio.sleep(1)


async def unfinished(peer, db) -> int:
    return await db.fetchval(peer.unfinished_sql)


def header(peer, scenario: str) -> dict:
    return {"system": peer.system, "version": peer.version, "scenario": scenario}


async def drain(peer, args, db) -> list[dict]:
    n = args.jobs
    client = await peer.client(args.dsn)
    try:
        for i in range(0, n, 5000):
            await client.enqueue([{}] * min(5000, n - i))
    finally:
        await client.close()
    if (queued := await unfinished(peer, db)) != n:
        raise RuntimeError(f"expected {n} unfinished jobs after enqueue, found {queued}")

    async with Workers(args, args.workers) as workers:
        t0 = None
        tick = time.monotonic()
        while True:
            left = await unfinished(peer, db)
            now = time.monotonic()
            if t0 is None and left < n:
                t0 = now
            if left == 0:
                break
            workers.check_alive()
            tick += POLL_S
            await asyncio.sleep(max(0.0, tick - time.monotonic()))
    seconds = now - t0
    return [header(peer, "drain") | {
        "jobs": n, "workers": args.workers, "concurrency": args.concurrency,
        "seconds": round(seconds, 3),
        "jobs_per_second": round(n / seconds, 1) if seconds > 0 else None,
    }]


async def sustained(peer, args, db) -> list[dict]:
    clients = [await peer.client(args.dsn) for _ in range(int(args.producers))]
    enqueued = 0

    async def produce(client, deadline: float) -> None:
        nonlocal enqueued
        while time.monotonic() < deadline:
            await client.enqueue([{}] * args.batch)
            enqueued += args.batch

    try:
        async with Workers(args, args.workers) as workers:
            await workers.wait_ready(clients[0])
            before = await unfinished(peer, db)
            deadline = time.monotonic() + args.seconds
            await asyncio.gather(*(produce(c, deadline) for c in clients))
            # Snapshot as soon as the last in-flight batch has returned (a few ms late).
            left = await unfinished(peer, db)
            workers.check_alive()
    finally:
        for c in clients:
            await c.close()
    completed = enqueued + before - left
    return [header(peer, "sustained") | {
        "seconds": args.seconds, "workers": args.workers, "concurrency": args.concurrency,
        "enqueued": enqueued, "completed": completed,
        "jobs_per_second": round(completed / args.seconds, 1),
    }]


def counts(text: str) -> list[int]:
    values = [int(v) for v in text.split(",")]
    if not values or min(values) < 1:
        raise SystemExit(f"expected positive whole numbers separated by commas, got {text!r}")
    return values


async def enqueue(peer, args, db) -> list[dict]:
    """The insert path alone, no workers: for each shape (``batch`` jobs per enqueue call,
    from ``producers`` concurrent producers on a connection each) about ``--jobs`` jobs are
    inserted as fast as the producers can; jobs inserted per second. Each shape starts from
    empty tables, after an untimed round (every connection has prepared the insert). Same
    shapes as ``atelier bench queue enqueue``."""
    batches, producer_counts = counts(args.batches), counts(args.producers)
    clients = [await peer.client(args.dsn) for _ in range(max(producer_counts))]
    results = []

    async def produce(client, calls: int, batch: int) -> None:
        payloads = [{}] * batch
        for _ in range(calls):
            await client.enqueue(payloads)

    async def round_of(producers: int, calls: int, batch: int) -> int:
        await asyncio.gather(*(produce(c, calls, batch) for c in clients[:producers]))
        return producers * calls * batch

    try:
        for batch in batches:
            for producers in producer_counts:
                calls = max(1, args.jobs // (producers * batch))
                await db.execute(peer.empty_sql)
                await round_of(producers, 2, batch)
                await db.execute(peer.empty_sql)
                t0 = time.monotonic()
                inserted = await round_of(producers, calls, batch)
                seconds = time.monotonic() - t0
                if (queued := await unfinished(peer, db)) != inserted:
                    raise RuntimeError(f"inserted {inserted} jobs but {queued} are unfinished")
                results.append(header(peer, "enqueue") | {
                    "batch": batch, "producers": producers, "jobs": inserted,
                    "seconds": round(seconds, 3),
                    "jobs_per_second": round(inserted / seconds, 1),
                })
    finally:
        for c in clients:
            await c.close()
    return results


def nearest_rank(sorted_values: list[float], pct: float) -> float:
    return sorted_values[max(1, math.ceil(pct / 100 * len(sorted_values))) - 1]


async def pickup(peer, args, db) -> list[dict]:
    n, interval = args.jobs, args.interval_ms / 1000
    client = await peer.client(args.dsn)
    try:
        async with Workers(args, args.workers) as workers:
            await workers.wait_ready(client)
            start = time.monotonic()
            for i in range(n):
                await asyncio.sleep(max(0.0, start + i * interval - time.monotonic()))
                await client.enqueue([{"t": time.time_ns()}])
            events = await workers.wait_for(lambda e: "t" in e, n, timeout=60)
    finally:
        await client.close()
    ms = sorted((e["s"] - e["t"]) / 1e6 for e in events)
    return [header(peer, "pickup") | {
        "jobs": n,
        **{f"p{p}_ms": round(nearest_rank(ms, p), 2) for p in (50, 95, 99)},
        "max_ms": round(ms[-1], 2),
    }]


async def crash(peer, args, db) -> list[dict]:
    results = [await crash_once(peer, args, variant="")]
    if results[0]["seconds_to_rerun"] is None and peer.crash_variant:
        await peer.discard_stuck(args.dsn)
        results.append(await crash_once(peer, args, variant=peer.crash_variant))
    return results


async def crash_once(peer, args, variant: str) -> dict:
    tag = variant or "default"
    client = await peer.client(args.dsn)
    try:
        async with Workers(args, 2, variant) as workers:
            await workers.wait_ready(client)
            await client.enqueue([{"crash": tag}])
            [first] = await workers.wait_for(lambda e: e.get("crash") == tag)
            workers.kill(first["pid"])
            killed_ns = time.time_ns()
            log.warning("killed worker %d running the crash job", first["pid"])
            try:
                [again] = await workers.wait_for(
                    lambda e: e.get("crash") == tag and e["pid"] != first["pid"],
                    timeout=args.crash_timeout)
                seconds = round((again["ns"] - killed_ns) / 1e9, 2)
            except TimeoutError:
                seconds = None
    finally:
        await client.close()
    result = header(peer, "crash") | {"seconds_to_rerun": seconds}
    if variant:
        result["settings"] = variant
    else:
        result["note"] = peer.crash_note
    return result


async def noisy_neighbour(peer, args, db) -> list[dict]:
    """Owner A's backlog, then owner B's jobs one at a time (same shape as Atelier's
    ``atelier bench queue noisy-neighbour``). The peer has no owners: its queue is FIFO, so
    "owner" is only a field of the payload. B's wait runs from just before its enqueue call to
    the handler's first line."""
    client = await peer.client(args.dsn)
    try:
        async with Workers(args, args.workers) as workers:
            await workers.wait_ready(client)
            for i in range(0, args.backlog, 5000):
                n = min(5000, args.backlog - i)
                await client.enqueue([{"nn": "a", "ms": args.job_ms}] * n)
            await workers.wait_for(lambda e: e.get("nn") == "a", args.backlog // 10, timeout=600)
            start = time.monotonic()
            for i in range(args.newcomers):
                await asyncio.sleep(max(0.0, start + i * args.interval_ms / 1000 - time.monotonic()))
                await client.enqueue([{"nn": "b", "t": time.time_ns(), "ms": args.job_ms}])
            events = await workers.wait_for(lambda e: e.get("nn") == "b", args.newcomers, timeout=900)
            a_done = len([e for e in workers.events() if e.get("nn") == "a"])
    finally:
        await client.close()
    ms = sorted((e["s"] - e["t"]) / 1e6 for e in events)
    p99 = nearest_rank(ms, 99)
    return [header(peer, "noisy-neighbour") | {
        "fair_share": False, "backlog": args.backlog, "newcomers": args.newcomers,
        "job_ms": args.job_ms, "interval_ms": args.interval_ms,
        "workers": args.workers, "concurrency": args.concurrency,
        "b_p50_ms": round(nearest_rank(ms, 50), 2), "b_p99_ms": round(p99, 2), "b_max_ms": round(ms[-1], 2),
        "b_p99_in_jobs": round(p99 / args.job_ms, 2),
        "a_started": a_done,
    }]


async def limits(peer, args, db) -> list[dict]:
    """One entrypoint under a concurrency limit across all workers (same shape as Atelier's
    ``atelier bench queue limits``): ``--jobs`` jobs of ``--job-ms``, the highest number of
    picked jobs the database shows (sampled every 2 ms), and the rate of handler starts. The
    peer's worker gets the limit through ``variant`` (``limit=N``); a rate limit it has not."""
    n = args.jobs
    client = await peer.client(args.dsn)
    try:
        await client.enqueue([{"lim": True, "ms": args.job_ms}] * n)
    finally:
        await client.close()
    highest = samples = 0
    start = time.monotonic()
    async with Workers(args, args.workers, variant=f"limit={args.limit}") as workers:
        while True:
            running = await db.fetchval(peer.running_sql)
            highest, samples = max(highest, running), samples + 1
            if await unfinished(peer, db) == 0:
                break
            workers.check_alive()
            await asyncio.sleep(0.002)
        seconds = time.monotonic() - start
        starts = sorted(e["lim"] for e in workers.events() if "lim" in e)
    per_s = (len(starts) - 1) / ((starts[-1] - starts[0]) / 1e9) if len(starts) > 1 else None
    late = starts[len(starts) // 2:]
    late_per_s = (len(late) - 1) / ((late[-1] - late[0]) / 1e9) if len(late) > 1 else None
    busiest, lower = 0, 0
    for upper in range(len(starts)):
        while starts[upper] - starts[lower] >= 1e9:
            lower += 1
        busiest = max(busiest, upper - lower + 1)
    return [header(peer, "limits") | {
        "jobs": n, "job_ms": args.job_ms, "concurrency_limit": args.limit, "rate_limit": None,
        "workers": args.workers, "concurrency": args.concurrency,
        "max_running_seen": highest, "samples": samples, "seconds": round(seconds, 2),
        "starts_per_s": round(per_s, 2) if per_s else None,
        "late_half_starts_per_s": round(late_per_s, 2) if late_per_s else None,
        "busiest_second_starts": busiest,
    }]


SCENARIOS = {"noisy-neighbour": noisy_neighbour, "limits": limits, "drain": drain, "sustained": sustained, "pickup": pickup, "crash": crash, "enqueue": enqueue}
