"""Measures the console for ./ops/bench/console: page loads (p50/p99 of 20) and a live page's
traffic while jobs are enqueued at 10,000 a minute. Prints JSON."""
import argparse
import http.client
import json
import re
import statistics
import threading
import time
import urllib.parse
import urllib.request
from datetime import datetime

parser = argparse.ArgumentParser()
parser.add_argument("--api", required=True)
parser.add_argument("--email", required=True)
parser.add_argument("--password", required=True)
parser.add_argument("--app-token", required=True)
parser.add_argument("--jobs", type=int, required=True)
parser.add_argument("--live-seconds", type=int, default=60)
parser.add_argument("--rate", type=int, default=10_000, help="jobs enqueued per minute in the live phase")
args = parser.parse_args()
url = urllib.parse.urlparse(args.api)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):
        return None


def sign_in():
    body = urllib.parse.urlencode({"email": args.email, "password": args.password}).encode()
    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(urllib.request.Request(args.api + "/admin/login", data=body, method="POST"))
    except urllib.error.HTTPError as redirect:
        assert redirect.code == 303, redirect.code
        return redirect.headers["Set-Cookie"].split(";")[0]
    raise SystemExit("sign-in did not redirect")


def load(path, cookie, times=20):
    samples, size = [], 0
    connection = http.client.HTTPConnection(url.hostname, url.port)
    for _ in range(times + 1):
        start = time.perf_counter()
        connection.request("GET", path, headers={"Cookie": cookie})
        response = connection.getresponse()
        body = response.read()
        assert response.status == 200, (path, response.status)
        samples.append((time.perf_counter() - start) * 1000)
        size = len(body)
    samples = sorted(samples[1:])  # the first load warms the connection
    return {"path": path, "loads": times, "p50_ms": round(statistics.median(samples), 1),
            "p99_ms": round(samples[-1], 1), "bytes": size}


def enqueue(stop, counter):
    """Jobs at --rate per minute, in batches of 10 through POST /v1/jobs."""
    connection = http.client.HTTPConnection(url.hostname, url.port)
    interval = 60.0 / args.rate
    next_at = time.perf_counter()
    while not stop.is_set():
        connection.request("POST", "/v1/jobs", body=json.dumps({"kind": "noop"}),
                           headers={"X-App-Token": args.app_token, "Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        assert response.status == 200, response.status
        counter[0] += 1
        next_at += interval
        pause = next_at - time.perf_counter()
        if pause > 0:
            time.sleep(pause)


def live(cookie):
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=args.live_seconds + 30)
    connection.request("GET", "/admin/live", headers={"Cookie": cookie, "Accept": "text/event-stream"})
    response = connection.getresponse()
    assert response.status == 200, response.status
    stop, counter = threading.Event(), [0]
    frames = []  # (seconds since start, event, bytes, lag of the newest row in seconds)
    start = time.time()
    feeder = threading.Thread(target=enqueue, args=(stop, counter))
    feeder.start()
    buffer = b""
    while time.time() - start < args.live_seconds:
        chunk = response.fp.read1(65536)
        if not chunk:
            break
        buffer += chunk
        while b"\n\n" in buffer:
            frame, buffer = buffer.split(b"\n\n", 1)
            now = time.time()
            text = frame.decode()
            kind = re.search(r"^event: (\w+)", text, re.M)
            lag = None
            if kind and kind.group(1) == "jobs":
                times = re.findall(r'datetime=\\"([0-9TZ:-]+)\\"', text)
                if times:
                    newest = max(datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp() for t in times)
                    lag = now - newest
            frames.append((now - start, kind.group(1) if kind else "comment", len(frame) + 2, lag))
    stop.set()
    feeder.join()
    connection.close()
    updates = [f for f in frames if f[1] in ("jobs", "overview")]
    jobs = [f for f in frames if f[1] == "jobs"]
    overview = [f for f in frames if f[1] == "overview"]
    lags = sorted(f[3] for f in jobs if f[3] is not None)
    duration = max(1e-9, frames[-1][0] if frames else 1)
    return {
        "seconds": args.live_seconds, "enqueued": counter[0], "enqueued_per_minute": round(counter[0] * 60 / args.live_seconds),
        "frames": len(updates), "frames_per_second": round(len(updates) / duration, 2),
        "jobs_frames": len(jobs), "jobs_frame_bytes_p50": int(statistics.median([f[2] for f in jobs])) if jobs else 0,
        "overview_frames": len(overview), "overview_frame_bytes_p50": int(statistics.median([f[2] for f in overview])) if overview else 0,
        "bytes_per_update_mean": int(sum(f[2] for f in updates) / max(1, len(updates))),
        "bytes_per_second": int(sum(f[2] for f in frames) / duration),
        "newest_row_lag_p50_s": round(statistics.median(lags), 2) if lags else None,
        "newest_row_lag_max_s": round(lags[-1], 2) if lags else None,
    }


cookie = sign_in()
result = {"jobs_in_table": args.jobs,
          "overview": load("/admin", cookie),
          "job_list_first_page": load("/admin/jobs", cookie),
          "job_list_failed_filter": load("/admin/jobs?state=failed", cookie),
          "job_search_by_request_id": load(f"/admin/jobs?q=req-{args.jobs // 2}", cookie)}
result["live"] = live(cookie)
print(json.dumps(result, indent=2))
