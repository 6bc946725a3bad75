#!/usr/bin/env python3
"""./ops/bench/accounts's client (standard library only): logins beside the bare KDF, and the cost
of a request authenticated by an access token beside one authenticated by an app token."""
import argparse
import hashlib
import http.client
import json
import os
import threading
import time
import urllib.parse


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, max(0, int(round(p / 100 * len(values) + 0.5)) - 1))] if values else 0


def timed(connection, method, path, body=None, headers=None):
    started = time.perf_counter()
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    return (time.perf_counter() - started) * 1000, response.status, data


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--api", required=True)
    parser.add_argument("--logins", type=int, default=200)
    parser.add_argument("--app-token", required=True)
    args = parser.parse_args()
    url = urllib.parse.urlsplit(args.api)
    connect = lambda: http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    report = {}

    # The floor: the same scrypt (N 2^15, r 8, p 1, 32 bytes), OpenSSL through hashlib.
    floor = []
    for _ in range(max(20, args.logins // 4)):
        started = time.perf_counter()
        hashlib.scrypt(b"password-long-enough", salt=os.urandom(16), n=1 << 15, r=8, p=1, maxmem=64 << 20, dklen=32)
        floor.append((time.perf_counter() - started) * 1000)
    report["kdf_alone_ms"] = {"p50": round(percentile(floor, 50), 1), "p99": round(percentile(floor, 99), 1)}

    def login(n, connection):
        body = json.dumps({"email": f"bench-{n}@example.com", "password": "password-long-enough"})
        ms, status, data = timed(connection, "POST", "/api/auth/login", body, {"Content-Type": "application/json"})
        if status != 200:
            raise SystemExit(f"login answered {status}: {data[:200]!r}")
        return ms, json.loads(data)["token"]

    connection = connect()
    one = [login(n, connection)[0] for n in range(1, args.logins + 1)]
    report["login_1_client_ms"] = {"p50": round(percentile(one, 50), 1), "p99": round(percentile(one, 99), 1)}

    four, lock = [], threading.Lock()
    def client(start):
        connection = connect()
        for n in range(start, args.logins * 2 + 1, 4):
            ms, _ = login(n, connection)
            with lock:
                four.append(ms)
    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(args.logins + 1 + k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    report["login_4_clients_ms"] = {"p50": round(percentile(four, 50), 1), "p99": round(percentile(four, 99), 1),
                                    "logins_per_second": round(len(four) / elapsed, 1)}

    # A request with an access token vs one with an app token (both cached/in memory after the first).
    _, token = login(1, connection)
    for name, path, headers in (("access_token_me_ms", "/api/auth/me", {"Authorization": "Bearer " + token}),
                                ("access_token_v1_jobs_ms", "/v1/jobs?limit=1", {"Authorization": "Bearer " + token}),
                                ("app_token_v1_jobs_ms", "/v1/jobs?limit=1", {"X-App-Token": args.app_token})):
        times = []
        for _ in range(500):
            ms, status, data = timed(connection, "GET", path, headers=headers)
            if status != 200:
                raise SystemExit(f"{path} answered {status}: {data[:200]!r}")
            times.append(ms)
        report[name] = {"p50": round(percentile(times, 50), 3), "p99": round(percentile(times, 99), 3)}

    report["login_over_kdf_p50"] = round(report["login_1_client_ms"]["p50"] / report["kdf_alone_ms"]["p50"], 2)
    report["cores"] = os.cpu_count()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
