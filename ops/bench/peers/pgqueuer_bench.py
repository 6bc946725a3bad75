"""PgQueuer side of the queue benchmark.

    python pgqueuer_bench.py --dsn postgres://postgres@127.0.0.1:55127/DB --scenario drain

Worker: the documented factory + ``pgqueuer.run`` path (what ``pgq run`` does),
one asyncpg connection per worker, defaults everywhere except the per-process
concurrency cap: ``max_concurrent_tasks=C``. PgQueuer requires
``max_concurrent_tasks >= 2 * batch_size``, so ``batch_size`` is
``min(10, C // 2)`` (10 is the default; C=16 gives 8).
"""

from __future__ import annotations

import json
from contextlib import asynccontextmanager
from importlib.metadata import version

import asyncpg
import pgqueuer
from pgqueuer import PgQueuer
from pgqueuer.db import AsyncpgDriver
from pgqueuer.models import Job
from pgqueuer.queries import Queries

import harness

ENTRYPOINT = "bench"


class Client:
    def __init__(self, conn: asyncpg.Connection):
        self.conn = conn
        self.queries = Queries(AsyncpgDriver(conn))

    async def enqueue(self, payloads: list[dict]) -> None:
        data = [json.dumps(p).encode() for p in payloads]
        if len(data) == 1:
            await self.queries.enqueue(ENTRYPOINT, data[0])
        else:
            await self.queries.enqueue([ENTRYPOINT] * len(data), data, [0] * len(data))

    async def close(self) -> None:
        await self.conn.close()


class PgQueuerPeer:
    system = "pgqueuer"
    version = version("pgqueuer")
    # Finished jobs are deleted from the queue table (and logged in pgqueuer_log).
    unfinished_sql = "SELECT count(*) FROM pgqueuer WHERE status IN ('queued', 'picked')"
    running_sql = "SELECT count(*) FROM pgqueuer WHERE status = 'picked'"
    # An enqueue writes the job and a 'queued' row in its log.
    empty_sql = "TRUNCATE pgqueuer, pgqueuer_log"
    crash_variant = None
    crash_note = (
        "default settings: a picked job whose heartbeat is older than heartbeat_timeout "
        "(default 30 s; heartbeats every 15 s) is re-picked by the next dequeue of another "
        "worker; an idle worker dequeues on NOTIFY or every dequeue_timeout (default 30 s)"
    )

    async def install(self, dsn: str) -> None:
        conn = await asyncpg.connect(dsn)
        try:
            await Queries(AsyncpgDriver(conn)).install()
        finally:
            await conn.close()

    async def client(self, dsn: str) -> Client:
        return Client(await asyncpg.connect(dsn))

    async def work(self, dsn, concurrency, handler, ready, variant) -> None:
        if concurrency < 2:
            raise SystemExit("pgqueuer needs --concurrency >= 2 (max_concurrent_tasks >= 2*batch)")

        @asynccontextmanager
        async def factory():
            conn = await asyncpg.connect(dsn)
            pgq = PgQueuer.from_asyncpg_connection(conn)

            # The limits scenario's variant, "limit=N": PgQueuer's concurrency_limit, which it
            # keeps in the database across all workers (1.6.0 has no rate limit).
            limit = int(variant.removeprefix("limit=")) if variant.startswith("limit=") else 0

            @pgq.entrypoint(ENTRYPOINT, concurrency_limit=limit)
            async def bench(job: Job) -> None:
                await handler(json.loads(job.payload))

            ready()
            try:
                yield pgq
            finally:
                await conn.close()

        # Handles SIGTERM/SIGINT itself: stops dequeuing, lets running jobs finish.
        await pgqueuer.run(factory, batch_size=min(10, concurrency // 2),
                           max_concurrent_tasks=concurrency)


if __name__ == "__main__":
    harness.main(PgQueuerPeer())
