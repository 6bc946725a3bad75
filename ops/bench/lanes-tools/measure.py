#!/usr/bin/env python3
"""./ops/bench/lanes's client (standard library only): polls, sign-ins and searches, alone, beside
a flood of sign-ins (the passwords lane) and beside a flood of uploads whose header probes are
costly (the probes lane); p50/p99 each and the ratio beside/alone."""
import argparse
import http.client
import json
import multiprocessing
import os
import struct
import time
import urllib.parse
import uuid


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, max(0, int(round(p / 100 * len(values) + 0.5)) - 1))] if values else 0


def box(kind, payload):
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def full_box(kind, version, flags, payload):
    return box(kind, bytes([version]) + flags.to_bytes(3, "big") + payload)


def costly_heic(seed, data_bytes):
    """A HEIC whose one image's data is `data_bytes` of zeros in 32 extents (libheif's most): the
    structure check walks all of it (every 4 bytes a NAL unit's length) before libheif reads the
    file, which then refuses it (no 'pitm': no primary image). The seed gives a real 'hvcC' and
    'ispe'."""
    def find(kind):
        at = seed.find(kind)
        return seed[at - 4:at - 4 + struct.unpack(">I", seed[at - 4:at])[0]]
    hvcc, ispe = find(b"hvcC"), find(b"ispe")
    ftyp = box(b"ftyp", b"heic" + bytes(4) + b"mif1heic")
    hdlr = full_box(b"hdlr", 0, 0, bytes(4) + b"pict" + bytes(13))
    iinf = full_box(b"iinf", 0, 0, struct.pack(">H", 1) + full_box(b"infe", 2, 0, struct.pack(">HH", 1, 0) + b"hvc1\0"))
    ipma = full_box(b"ipma", 0, 0, struct.pack(">IH", 1, 1) + bytes([2, 0x81, 2]))
    iprp = box(b"iprp", box(b"ipco", hvcc + ispe) + ipma)
    extents, piece = 32, data_bytes // 32

    def meta(data_at):
        iloc = bytes([0x44, 0]) + struct.pack(">HHHHH", 1, 1, 0, 0, extents)
        iloc += b"".join(struct.pack(">II", data_at + n * piece, piece) for n in range(extents))
        return full_box(b"meta", 0, 0, hdlr + full_box(b"iloc", 1, 0, iloc) + iinf + iprp)

    data_at = len(ftyp) + len(meta(0)) + 8
    return ftyp + meta(data_at) + box(b"mdat", bytes(piece * extents))


def multipart(image):
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\necho\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"x.heic\"\r\n"
            f"Content-Type: image/heic\r\n\r\n").encode() + image + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def flood(api, headers, path, body, stop, answers):
    """One flooding client, as if it were on another machine: it runs under SCHED_IDLE, only when
    the server and the measuring client leave a core idle (on two cores, 48 clients at any
    ordinary priority would take the CPU from both and measure themselves). POSTs `body` to
    `path` back to back until `stop`; its answers by status."""
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    url = urllib.parse.urlsplit(api)
    connection, counted = None, {}
    while not stop.is_set():
        try:
            connection = connection or http.client.HTTPConnection(url.hostname, url.port, timeout=120)
            connection.request("POST", path, body=body, headers=headers)
            response = connection.getresponse()
            response.read()
            status = str(response.status)
        except (ConnectionError, http.client.HTTPException, OSError):
            connection, status = None, "reset"
        counted[status] = counted.get(status, 0) + 1
    answers.put(counted)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--api", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--heic", required=True)
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--sign-in-flooders", type=int, default=48)
    parser.add_argument("--upload-flooders", type=int, default=24)
    args = parser.parse_args()
    url = urllib.parse.urlsplit(args.api)
    connect = lambda: http.client.HTTPConnection(url.hostname, url.port, timeout=120)
    auth = {"X-App-Token": args.token}

    def call(connection, method, path, body=None, headers=None):
        started = time.perf_counter()
        connection.request(method, path, body=body, headers={**auth, **(headers or {})})
        response = connection.getresponse()
        data = response.read()
        return (time.perf_counter() - started) * 1000, response.status, data, response

    setup = connect()
    _, status, data, _ = call(setup, "POST", "/v1/jobs", json.dumps({"kind": "sleep", "options": {"ms": 600000}}),
                              {"Content-Type": "application/json"})
    assert status == 200, data
    job = json.loads(data)["id"]
    _, _, _, first = call(setup, "GET", f"/v1/jobs/{job}")
    etag = first.getheader("ETag")

    def polls(n):
        connection, times = connect(), []
        for _ in range(n):
            ms, status, _, _ = call(connection, "GET", f"/v1/jobs/{job}", headers={"If-None-Match": etag})
            assert status == 304, status
            times.append(ms)
        return times

    def sign_ins(n):
        connection, times = connect(), []
        body = json.dumps({"email": "bench@example.com", "password": "password-long-enough"})
        for _ in range(n):
            ms, status, data, _ = call(connection, "POST", "/api/auth/login", body, {"Content-Type": "application/json"})
            assert status == 200, (status, data[:200])
            times.append(ms)
        return times

    def searches(n):
        connection, times = connect(), []
        for i in range(n):
            body = json.dumps({"query": f"a red bicycle leaning on a wall {i}"})
            ms, status, data, _ = call(connection, "POST", "/v1/search", body, {"Content-Type": "application/json"})
            assert status == 200, (status, data[:200])
            times.append(ms)
        return times

    def measure(skip=None):
        out = {}
        for name, run, n in (("poll", polls, 400), ("sign_in", sign_ins, 40), ("search", searches, 100)):
            if name == skip:
                continue
            times = run(max(10, n // args.scale))
            out[name] = {"p50": round(percentile(times, 50), 2), "p99": round(percentile(times, 99), 2)}
        return out

    alone = measure()

    def beside(clients, headers, path, body, skip):
        """measure() while `clients` flood `path`; the flood's answers by status."""
        stop, answers = multiprocessing.Event(), multiprocessing.Queue()
        processes = [multiprocessing.Process(target=flood, args=(args.api, headers, path, body, stop, answers), daemon=True)
                     for _ in range(clients)]
        for process in processes:
            process.start()
        time.sleep(3)  # let the flood fill its lane before measuring beside it
        flooded = measure(skip)
        stop.set()
        counted = {}
        for _ in processes:
            for status, count in answers.get(timeout=300).items():
                counted[status] = counted.get(status, 0) + count
        for process in processes:
            process.join(timeout=60)
        return flooded, dict(sorted(counted.items()))

    # Sign-ins with a wrong password: a few hundred bytes each, ~0.12 s of scrypt.
    login = json.dumps({"email": "bench@example.com", "password": "not-the-password"}).encode()
    by_sign_ins, sign_in_answers = beside(args.sign_in_flooders, {"Content-Type": "application/json"}, "/api/auth/login", login,
                                          skip="sign_in")

    heic = costly_heic(open(args.heic, "rb").read(), 20 << 20)
    body, content_type = multipart(heic)
    probe = connect()
    probe_ms, probe_status, _, _ = call(probe, "POST", "/v1/jobs", body, {"Content-Type": content_type})
    by_uploads, upload_answers = beside(args.upload_flooders, {"X-App-Token": args.token, "Content-Type": content_type},
                                        "/v1/jobs", body, skip=None)

    def ratios(flooded):
        return {name: round(flooded[name]["p99"] / max(alone[name]["p99"], 0.01), 2) for name in flooded}

    report = {
        "alone_ms": alone,
        "sign_in_flood": {"clients": args.sign_in_flooders, "answers": sign_in_answers, "beside_ms": by_sign_ins,
                          "ratio_p99_beside_over_alone": ratios(by_sign_ins)},
        "upload_flood": {"clients": args.upload_flooders, "upload_bytes": len(body), "one_upload_alone_ms": round(probe_ms, 1),
                         "one_upload_alone_status": probe_status, "answers": upload_answers, "beside_ms": by_uploads,
                         "ratio_p99_beside_over_alone": ratios(by_uploads)},
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
