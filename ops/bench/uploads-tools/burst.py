#!/usr/bin/env python3
"""A burst of uploads: CONNECTIONS clients, each posting the same multipart body back to back on a
keep-alive connection for SECONDS (a new connection when the server closes one), the way wrk
would, but keeping each answer's status and time, so the accepted uploads' latency is reported
apart from the refusals'. Prints one JSON line:

  accepted, accepted_per_s (goodput), refused (503), refused_share, other (status → count),
  resets (connections the server reset or closed before answering), connections (opened),
  p50_ms / p99_ms of the accepted, refused_p99_ms, client_cpu_s.

usage: burst.py URL TOKEN BODY_FILE BOUNDARY [--connections 64] [--seconds 15] [--expect-continue]

--expect-continue sends `Expect: 100-continue` and the body only after `100 Continue` (curl's
way for large bodies): a refusal then costs the server no body at all.
"""
import argparse
import asyncio
import json
import resource
import time
import urllib.parse


def percentile(sorted_values, p):
    if not sorted_values:
        return None
    index = min(len(sorted_values) - 1, max(0, round(p / 100 * len(sorted_values) + 0.5) - 1))
    return sorted_values[index]


async def read_head(reader):
    """(status, headers dict lower-cased) of one response head."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return status, headers


async def client(args, host, port, head, body, deadline, stats):
    reader = writer = None
    while time.monotonic() < deadline:
        if writer is None:
            try:
                reader, writer = await asyncio.open_connection(host, port)
            except OSError:
                stats["resets"] += 1
                await asyncio.sleep(0.01)
                continue
            stats["connections"] += 1
        started = time.perf_counter()
        try:
            if args.expect_continue:
                writer.write(head)
                status, headers = await read_head(reader)
                if status == 100:
                    writer.write(body)
                    status, headers = await read_head(reader)
            else:
                writer.write(head + body)
                status, headers = await read_head(reader)
            length = int(headers.get("content-length", "0"))
            if length:
                await reader.readexactly(length)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            stats["resets"] += 1
            writer.close()
            reader = writer = None
            continue
        elapsed_ms = (time.perf_counter() - started) * 1000
        if time.monotonic() > deadline:
            break  # answered after the window: not counted
        if status in (200, 201, 202):
            stats["accepted_ms"].append(elapsed_ms)
        elif status == 503:
            stats["refused_ms"].append(elapsed_ms)
        else:
            stats["other"][str(status)] = stats["other"].get(str(status), 0) + 1
        if headers.get("connection", "").lower() == "close" or (args.expect_continue and status != 100 and status >= 400):
            writer.close()
            reader = writer = None
    if writer is not None:
        writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("token")
    parser.add_argument("body_file")
    parser.add_argument("boundary")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--expect-continue", action="store_true")
    args = parser.parse_args()
    url = urllib.parse.urlsplit(args.url)
    body = open(args.body_file, "rb").read()
    head = (f"POST {url.path} HTTP/1.1\r\nHost: {url.netloc}\r\nX-App-Token: {args.token}\r\n"
            f"Content-Type: multipart/form-data; boundary={args.boundary}\r\nContent-Length: {len(body)}\r\n"
            + ("Expect: 100-continue\r\n" if args.expect_continue else "") + "\r\n").encode()
    stats = {"accepted_ms": [], "refused_ms": [], "other": {}, "resets": 0, "connections": 0}
    cpu_before = resource.getrusage(resource.RUSAGE_SELF)
    started = time.monotonic()
    deadline = started + args.seconds
    tasks = [asyncio.create_task(client(args, url.hostname, url.port, head, body, deadline, stats))
             for _ in range(args.connections)]
    # A client still waiting for an answer at the deadline is stopped there.
    done, pending = await asyncio.wait(tasks, timeout=args.seconds + 5)
    for task in pending:
        task.cancel()
    elapsed = time.monotonic() - started
    cpu_after = resource.getrusage(resource.RUSAGE_SELF)
    accepted = sorted(stats["accepted_ms"])
    refused = sorted(stats["refused_ms"])
    answered = len(accepted) + len(refused) + sum(stats["other"].values())
    print(json.dumps({
        "seconds": round(min(elapsed, args.seconds), 2),
        "accepted": len(accepted),
        "accepted_per_s": round(len(accepted) / args.seconds, 1),
        "refused": len(refused),
        "refused_share": round(len(refused) / answered, 4) if answered else None,
        "other": stats["other"],
        "resets": stats["resets"],
        "connections": stats["connections"],
        "p50_ms": percentile(accepted, 50),
        "p99_ms": percentile(accepted, 99),
        "refused_p99_ms": percentile(refused, 99),
        "client_cpu_s": round(cpu_after.ru_utime + cpu_after.ru_stime - cpu_before.ru_utime - cpu_before.ru_stime, 2),
        "expect_continue": args.expect_continue,
    }))


asyncio.run(main())
