#!/usr/bin/env python3
"""Writes Tests/AtelierStorageTests/Fixtures/sigv4-botocore.json: AWS Signature V4 as botocore
computes it (S3SigV4Auth for signed headers, S3SigV4QueryAuth for pre-signed URLs) on fixed
inputs — fixed keys, fixed instants, requests of the shapes S3BlobStore sends. SigV4Tests checks
our signer against every case. Run by ./ops/s3/sigv4-fixtures (botocore pinned, in the state venv);
the output is checked in, so the tests need no Python."""

import base64
import datetime
import json
import sys
from unittest import mock
from urllib.parse import quote

import botocore
import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

ACCESS = "AKIDATELIEREXAMPLE"
SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"


def enc(text, safe="/~"):
    return quote(text, safe=safe)


def query(pairs):
    return "&".join(f"{enc(k, '-_.~')}={enc(v, '-_.~')}" for k, v in pairs)


# (name, method, scheme, host, path (unencoded), query pairs, headers, body, region, instant)
SIGNED = [
    ("put-path-style", "PUT", "http", "127.0.0.1:8333", "/atelier/jobs/0193a7c2-5d4e-7f00-8a1b-2c3d4e5f6a7b/input.jpg", [],
     [("Content-Type", "image/jpeg")], b"\xff\xd8\xff\xe0 not really a jpeg \x00\x01", "us-east-1", "2026-11-23T10:15:00"),
    ("get-range", "GET", "http", "127.0.0.1:8333", "/atelier/jobs/0193a7c2-5d4e-7f00-8a1b-2c3d4e5f6a7b/result.png", [],
     [("Range", "bytes=0-1023")], b"", "us-east-1", "2026-11-23T23:59:59"),
    ("head", "HEAD", "http", "localhost:9000", "/atelier/jobs/x/result.jpg", [], [], b"", "eu-west-3", "2026-01-01T00:00:00"),
    ("delete", "DELETE", "https", "s3.eu-west-3.amazonaws.com", "/atelier/jobs/x/input.heic", [], [], b"", "eu-west-3",
     "2026-02-28T12:00:00"),
    ("list-objects-v2", "GET", "http", "127.0.0.1:8333", "/atelier",
     [("list-type", "2"), ("prefix", "jobs/"), ("continuation-token", "abc+def/ghi=="), ("max-keys", "1000")],
     [], b"", "us-east-1", "2026-11-23T10:15:00"),
    ("list-empty-value", "GET", "http", "127.0.0.1:8333", "/atelier", [("list-type", "2"), ("prefix", "")],
     [], b"", "us-east-1", "2026-11-23T10:15:00"),
    ("virtual-host-unicode-key", "PUT", "https", "atelier.s3.example.com", "/photos/a b/été (1)+x.jpg", [],
     [("Content-Type", "image/jpeg"), ("X-Amz-Meta-Note", "  two   spaces  inside ")], "héllo wörld".encode(), "ap-southeast-2",
     "2026-06-30T06:07:08"),
    ("create-bucket", "PUT", "http", "127.0.0.1:8333", "/atelier-test", [], [], b"", "us-east-1", "2026-11-23T10:15:00"),
]

# (name, method, scheme, host, path (unencoded), query pairs, expires, region, instant)
PRESIGNED = [
    ("presign-jpeg", "GET", "http", "127.0.0.1:8333", "/atelier/jobs/0193a7c2-5d4e-7f00-8a1b-2c3d4e5f6a7b/result.jpg",
     [("response-content-type", "image/jpeg")], 3600, "us-east-1", "2026-11-23T10:15:00"),
    ("presign-html-week", "GET", "https", "cdn.example.org", "/atelier/jobs/x/report.html",
     [("response-content-type", "text/html; charset=utf-8")], 604800, "eu-central-1", "2026-12-31T23:55:00"),
    ("presign-port-virtual", "GET", "https", "atelier.storage.example.com:8443", "/jobs/x/result.png",
     [("response-content-type", "image/png")], 300, "us-west-2", "2026-03-01T00:00:00"),
]


def at(instant):
    return datetime.datetime.strptime(instant, "%Y-%m-%dT%H:%M:%S")


def main(out):
    credentials = Credentials(ACCESS, SECRET)
    cases = []
    for name, method, scheme, host, path, pairs, headers, body, region, instant in SIGNED:
        url = f"{scheme}://{host}{enc(path)}" + (f"?{query(pairs)}" if pairs else "")
        request = AWSRequest(method=method, url=url, data=body, headers=dict(headers))
        signer = botocore.auth.S3SigV4Auth(credentials, "s3", region)
        seen = {}
        original = signer.string_to_sign

        def recording(request, canonical_request):
            seen["canonical"] = canonical_request
            seen["string_to_sign"] = original(request, canonical_request)
            return seen["string_to_sign"]

        signer.string_to_sign = recording
        with mock.patch("botocore.auth.get_current_datetime", return_value=at(instant)):
            signer.add_auth(request)
        cases.append({
            "name": name, "kind": "header", "method": method, "scheme": scheme, "host": host, "path": path,
            "query": [list(p) for p in pairs], "headers": [list(h) for h in headers],
            "body_base64": base64.b64encode(body).decode(), "region": region, "instant": instant + "Z",
            "encoded_path": enc(path),
            "canonical_request": seen["canonical"],
            "string_to_sign": seen["string_to_sign"],
            "x_amz_date": request.headers["X-Amz-Date"],
            "x_amz_content_sha256": request.headers["X-Amz-Content-SHA256"],
            "authorization": request.headers["Authorization"],
        })
    for name, method, scheme, host, path, pairs, expires, region, instant in PRESIGNED:
        url = f"{scheme}://{host}{enc(path)}" + (f"?{query(pairs)}" if pairs else "")
        request = AWSRequest(method=method, url=url)
        signer = botocore.auth.S3SigV4QueryAuth(credentials, "s3", region, expires=expires)
        with mock.patch("botocore.auth.get_current_datetime", return_value=at(instant)):
            signer.add_auth(request)
        cases.append({
            "name": name, "kind": "query", "method": method, "scheme": scheme, "host": host, "path": path,
            "query": [list(p) for p in pairs], "expires": expires, "region": region, "instant": instant + "Z",
            "url": request.url,
        })
    document = {
        "generator": f"ops/s3/sigv4-fixtures.py with botocore {botocore.__version__}",
        "access_key_id": ACCESS, "secret_access_key": SECRET, "cases": cases,
    }
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1, ensure_ascii=False)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
