"""The container proof's checks of what the compose stack exposes (README "Containers"):

- the object store refuses the key pair this repository once shipped as a default, and refuses
  anonymous requests, while the stack's own keys work (a control: a refusal that any key would get
  proves nothing);
- the stack's own identity may use its bucket only: making or deleting a bucket is refused;
- SeaweedFS's master, volume and filer (HTTP and gRPC) and the gateway's gRPC port cannot be reached
  from another container on the compose network, while its S3 port can (the control);
- a user made with `atelier users create` signs in (`POST /api/auth/login`) and the token works on
  `/api/auth/me` and `/v1/jobs`: ATELIER_JWT_SECRET is wired in.

Each check returns a list of problems (empty: it holds) and logs what it saw. Python standard
library only; the S3 requests are signed here with AWS Signature V4, as the API signs them."""
import datetime
import hashlib
import hmac
import json
import subprocess
import urllib.parse

from jobmix import request

WELL_KNOWN_KEYS = ("atelier-dev", "atelier-dev-secret")
REGION = "us-east-1"
# SeaweedFS's own servers in its container (ops/docker/seaweedfs-entrypoint.sh), none of which
# may answer another container: master 9333/19333, volume 8080/18080, filer 8888/18888, the S3
# gateway itself 8334 and its gRPC 18334.
INTERNAL_PORTS = [9333, 19333, 8080, 18080, 8888, 18888, 8334, 18334]


def read_env_file(path):
    values = {}
    for line in path.read_text().splitlines():
        name, sep, value = line.partition("=")
        if sep and not line.lstrip().startswith("#"):
            values[name.strip()] = value.strip()
    return values


def s3_status(port, method, path, keys, query=None, body=b""):
    """The status of a SigV4-signed request to the store's published port (None: no connection)."""
    access, secret = keys
    now = datetime.datetime.now(datetime.timezone.utc)
    stamp, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    payload = hashlib.sha256(body).hexdigest()
    host = f"127.0.0.1:{port}"
    query = query or {}
    canonical_query = "&".join(f"{urllib.parse.quote(k, safe='-_.~')}={urllib.parse.quote(v, safe='-_.~')}"
                               for k, v in sorted(query.items()))
    headers = {"host": host, "x-amz-content-sha256": payload, "x-amz-date": stamp}
    signed = ";".join(sorted(headers))
    canonical = "\n".join([method, urllib.parse.quote(path, safe="/-_.~"), canonical_query,
                           "".join(f"{name}:{headers[name]}\n" for name in sorted(headers)), signed, payload])
    scope = f"{day}/{REGION}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("AWS4" + secret).encode()
    for part in (day, REGION, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    sent = {"x-amz-content-sha256": payload, "x-amz-date": stamp,
            "Authorization": f"AWS4-HMAC-SHA256 Credential={access}/{scope}, SignedHeaders={signed}, Signature={signature}"}
    target = path + ("?" + canonical_query if canonical_query else "")
    status, _, _ = request(method, "127.0.0.1", port, target, body or None, sent, timeout=15)
    return status


def object_store(port, keys, bucket, log):
    """The well-known pair and anonymous callers refused; the stack's keys reach the bucket only."""
    problems = []
    probe = f"/{bucket}/proof/secure-defaults.txt"
    seen = {
        "own keys, PUT an object": s3_status(port, "PUT", probe, keys, body=b"proof"),
        "own keys, GET it": s3_status(port, "GET", probe, keys),
        "own keys, list the bucket": s3_status(port, "GET", f"/{bucket}", keys, {"list-type": "2", "prefix": "proof/"}),
        "own keys, DELETE it": s3_status(port, "DELETE", probe, keys),
        "well-known keys, GET": s3_status(port, "GET", probe, WELL_KNOWN_KEYS),
        "well-known keys, list": s3_status(port, "GET", f"/{bucket}", WELL_KNOWN_KEYS, {"list-type": "2"}),
        "well-known keys, PUT": s3_status(port, "PUT", probe, WELL_KNOWN_KEYS, body=b"x"),
        "no signature, list": request("GET", "127.0.0.1", port, f"/{bucket}?list-type=2", timeout=15)[0],
        "own keys, make a bucket": s3_status(port, "PUT", "/proof-other-bucket", keys),
        "own keys, delete the bucket": s3_status(port, "DELETE", f"/{bucket}", keys),
    }
    expected = {"own keys, PUT an object": {200}, "own keys, GET it": {200}, "own keys, list the bucket": {200},
                "own keys, DELETE it": {200, 204}}
    for what, status in seen.items():
        wanted = expected.get(what, {403})
        if status not in wanted:
            problems.append(f"object store, {what}: {status}, expected {'/'.join(map(str, sorted(wanted)))}")
    log("object store: " + ", ".join(f"{what} {status}" for what, status in seen.items()))
    return problems


def reachable_from(container_name, host, port):
    """Whether a TCP connection from inside `container_name` to host:port is accepted (bash's /dev/tcp)."""
    done = subprocess.run(["podman", "exec", container_name, "timeout", "5", "bash", "-c", f"exec 3<>/dev/tcp/{host}/{port}"],
                          capture_output=True, text=True, timeout=60)
    return done.returncode == 0


def internal_ports(from_container, log):
    """SeaweedFS's internal servers refuse another container; its S3 port answers it."""
    problems = []
    if not reachable_from(from_container, "seaweedfs", 8333):
        problems.append("the S3 port seaweedfs:8333 is not reachable from the api container (the control failed)")
    open_ports = [port for port in INTERNAL_PORTS if reachable_from(from_container, "seaweedfs", port)]
    if open_ports:
        problems.append(f"SeaweedFS ports reachable from another container: {open_ports}")
    log(f"SeaweedFS from the api container: 8333 {'open' if not problems or open_ports else 'CLOSED'}; "
        f"{', '.join(map(str, INTERNAL_PORTS))} {'closed' if not open_ports else 'OPEN: ' + str(open_ports)}")
    return problems


def sign_in(api_container, http_port, seed, log):
    """A user made with the CLI signs in through the fleet app's route; the token works."""
    email, password = f"proof-{seed}@example.com", f"proof-password-{seed}"
    made = subprocess.run(["podman", "exec", "-i", api_container, "atelier", "users", "create", "--email", email,
                           "--password-stdin"], input=password + "\n", capture_output=True, text=True, timeout=120)
    if made.returncode != 0:
        return [f"atelier users create failed: {made.stderr.strip()[:300]}"]
    status, _, body = request("POST", "127.0.0.1", http_port, "/api/auth/login",
                              json.dumps({"email": email, "password": password}), {"Content-Type": "application/json"})
    if status != 200:
        return [f"sign-in answered {status}: {body[:200]!r}"]
    token = json.loads(body)["token"]
    me, _, me_body = request("GET", "127.0.0.1", http_port, "/api/auth/me", headers={"Authorization": f"Bearer {token}"})
    jobs, _, _ = request("GET", "127.0.0.1", http_port, "/v1/jobs", headers={"Authorization": f"Bearer {token}"})
    wrong, _, _ = request("POST", "127.0.0.1", http_port, "/api/auth/login",
                          json.dumps({"email": email, "password": "not the password"}), {"Content-Type": "application/json"})
    problems = []
    if me != 200 or json.loads(me_body).get("email") != email:
        problems.append(f"/api/auth/me with the token: {me} {me_body[:200]!r}")
    if jobs != 200:
        problems.append(f"/v1/jobs with the token: {jobs}")
    if wrong != 401:
        problems.append(f"a wrong password: {wrong}, expected 401")
    log(f"sign-in: login 200, me {me}, /v1/jobs {jobs}, a wrong password {wrong}")
    return problems
