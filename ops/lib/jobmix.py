"""The mixed job load shared by ./ops/chaos and ./ops/cluster: photos, the request bodies of each
kind, and the check that a finished job's result is what its kind makes. Python standard library
only (both drivers run under the system python3)."""
import http.client
import json
import os
import random
import struct
import subprocess
import urllib.parse
import zlib
from pathlib import Path

KINDS = ["stylize", "caption", "index", "analysis", "noop"]
STYLES = ["cartoon", "sketch", "pop_art", "watercolor", "comic"]
ADVISORS = ["ansel", "okeefe", "hcb", "lange", "mondrian"]


# ---------------------------------------------------------------------------------- photos

def png(width, height, pixel):
    """A truecolour PNG from pixel(x, y) -> (r, g, b)."""
    raw = bytearray()
    for y in range(height):
        raw.append(0)
        for x in range(width):
            raw += bytes(pixel(x, y))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(raw), 6)) + chunk(b"IEND", b""))


def drawn_photos(count, seed=11):
    """`count` PNGs of coloured rectangles on gradients, sizes 240–384 px: [(format, bytes, (w, h))]."""
    rng = random.Random(seed)
    photos = []
    for _ in range(count):
        width, height = rng.choice([(320, 240), (240, 320), (384, 256), (256, 256)])
        rects = [(rng.randrange(width), rng.randrange(height), rng.randrange(20, 120), rng.randrange(20, 120),
                  (rng.randrange(256), rng.randrange(256), rng.randrange(256))) for _ in range(6)]
        base = (rng.randrange(40, 200), rng.randrange(40, 200), rng.randrange(40, 200))

        def pixel(x, y, rects=rects, base=base, width=width, height=height):
            for rx, ry, rw, rh, colour in rects:
                if rx <= x < rx + rw and ry <= y < ry + rh:
                    return colour
            return (base[0] * x // width, base[1] * y // height, (base[2] + x + y) % 256)

        photos.append(("png", png(width, height, pixel), (width, height)))
    return photos


def fixture_photos(repo):
    """The JPEG fixtures checked in under Tests/."""
    photos = []
    for fixture in sorted(Path(repo).glob("Tests/*/Fixtures/*.jpg")):
        data = fixture.read_bytes()
        size = image_size(data)
        if size:
            photos.append(("jpeg", data, size))
    return photos


def scaled_photos(paths, scale="1/4"):
    """Real photos (JPEG files, e.g. Debian's wallpapers) scaled down by djpeg and re-encoded by cjpeg."""
    photos = []
    for path in paths:
        decoded = subprocess.run(["djpeg", "-scale", scale, str(path)], capture_output=True, check=True).stdout
        data = subprocess.run(["cjpeg", "-quality", "88"], input=decoded, capture_output=True, check=True).stdout
        photos.append(("jpeg", data, image_size(data)))
    return photos


def image_size(data):
    """(width, height) of a PNG or baseline/progressive JPEG, else None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 24:
        return struct.unpack(">II", data[16:24])
    if data.startswith(b"\xff\xd8\xff"):
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                return None
            marker = data[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                i += 2
                continue
            length = struct.unpack(">H", data[i + 2:i + 4])[0]
            if marker in (0xC0, 0xC1, 0xC2):
                height, width = struct.unpack(">HH", data[i + 5:i + 9])
                return (width, height)
            i += 2 + length
    return None


# ---------------------------------------------------------------------------------- requests

def request(method, host, port, path, body=None, headers=None, timeout=30):
    """(status, headers, body) — status None on a connection error or timeout (body says which)."""
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    except (OSError, http.client.HTTPException) as error:
        return None, {}, f"{type(error).__name__}: {error}".encode()
    finally:
        connection.close()


def download(url):
    """GET on a pre-signed URL: (status, bytes, where it pointed)."""
    parts = urllib.parse.urlsplit(url)
    host, _, port = parts.netloc.partition(":")
    path = parts.path + ("?" + parts.query if parts.query else "")
    status, _, body = request("GET", host, int(port or 80), path, timeout=30)
    return status, body, parts.netloc


def multipart(fields, image, content_type):
    boundary = "mix" + os.urandom(8).hex()
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="image"; filename="photo"\r\n'
                 f"Content-Type: {content_type}\r\n\r\n".encode() + image + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def make_specs(count, kinds, photo_count, rng, key_prefix):
    """`count` jobs cycling through `kinds`, each with its photo, style, advisor and Idempotency-Key; shuffled."""
    specs = []
    for n in range(count):
        specs.append({"n": n, "kind": kinds[n % len(kinds)], "photo": rng.randrange(photo_count),
                      "key": f"{key_prefix}-{n}", "style": rng.choice(STYLES), "advisor": rng.choice(ADVISORS),
                      "image_index": rng.random() < 0.5})
    rng.shuffle(specs)
    for slot, spec in enumerate(specs):
        spec["slot"] = slot
    return specs


def body_for(spec, photos, collection):
    """(body, content type) of POST /v1/jobs for one spec."""
    fmt, data, _ = photos[spec["photo"]]
    content_type = "image/png" if fmt == "png" else "image/jpeg"
    kind = spec["kind"]
    if kind == "noop":
        return json.dumps({"kind": "noop"}).encode(), "application/json"
    if kind == "index" and not spec["image_index"]:
        text = f"{collection} item {spec['n']}: photo {spec['photo']} in style {spec['style']}"
        return json.dumps({"kind": "index", "options": {"text": text, "collection": collection}}).encode(), "application/json"
    fields = {"kind": kind}
    if kind == "stylize":
        fields["style_id"] = spec["style"]
    elif kind == "analysis":
        fields["advisor"] = spec["advisor"]
    elif kind == "index":
        fields["collection"] = collection
    return multipart(fields, data, content_type)


# ---------------------------------------------------------------------------------- checks

def check_result(kind, result, photo_size, blob):
    """None when a succeeded job's result is what its kind makes, else what is wrong with it.
    `blob()` returns the bytes of the job's result blob (or None when it cannot be had)."""
    result = result or {}
    width, height = photo_size
    if kind == "stylize":
        data = blob()
        if data is None:
            return f"result blob {result.get('result_blob')!r} missing"
        size = image_size(data)
        if size is None:
            return f"result blob is not a JPEG or PNG ({data[:8]!r})"
        if size != (result.get("width"), result.get("height")):
            return f"result blob is {size}, the result says {result.get('width')}×{result.get('height')}"
        if size != (width, height):
            return f"result is {size}, the photo was {width}×{height}"
        return None
    if kind == "analysis":
        data = blob()
        if data is None:
            return f"report blob {result.get('result_blob')!r} missing"
        if not data.lstrip().lower().startswith(b"<!doctype html") or b"data:image/" not in data:
            return "report is not an HTML page with the photo embedded"
        if not result.get("grade") or not result.get("advisors"):
            return "no grade or advisors"
        return None
    if kind == "caption":
        if not isinstance(result.get("caption"), str) or not result["caption"].strip():
            return "no caption text"
        if (result.get("width"), result.get("height")) != (width, height):
            return f"captioned {result.get('width')}×{result.get('height')}, the photo was {width}×{height}"
        return None
    if kind == "index":
        if result.get("embedding_dim") != 384:
            return f"embedding_dim {result.get('embedding_dim')!r}, expected 384"
        return None
    return None


def percentile(values, p):
    if not values:
        return 0
    index = min(len(values) - 1, max(0, int(round(p / 100 * len(values) + 0.5)) - 1))
    return values[index]
