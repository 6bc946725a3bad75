"""Procrastinate side of the queue benchmark.

    python procrastinate_bench.py --dsn postgres://postgres@127.0.0.1:55127/DB --scenario drain

Worker: ``App(connector=PsycopgConnector(conninfo=DSN))`` and
``app.run_worker_async(concurrency=C)``; every other setting is the default
(LISTEN/NOTIFY on, 5 s polling fallback, heartbeat every 10 s, finished jobs
kept in the table with status ``succeeded``).
"""

from __future__ import annotations

import logging
from importlib.metadata import version

import procrastinate
from procrastinate.jobs import Status

import harness

# Crash scenario, second run: the "Retry stalled jobs" recipe from the
# Procrastinate docs (howto/production/retry_stalled_jobs), deferred every
# second instead of every 10 minutes; get_stalled_jobs() keeps its default
# seconds_since_heartbeat=30.
STALLED_CRON = "* * * * * *"  # 6th column = seconds


# The App is built in this script's __main__ module; task names are explicit,
# so Procrastinate's "App is instantiated in the main Python module" warning
# does not apply here.
logging.getLogger("procrastinate.blueprints").setLevel(logging.ERROR)


def make_app(dsn: str, handler=None, retry_stalled: bool = False) -> procrastinate.App:
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=dsn))

    @app.task(name="bench")
    async def bench(**payload) -> None:
        await handler(payload)

    if retry_stalled:
        @app.periodic(cron=STALLED_CRON)
        @app.task(name="retry_stalled_jobs", queueing_lock="retry_stalled_jobs",
                  pass_context=True)
        async def retry_stalled_jobs(context, timestamp) -> None:
            for job in await app.job_manager.get_stalled_jobs():
                await app.job_manager.retry_job(job)

    return app


class Client:
    def __init__(self, app: procrastinate.App):
        self.app = app
        self.task = app.tasks["bench"]

    async def enqueue(self, payloads: list[dict]) -> None:
        if len(payloads) == 1:
            await self.task.defer_async(**payloads[0])
        else:
            await self.task.batch_defer_async(*payloads)

    async def close(self) -> None:
        await self.app.close_async()


class ProcrastinatePeer:
    system = "procrastinate"
    version = version("procrastinate")
    unfinished_sql = "SELECT count(*) FROM procrastinate_jobs WHERE status IN ('todo', 'doing')"
    crash_variant = (
        f"docs 'Retry stalled jobs' periodic task, cron '{STALLED_CRON}' (every second), "
        "get_stalled_jobs(seconds_since_heartbeat=30 default), worker heartbeat 10 s default"
    )
    crash_note = (
        "default settings never rerun a SIGKILLed worker's job: it stays 'doing' forever. "
        "Recovery needs the documented periodic task calling job_manager.get_stalled_jobs() "
        "and retry_job() (docs suggest cron '*/10 * * * *'); see the 'settings' line"
    )

    async def install(self, dsn: str) -> None:
        app = make_app(dsn)
        async with app.open_async():
            await app.schema_manager.apply_schema_async()

    async def client(self, dsn: str) -> Client:
        app = make_app(dsn)
        await app.open_async()
        return Client(app)

    async def work(self, dsn, concurrency, handler, ready, variant) -> None:
        app = make_app(dsn, handler, retry_stalled=bool(variant))
        async with app.open_async():
            ready()
            # Installs its own SIGTERM/SIGINT handlers: first signal = graceful stop.
            await app.run_worker_async(concurrency=concurrency)

    async def discard_stuck(self, dsn: str) -> None:
        """Mark jobs left 'doing' by the killed worker as failed before the next run."""
        app = make_app(dsn)
        async with app.open_async():
            for job in await app.job_manager.list_jobs_async(status="doing"):
                await app.job_manager.finish_job_by_id_async(job.id, Status.FAILED, False)


if __name__ == "__main__":
    harness.main(ProcrastinatePeer())
