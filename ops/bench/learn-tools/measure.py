#!/usr/bin/env python3
"""./ops/bench/learn's client (standard library only).

  measure.py load  --api URL --token T --points N        POST /api/ios/knowledge N times (8 clients)
  measure.py chat  --api URL --token T --requests N --clients C --label L
                                                        POST /api/ios/chat; prints one JSON line
"""
import argparse
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import texts  # noqa: E402


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, max(0, int(round(p / 100 * len(values) + 0.5)) - 1))] if values else 0


def run_clients(api, clients, jobs, work):
    """Splits `jobs` over `clients` threads, each with its own keep-alive connection."""
    url = urllib.parse.urlsplit(api)
    results, errors = [], []
    lock = threading.Lock()

    def client(share):
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
        for job in share:
            try:
                value = work(connection, job)
                with lock:
                    results.append(value)
            except Exception as error:  # noqa: BLE001 — reported, and the run fails
                with lock:
                    errors.append(repr(error))
                connection = http.client.HTTPConnection(url.hostname, url.port, timeout=120)

    threads = [threading.Thread(target=client, args=(jobs[n::clients],)) for n in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, errors, time.perf_counter() - started


def post(connection, path, token, body):
    connection.request("POST", path, body=json.dumps(body), headers={
        "Authorization": "Bearer " + token, "Content-Type": "application/json"})
    response = connection.getresponse()
    data = response.read()
    if response.status != 200:
        raise RuntimeError(f"{path} answered {response.status}: {data[:200]!r}")
    return data


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["load", "chat"])
    parser.add_argument("--api", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--points", type=int, default=10000)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--label", default="atelier")
    args = parser.parse_args()

    if args.mode == "load":
        pairs = texts.points(args.points)
        _, errors, seconds = run_clients(args.api, 8, pairs, lambda c, p: post(
            c, "/api/ios/knowledge", args.token, {"question": p[0], "answer": p[1], "isInReviewPlan": True}))
        if errors:
            raise SystemExit(f"{len(errors)} creates failed, e.g. {errors[0]}")
        print(f"created {len(pairs)} points in {seconds:.1f} s", file=sys.stderr)
        return

    messages = texts.messages(args.requests)
    # Warm-up: every connection's first request, and the model's first runs, are not measured.
    run_clients(args.api, args.clients, messages[: args.clients * 2], lambda c, m: post(
        c, "/api/ios/chat", args.token, {"message": m, "history": []}))

    def chat(connection, message):
        started = time.perf_counter()
        data = post(connection, "/api/ios/chat", args.token, {"message": message, "history": []})
        return (time.perf_counter() - started) * 1000, len(json.loads(data)["sources"])

    results, errors, seconds = run_clients(args.api, args.clients, messages, chat)
    if errors:
        raise SystemExit(f"{args.label}: {len(errors)} chats failed, e.g. {errors[0]}")
    latencies = [r[0] for r in results]
    print(json.dumps({
        "system": args.label, "clients": args.clients, "requests": len(results),
        "p50_ms": round(percentile(latencies, 50), 2), "p99_ms": round(percentile(latencies, 99), 2),
        "per_second": round(len(results) / seconds, 1),
        "with_sources": sum(1 for r in results if r[1] > 0),
    }), flush=True)


if __name__ == "__main__":
    main()
