#!/usr/bin/env python3
"""What PostgreSQL spent on one benchmark run, per job: ops/bench/queue takes a snapshot before a
run and one after, and adds the difference, divided by the run's jobs, to its JSON line.

  pg_cost.py snapshot PGDATA PSQL DSN > before.json
  pg_cost.py add before.json after.json < run.jsonl > run-with-cost.jsonl

A snapshot holds:
  cpu_ticks   CPU time of every PostgreSQL process: the postmaster's reaped children (a worker's
              backend has exited by the time a run ends) plus its live ones, from /proc. The
              only figure that counts what the server did, whatever the statement.
  xacts       transactions committed and rolled back in the run's database (pg_stat_database):
              with autocommit statements, one per statement or explicit transaction sent.
  rows        rows inserted, updated and deleted there, HOT updates apart (an update that
              writes no index entry), so a change that adds an index or a trigger's row shows.
  wal_bytes   WAL written by the whole server (pg_current_wal_lsn): the run is alone on it.
  wal_records WAL records and full-page images (pg_stat_wal). With data checksums on (initdb's
              default since PostgreSQL 18) a read that sets a hint bit on a page first touched
              since the last checkpoint writes an image of it: which reads do depends on when
              commits land, so WAL bytes move with timing (1,437–2,000 per single-job enqueue in
              runs of one build) while records barely do.
  calls       function calls (track_functions = all, set on the database by ops/bench/queue),
              with their self time: which function and trigger the time goes to.
  tables      rows written and updates that were not HOT, per table, and each table's indexes.
pg_stat_statements is not in this PostgreSQL build (pgserver ships no contrib modules), so
statements are counted as transactions."""
import json
import os
import subprocess
import sys


def cpu_ticks(pgdata):
    postmaster = int(open(os.path.join(pgdata, "postmaster.pid")).readline())
    def stat(pid):
        text = open(f"/proc/{pid}/stat").read()
        return text[text.rindex(")") + 2:].split()
    fields = stat(postmaster)
    # utime, stime, cutime, cstime are fields 14–17 (1-based) of /proc/PID/stat; after the
    # command name they are at 11–14 (0-based).
    total = sum(int(f) for f in fields[11:15])
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            child = stat(pid)
        except OSError:
            continue
        if int(child[1]) == postmaster:
            total += int(child[11]) + int(child[12]) + int(child[13]) + int(child[14])
    return total


def query(psql, dsn, sql):
    return subprocess.run([psql, "-X", "-qAt", "-F", "\t", "-d", dsn, "-c", sql],
                          check=True, capture_output=True, text=True).stdout.strip()


def snapshot(pgdata, psql, dsn):
    xacts, ins, upd, hot, dele, wal = query(psql, dsn, """
        SELECT d.xact_commit + d.xact_rollback,
               (SELECT coalesce(sum(n_tup_ins), 0) FROM pg_stat_user_tables),
               (SELECT coalesce(sum(n_tup_upd), 0) FROM pg_stat_user_tables),
               (SELECT coalesce(sum(n_tup_hot_upd), 0) FROM pg_stat_user_tables),
               (SELECT coalesce(sum(n_tup_del), 0) FROM pg_stat_user_tables),
               pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')
          FROM pg_stat_database d WHERE d.datname = current_database()""").split("\t")
    wal_records, wal_fpi = query(psql, dsn, "SELECT wal_records, wal_fpi FROM pg_stat_wal").split("\t")
    calls = {}
    for line in query(psql, dsn, "SELECT funcname, calls, self_time FROM pg_stat_user_functions").splitlines():
        name, n, ms = line.split("\t")
        calls[name] = [int(n), float(ms)]
    tables = {}
    for line in query(psql, dsn, """SELECT relname, n_tup_ins + n_tup_upd + n_tup_del, n_tup_upd - n_tup_hot_upd
                                      FROM pg_stat_user_tables""").splitlines():
        name, written, not_hot = line.split("\t")
        tables[name] = [int(written), int(not_hot)]
    indexes = {}
    for line in query(psql, dsn, """SELECT c.relname, i.relname FROM pg_index x
                                      JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
                                      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'""").splitlines():
        table, index = line.split("\t")
        indexes.setdefault(table, []).append(index)
    return {"cpu_ticks": cpu_ticks(pgdata), "xacts": int(xacts), "inserted": int(ins), "updated": int(upd),
            "hot_updated": int(hot), "deleted": int(dele), "wal_bytes": float(wal), "wal_records": int(wal_records), "wal_fpi": int(wal_fpi), "calls": calls,
            "tables": tables, "indexes": indexes}


def add(before_path, after_path):
    before, after = json.load(open(before_path)), json.load(open(after_path))
    lines = [l for l in sys.stdin.read().splitlines() if l.strip()]
    if not lines:
        return
    row = json.loads(lines[-1])
    jobs = row.get("completed") or row.get("jobs")
    if jobs:
        d = {k: after[k] - before[k] for k in ("cpu_ticks", "xacts", "inserted", "updated", "hot_updated", "deleted", "wal_bytes")}
        hz = os.sysconf("SC_CLK_TCK")
        row["pg_cpu_us_per_job"] = round(d["cpu_ticks"] / hz * 1e6 / jobs, 1)
        row["xacts_per_job"] = round(d["xacts"] / jobs, 3)
        row["rows_per_job"] = round((d["inserted"] + d["updated"] + d["deleted"]) / jobs, 3)
        row["non_hot_updates_per_job"] = round((d["updated"] - d["hot_updated"]) / jobs, 3)
        row["wal_bytes_per_job"] = round(d["wal_bytes"] / jobs)
        row["wal_records_per_job"] = round((after["wal_records"] - before["wal_records"]) / jobs, 3)
        row["wal_fpi_per_job"] = round((after["wal_fpi"] - before["wal_fpi"]) / jobs, 3)
        spent = {}
        for name, (n, ms) in after["calls"].items():
            n0, ms0 = before["calls"].get(name, [0, 0.0])
            if n > n0:
                spent[name] = {"calls_per_job": round((n - n0) / jobs, 4), "us_per_job": round((ms - ms0) * 1000 / jobs, 1)}
        row["functions"] = spent
        # Per table: rows written and updates that were not HOT, per job; and the indexes of
        # every table written (each insert or non-HOT update writes an entry in each whose
        # predicate the row meets).
        written, indexes = {}, {}
        for name, (rows, not_hot) in after.get("tables", {}).items():
            rows0, not_hot0 = before.get("tables", {}).get(name, [0, 0])
            if rows > rows0:
                written[name] = {"rows_per_job": round((rows - rows0) / jobs, 3),
                                 "non_hot_updates_per_job": round((not_hot - not_hot0) / jobs, 3)}
                indexes[name] = sorted(after.get("indexes", {}).get(name, []))
        row["tables"] = written
        row["indexes"] = indexes
    lines[-1] = json.dumps(row)
    print("\n".join(lines))


if __name__ == "__main__":
    if sys.argv[1] == "snapshot":
        print(json.dumps(snapshot(*sys.argv[2:5])))
    elif sys.argv[1] == "add":
        add(sys.argv[2], sys.argv[3])
    else:
        sys.exit(f"usage: see {sys.argv[0]}")
