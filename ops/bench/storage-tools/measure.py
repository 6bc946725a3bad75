"""One store's half of ./ops/bench/storage: stylize jobs one at a time (POST /v1/jobs → the event
stream's `succeeded`), then GETs of one result from the URL the job hands out. Prints one JSON
line per measurement. Standard library only."""
import argparse, http.client, json, statistics, time, urllib.parse, uuid


def connection(url):
    parts = urllib.parse.urlsplit(url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=120), parts


def post_stylize(api, token, photo):
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"style_id\"\r\n\r\ncartoon\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"photo.jpg\"\r\n"
            f"Content-Type: image/jpeg\r\n\r\n").encode() + photo + f"\r\n--{boundary}--\r\n".encode()
    conn, parts = connection(api)
    conn.request("POST", "/v1/jobs", body, {"X-App-Token": token, "Content-Type": f"multipart/form-data; boundary={boundary}"})
    response = conn.getresponse()
    answer = response.read()
    conn.close()
    if response.status != 200:
        raise SystemExit(f"POST /v1/jobs answered {response.status}: {answer[:300]!r}")
    return json.loads(answer)


def wait_for_end(stream_url, token):
    conn, parts = connection(stream_url)
    conn.request("GET", parts.path, headers={"X-App-Token": token, "Accept": "text/event-stream"})
    response = conn.getresponse()
    if response.status != 200:
        raise SystemExit(f"the event stream answered {response.status}")
    try:
        while True:
            line = response.fp.readline()
            if not line:
                raise SystemExit("the event stream ended without succeeded or failed")
            if line.startswith(b"event: succeeded"):
                return
            if line.startswith(b"event: failed"):
                raise SystemExit("a stylize job failed")
    finally:
        conn.close()


def job(api, token, job_id):
    conn, _ = connection(api)
    conn.request("GET", f"/v1/jobs/{job_id}", headers={"X-App-Token": token})
    response = conn.getresponse()
    answer = json.loads(response.read())
    conn.close()
    return answer


def download(url):
    conn, parts = connection(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    conn.request("GET", target)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, response.getheader("Content-Type"), data


def summary(samples):
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {"p50_ms": round(statistics.median(ordered), 2), "p99_ms": round(p99, 2),
            "min_ms": round(ordered[0], 2), "max_ms": round(ordered[-1], 2), "samples": len(ordered)}


def main():
    parser = argparse.ArgumentParser()
    for name in ("--api", "--token", "--store", "--photo"):
        parser.add_argument(name, required=True)
    parser.add_argument("--jobs", type=int, default=40)
    parser.add_argument("--downloads", type=int, default=400)
    args = parser.parse_args()
    photo = open(args.photo, "rb").read()

    latencies, last = [], None
    for index in range(args.jobs + 2):  # the first two warm the processes up and are not counted
        start = time.perf_counter()
        created = post_stylize(args.api, args.token, photo)
        wait_for_end(created["stream_url"], args.token)
        if index >= 2:
            latencies.append((time.perf_counter() - start) * 1000)
        last = created["id"]
    print(json.dumps({"store": args.store, "scenario": "stylize", "photo_bytes": len(photo), **summary(latencies)}), flush=True)

    result_url = job(args.api, args.token, last)["result_url"]
    status, content_type, first = download(result_url)
    if status != 200 or not first.startswith(b"\xff\xd8"):
        raise SystemExit(f"the result URL answered {status} {content_type} ({len(first)} bytes)")
    times = []
    for _ in range(args.downloads):
        start = time.perf_counter()
        status, _, data = download(result_url)
        times.append((time.perf_counter() - start) * 1000)
        if status != 200 or data != first:
            raise SystemExit(f"a download answered {status} with {len(data)} bytes")
    where = urllib.parse.urlsplit(result_url)
    print(json.dumps({"store": args.store, "scenario": "download", "bytes": len(first), "content_type": content_type,
                      "from": f"{where.hostname}:{where.port}{where.path.rsplit('/', 1)[0]}/…", **summary(times)}), flush=True)


if __name__ == "__main__":
    main()
