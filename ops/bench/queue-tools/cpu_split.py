#!/usr/bin/env python3
"""Who gets the CPU during a benchmark run: runs a command, and between two instants of it adds up
the CPU time of each client process and of the PostgreSQL backends serving it.

  cpu_split.py --pg-port PORT [--after 5] [--window 10] -- COMMAND ARGS...

A backend is matched to its client by the TCP connection between them (`ss -tnp`, which needs
the right to see other users' sockets: run as root or as the owner of both). Clients are grouped
by their command line's first three arguments, so `atelier bench queue sustained` (the harness
and its producers) and `atelier work --processes 1` (each worker) come out apart. Prints one
line per group: CPU seconds in the window, for the clients and for their backends."""
import argparse
import os
import subprocess
import sys
import threading
import time


def ticks(pid):
    text = open(f"/proc/{pid}/stat").read()
    fields = text[text.rindex(")") + 2:].split()
    return int(fields[11]) + int(fields[12])


def command(pid):
    raw = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
    words = [w.decode(errors="replace") for w in raw if w]
    return " ".join([os.path.basename(words[0])] + words[1:4]) if words else "?"


def connections(pg_port):
    """(backend pid, client pid) for every TCP connection to the server."""
    by_local = {}
    backends = []
    for line in subprocess.run(["ss", "-tnpH", "state", "established"], capture_output=True,
                               text=True, check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) < 5 or "pid=" not in line:
            continue
        local, peer = parts[2], parts[3]
        pid = int(line.split("pid=")[1].split(",")[0])
        local_port = int(local.rsplit(":", 1)[1])
        if local_port == pg_port:
            backends.append((pid, int(peer.rsplit(":", 1)[1])))
        else:
            by_local[local_port] = pid
    return [(backend, by_local[port]) for backend, port in backends if port in by_local]


def snapshot(pg_port):
    groups = {}
    seen = set()
    for backend, client in connections(pg_port):
        try:
            name = command(client)
            groups.setdefault(("postgres for", name), {})[backend] = ticks(backend)
            if client not in seen:
                seen.add(client)
                groups.setdefault(("client", name), {})[client] = ticks(client)
        except OSError:
            continue
    return groups


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pg-port", type=int, required=True)
    parser.add_argument("--after", type=float, default=5)
    parser.add_argument("--window", type=float, default=10)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command_line = args.command[1:] if args.command[:1] == ["--"] else args.command
    run = subprocess.Popen(command_line)
    result = {}

    def measure():
        time.sleep(args.after)
        before = snapshot(args.pg_port)
        time.sleep(args.window)
        after = snapshot(args.pg_port)
        for group, pids in after.items():
            spent = sum(t - before.get(group, {}).get(pid, 0) for pid, t in pids.items())
            result[group] = spent / os.sysconf("SC_CLK_TCK")

    thread = threading.Thread(target=measure)
    thread.start()
    status = run.wait()
    thread.join()
    for (role, name), seconds in sorted(result.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        print(f"{seconds:7.2f} s  {role:12s} {name}", file=sys.stderr)
    sys.exit(status)


if __name__ == "__main__":
    main()
