"""Open N idle Server-Sent Event streams to one job and measure the API process's memory.

usage: sse_idle.py URL TOKEN PID N
Prints one JSON line: rss before/after, bytes per stream, streams that got their first bytes.
The job must stay unfinished for the whole run (no worker running it).
"""
import asyncio
import json
import sys
import time
from urllib.parse import urlsplit


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


async def open_stream(host, port, path, token, ready):
    reader, writer = await asyncio.open_connection(host, port)
    writer.write((f"GET {path} HTTP/1.1\r\nHost: {host}\r\nX-App-Token: {token}\r\n"
                  f"Accept: text/event-stream\r\n\r\n").encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    if b" 200 " in head.split(b"\r\n", 1)[0]:
        await reader.readuntil(b"\n\n")  # the snapshot event
        ready.append(1)
    return reader, writer


async def main():
    url, token, pid, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    parts = urlsplit(url)
    before = rss_bytes(pid)
    ready = []
    streams = []
    started = time.monotonic()
    for start in range(0, count, 250):
        batch = [open_stream(parts.hostname, parts.port, parts.path, token, ready)
                 for _ in range(start, min(count, start + 250))]
        streams += await asyncio.gather(*batch)
    opened = time.monotonic() - started
    await asyncio.sleep(3)
    after = rss_bytes(pid)
    print(json.dumps({
        "scenario": "sse-idle", "streams": count, "ready": len(ready), "open_seconds": round(opened, 2),
        "rss_before_mb": round(before / 2**20, 1), "rss_after_mb": round(after / 2**20, 1),
        "bytes_per_stream": round((after - before) / count),
    }))
    for _, writer in streams:
        writer.close()


if __name__ == "__main__":
    asyncio.run(main())
