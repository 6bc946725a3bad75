#!/usr/bin/env python3
"""Measures the image peers (djpeg, Pillow, pyvips, OpenCV, vipsthumbnail) for ops/bench/image.

    image_peers.py --photo PATH --threads N --runs R [--systems djpeg,pillow,pyvips,opencv,vipsthumbnail]
                   [--ops decode,pipeline,style,stylize,color,variant] [--color-photo P3.jpg]

Prints one JSON line per measurement on stdout (nothing else; progress goes to stderr), in the
same format as `atelier bench image`:
    {"system": "opencv", "op": "style:cartoon", "threads": 2, "runs": 7, "median_ms": 123.4,
     "min_ms": 120.1, "width": 2048, "height": 1536, "note": "...", "version": "5.0.0"}
Each measurement is 1 warm-up run, then R timed runs (time.perf_counter). A system that cannot
be imported, or an op that fails, prints a line with "error" instead, and the others go on.
--ops takes op families (style = all five style:<name>) or single ops (style:cartoon).
color:transform (with --color-photo, the photo tagged Display P3): the ICC transform to sRGB alone
on the decoded full-size picture — Pillow's ImageCms (lcms2) and libvips' icc_transform.
variant:<format>: the photo → at most 512 px → encoded (Pillow's thumbnail, vipsthumbnail).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from io import BytesIO

STYLES = ["cartoon", "sketch", "watercolor", "pop_art", "comic"]
LONG_SIDE = 2048   # pipeline/style size: 4224×3168 → 2048×1536
QUALITY = 90       # JPEG quality of every encoded output


def log(message):
    print(f"[image_peers] {message}", file=sys.stderr, flush=True)


def emit(**fields):
    print(json.dumps(fields, ensure_ascii=False), flush=True)


def jpeg_size(data):
    """(width, height) from a JPEG's SOF marker, without decoding it."""
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            raise ValueError("not a JPEG marker")
        marker, length = data[i + 1], int.from_bytes(data[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # SOFn
            return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
        i += 2 + length
    raise ValueError("no SOF marker")


def dims(result):
    """(width, height) of what an op returned: JPEG bytes, a numpy array, or a PIL/pyvips image."""
    if isinstance(result, (bytes, bytearray, memoryview)):
        return jpeg_size(bytes(result))
    if isinstance(result, tuple):
        return result
    if hasattr(result, "shape"):
        return result.shape[1], result.shape[0]
    if hasattr(result, "size") and isinstance(result.size, tuple):
        return result.size
    return result.width, result.height


def measure(fn, runs):
    """1 warm-up, then `runs` timed calls: (median ms, min ms, last result)."""
    result = fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 1), round(min(times), 1), result


# Each system: import → (version, {op: (function, note)}). Imports happen only when the system
# is asked for, so a missing library stops only its own lines.

def djpeg_ops(args, data):
    version = subprocess.run(["djpeg", "-version"], capture_output=True, text=True).stderr.strip()
    command = ["djpeg", "-outfile", "/dev/null", args.photo]
    def decode():
        subprocess.run(command, check=True)
        return jpeg_size(data)  # djpeg writes to /dev/null; the size is the photo's
    return version, {
        "decode": (decode, "djpeg -outfile /dev/null PHOTO as a subprocess: includes process "
                           "start-up (~1 ms) and reading the file; single-threaded whatever N is"),
    }


def pillow_ops(args, data):
    import PIL
    from PIL import Image, features
    turbo = "libjpeg-turbo" if features.check_feature("libjpeg_turbo") else "libjpeg"
    def decode():
        im = Image.open(BytesIO(data))
        im.load()
        return im
    def pipeline():
        im = Image.open(BytesIO(data))
        # draft() picks the largest DCT scale keeping *both* sides ≥ the request, so ask for the
        # target size: (2048, 1536) decodes at 1/2 (2112×1584); (2048, 2048) would not scale.
        im.draft("RGB", (LONG_SIDE, LONG_SIDE * 3 // 4))
        im = im.resize((LONG_SIDE, LONG_SIDE * 3 // 4), Image.LANCZOS)
        out = BytesIO()
        im.save(out, "JPEG", quality=QUALITY)
        return out.getvalue()
    single = "single-threaded (threads not applicable)"
    color = {}
    if args.color_photo:
        from PIL import ImageCms
        tagged = Image.open(args.color_photo)
        tagged.load()
        source = ImageCms.ImageCmsProfile(BytesIO(tagged.info["icc_profile"]))
        transform = ImageCms.buildTransform(source, ImageCms.createProfile("sRGB"), "RGB", "RGB",
                                            renderingIntent=ImageCms.Intent.PERCEPTUAL)
        def transform_in_place():
            ImageCms.applyTransform(tagged, transform, inPlace=True)
            return tagged.size
        color["color:transform"] = (transform_in_place, "ImageCms.applyTransform(im, P3→sRGB perceptual, inPlace=True) "
                                                        f"on the decoded picture (transform built once; lcms2 {ImageCms.core.littlecms_version}); {single}")
    return f"{PIL.__version__} ({turbo} {features.version('jpg')})", {**color, **pillow_variant_ops(data),
        "decode": (decode, f"Image.open(BytesIO) + load(); {single}"),
        "pipeline": (pipeline, "draft('RGB', (2048,1536)) DCT-scaled decode to 2112×1584 + "
                               f"resize((2048,1536), LANCZOS) + save JPEG q90 to BytesIO; {single}"),
    }


def pyvips_ops(args, data):
    os.environ["VIPS_CONCURRENCY"] = str(args.threads)  # read when libvips starts, so set first
    import pyvips
    pyvips.cache_set_max(0)  # no operation cache: every run decodes again
    def decode():
        return pyvips.Image.new_from_buffer(data, "").copy_memory()
    def pipeline():
        thumb = pyvips.Image.thumbnail_buffer(data, LONG_SIDE)
        return thumb.write_to_buffer(".jpg", Q=QUALITY)
    threads = "VIPS_CONCURRENCY=threads; operation cache off"
    color = {}
    if args.color_photo:
        with open(args.color_photo, "rb") as f:
            tagged = pyvips.Image.new_from_buffer(f.read(), "").copy_memory()
        def transform():
            return tagged.icc_transform("srgb", intent="perceptual").copy_memory()
        color["color:transform"] = (transform, "decoded.icc_transform('srgb', intent='perceptual').copy_memory() "
                                               f"(the embedded P3 profile; lcms2 inside libvips); {threads}")
    def variant(suffix, crop=None, **options):
        def run():
            extra = {"crop": crop} if crop else {}
            thumb = pyvips.Image.thumbnail_buffer(data, VARIANT_SIDE, height=VARIANT_SIDE, **extra)
            thumb.write_to_buffer(suffix, **options)
            return thumb.width, thumb.height
        return run
    variants = {
        "variant:jpeg": (variant(".jpg", Q=80), f"Image.thumbnail_buffer(b, 512, height=512) + write_to_buffer('.jpg', Q=80); {threads}"),
        "variant:webp": (variant(".webp", Q=80), f"Image.thumbnail_buffer(b, 512, height=512) + write_to_buffer('.webp', Q=80); {threads}"),
        "variant:avif": (variant(".avif", Q=80, effort=1), "Image.thumbnail_buffer(b, 512, height=512) + "
                                                           f"write_to_buffer('.avif', Q=80, effort=1) (libaom speed 8); {threads}"),
        "variant:webp_cover": (variant(".webp", crop="attention", Q=80), "Image.thumbnail_buffer(b, 512, height=512, "
                                                                         f"crop='attention') + write_to_buffer('.webp', Q=80); {threads}"),
    }
    return f"{pyvips.__version__} (libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)})", {**color, **variants,
        "decode": (decode, f"Image.new_from_buffer(b, '').copy_memory(); {threads}"),
        "pipeline": (pipeline, "Image.thumbnail_buffer(b, 2048) (shrink-on-load + lanczos3) + "
                               f"write_to_buffer('.jpg', Q=90); {threads}"),
    }


def opencv_ops(args, data):
    import cv2
    import numpy as np
    cv2.setNumThreads(args.threads)
    buffer = np.frombuffer(data, np.uint8)
    encode = [cv2.IMWRITE_JPEG_QUALITY, QUALITY]

    def decode():
        return cv2.imdecode(buffer, cv2.IMREAD_COLOR)

    def resized(img):
        height, width = img.shape[:2]
        scale = LONG_SIDE / max(width, height)
        return cv2.resize(img, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA)

    def pipeline():
        ok, jpeg = cv2.imencode(".jpg", resized(decode()), encode)
        return jpeg.tobytes()

    def posterise_lut(levels):
        """256-entry table mapping each value to the nearest of `levels` evenly spaced ones."""
        steps = np.floor(np.arange(256) * levels / 256)
        return np.round(steps * 255 / (levels - 1)).astype(np.uint8)

    poster3, poster4 = posterise_lut(3), posterise_lut(4)
    identity = np.arange(256, dtype=np.uint8)
    saturate = np.clip(np.arange(256) * 1.6, 0, 255).astype(np.uint8)
    hsv_boost = np.stack([identity, saturate, identity], -1).reshape(1, 256, 3)  # S ×1.6; H, V as is

    # The five counterparts of Atelier's styles: (function of a BGR uint8 image, note).
    def cartoon(img):
        color = cv2.bilateralFilter(img, 9, 75, 75)
        color = cv2.bilateralFilter(color, 9, 75, 75)
        gray = cv2.medianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), 7)
        edges = cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, 9, 2)
        return cv2.bitwise_and(color, color, mask=edges)

    def sketch(img):
        gray, color = cv2.pencilSketch(img, sigma_s=60, sigma_r=0.07, shade_factor=0.05)
        return color

    def watercolor(img):
        return cv2.stylization(img, sigma_s=60, sigma_r=0.45)

    # pop_art's 45° halftone screen: squared distance to the nearest dot centre over one
    # period (cells of 18 px: Atelier's (6 + 6·0.5)·scale at 2048 px), tiled to the image once.
    cell = 18
    period = max(4, round(cell * 2 ** 0.5))
    gy, gx = np.mgrid[0:period, 0:period].astype(np.float32)
    du, dv = (gx + gy) / period, (gx - gy) / period
    screen_period = (du - np.floor(du) - 0.5) ** 2 + (dv - np.floor(dv) - 0.5) ** 2
    screens = {}
    dot_radius2 = (0.2256 * (1 - np.arange(256) / 255)).astype(np.float32)   # (0.5·√darkness·0.95)²
    print_45 = np.round(np.arange(256) * 0.45).astype(np.uint8)

    def pop_art(img):
        h, w = img.shape[:2]
        flat = cv2.edgePreservingFilter(cv2.resize(img, (w // 4, h // 4), interpolation=cv2.INTER_AREA),
                                        flags=cv2.RECURS_FILTER, sigma_s=6, sigma_r=0.4)
        gray = cv2.cvtColor(flat, cv2.COLOR_BGR2GRAY).astype(np.float32) / 255
        d = cv2.GaussianBlur(gray, (0, 0), 0.5) - 0.98 * cv2.GaussianBlur(gray, (0, 0), 0.8)
        ink = cv2.resize((d < -0.0055).astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST).astype(bool)
        hsv = cv2.LUT(cv2.cvtColor(cv2.resize(flat, (w, h), interpolation=cv2.INTER_LINEAR), cv2.COLOR_BGR2HSV), hsv_boost)
        poster = cv2.LUT(cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR), poster3)
        if (h, w) not in screens:
            screens[(h, w)] = np.tile(screen_period, (h // period + 1, w // period + 1))[:h, :w]
        dots = screens[(h, w)] < dot_radius2[cv2.cvtColor(poster, cv2.COLOR_BGR2GRAY)]
        out = np.where(dots[:, :, None], cv2.LUT(poster, print_45), poster)
        out[ink] = (24, 16, 18)
        return out

    def comic(img):
        gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32) / 255
        sigma = 1.1 * 2
        g1 = cv2.GaussianBlur(gray, (0, 0), sigma)
        g2 = cv2.GaussianBlur(gray, (0, 0), 1.6 * sigma)
        d = g1 - 0.98 * g2
        ink = np.where(d >= 0, 1.0, 1.0 + np.tanh(100 * d)).astype(np.float32)  # ε = 0, φ = 100
        return (cv2.LUT(img, poster4) * ink[:, :, None]).astype(np.uint8)

    styles = {
        "cartoon": (cartoon, "bilateralFilter(d=9, 75, 75) ×2 + gray medianBlur(7) + "
                             "adaptiveThreshold(MEAN_C, BINARY, 9, 2) + bitwise_and(mask=edges)"),
        "sketch": (sketch, "pencilSketch(sigma_s=60, sigma_r=0.07, shade_factor=0.05), colour output"),
        "watercolor": (watercolor, "stylization(sigma_s=60, sigma_r=0.45)"),
        "pop_art": (pop_art, "edgePreservingFilter(RECURS_FILTER, 6, 0.4) at ¼ size, resized up; BGR→HSV, S×1.6 (LUT), "
                             "→BGR, LUT posterise to 3 levels; 45° halftone dots (screen tiled once, np.where); "
                             "XDoG outlines at ¼ size (GaussianBlur σ 0.5 and 0.8, threshold), INTER_NEAREST up"),
        "comic": (comic, "XDoG on float32 gray: GaussianBlur σ=2.2 and 1.6σ, D=G1−0.98·G2, "
                         "ink=where(D≥0, 1, 1+tanh(100·D)) (numpy); colour LUT-posterised to 4 levels × ink"),
    }
    threads = "cv2.setNumThreads(threads)"
    ops = {
        "decode": (decode, f"imdecode(IMREAD_COLOR) → BGR; {threads}"),
        "pipeline": (pipeline, f"imdecode + resize(2048×1536, INTER_AREA) + imencode('.jpg', q90); {threads}"),
    }
    prepared = resized(decode())  # the 2048×1536 image the style: kernels run on, made once
    for name, (kernel, note) in styles.items():
        ops[f"style:{name}"] = (lambda kernel=kernel: kernel(prepared),
                                f"{note}; kernel only, on 2048×1536 BGR; {threads}")
    for name, (kernel, note) in styles.items():
        def stylize(kernel=kernel):
            ok, jpeg = cv2.imencode(".jpg", kernel(resized(decode())), encode)
            return jpeg.tobytes()
        ops[f"stylize:{name}"] = (stylize, f"imdecode + INTER_AREA to 2048×1536 + {name} + imencode q90; {threads}")
    return cv2.__version__, ops


VARIANT_SIDE = 512    # the variant ops: the photo → at most 512 px → encoded at quality 80


def vipsthumbnail_ops(args, data):
    """libvips' thumbnailer (Debian's libvips-tools) as a process per run, as a user runs it."""
    version = subprocess.run(["vipsthumbnail", "--vips-version"], capture_output=True, text=True).stdout.strip()
    environment = {**os.environ, "VIPS_CONCURRENCY": str(args.threads)}
    out = f"/tmp/atelier-bench-vipsthumbnail-{os.getpid()}"
    def thumbnail(extension, options, crop=()):
        def run():
            subprocess.run(["vipsthumbnail", args.photo, "-s", f"{VARIANT_SIDE}x{VARIANT_SIDE}", *crop,
                            "-o", f"{out}.{extension}[{options}]"], check=True, env=environment)
            return os.path.getsize(f"{out}.{extension}") and (VARIANT_SIDE, VARIANT_SIDE * 3 // 4)
        return run
    note = f"vipsthumbnail PHOTO -s 512x512 as a subprocess (shrink-on-load, lanczos3; start-up included); VIPS_CONCURRENCY={args.threads}"
    return version, {
        "variant:jpeg": (thumbnail("jpg", "Q=80"), f"{note}; -o .jpg[Q=80]"),
        "variant:webp": (thumbnail("webp", "Q=80"), f"{note}; -o .webp[Q=80]"),
        "variant:avif": (thumbnail("avif", "Q=80,effort=1"), f"{note}; -o .avif[Q=80,effort=1] (libheif + libaom, speed 8)"),
        "variant:webp_cover": (thumbnail("webp", "Q=80", ("--smartcrop", "attention")),
                               f"{note} --smartcrop attention; -o .webp[Q=80]"),
    }


def pillow_variant_ops(data):
    from PIL import Image
    def thumbnail(fmt, **options):
        def run():
            im = Image.open(BytesIO(data))
            im.draft("RGB", (VARIANT_SIDE, VARIANT_SIDE))
            im.thumbnail((VARIANT_SIDE, VARIANT_SIDE), Image.LANCZOS)
            out = BytesIO()
            im.save(out, fmt, **options)
            return im.size
        return run
    note = "Image.open + draft('RGB', (512,512)) + thumbnail((512,512), LANCZOS) + save to BytesIO; single-threaded"
    return {
        "variant:jpeg": (thumbnail("JPEG", quality=80), f"{note}; JPEG quality 80"),
        "variant:webp": (thumbnail("WEBP", quality=80), f"{note}; WEBP quality 80"),
        "variant:avif": (thumbnail("AVIF", quality=80, speed=8), f"{note}; AVIF quality 80, speed 8"),
    }


SYSTEMS = {"djpeg": djpeg_ops, "pillow": pillow_ops, "pyvips": pyvips_ops, "opencv": opencv_ops,
           "vipsthumbnail": vipsthumbnail_ops}


def wanted(op, requested):
    """Is `op` (decode, style:cartoon…) asked for by --ops (families or single ops)?"""
    return op in requested or op.split(":")[0] in requested


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--photo", required=True)
    p.add_argument("--threads", type=int, required=True)
    p.add_argument("--runs", type=int, required=True)
    p.add_argument("--systems", default="djpeg,pillow,pyvips,opencv")
    p.add_argument("--ops", default="decode,pipeline,style,stylize")
    p.add_argument("--color-photo", default=None)
    args = p.parse_args()
    requested = args.ops.split(",")
    with open(args.photo, "rb") as f:
        data = f.read()
    log(f"{args.photo}: {len(data):,} bytes, {'×'.join(map(str, jpeg_size(data)))}; "
        f"threads={args.threads}, runs={args.runs}")

    for system in args.systems.split(","):
        base = {"system": system, "op": None, "threads": args.threads, "runs": args.runs}
        if system not in SYSTEMS:
            emit(**base, error=f"unknown system (known: {', '.join(SYSTEMS)})")
            continue
        try:
            version, ops = SYSTEMS[system](args, data)
        except Exception as e:  # ImportError, a missing djpeg, …: this system only
            log(f"{system}: unavailable: {e!r}")
            emit(**base, error=f"unavailable: {e!r}")
            continue
        log(f"{system} {version}")
        for op, (fn, note) in ops.items():
            if not wanted(op, requested):
                continue
            try:
                median_ms, min_ms, result = measure(fn, args.runs)
                width, height = dims(result)
            except Exception as e:
                log(f"{system} {op}: failed: {e!r}")
                emit(**{**base, "op": op}, error=repr(e))
                continue
            log(f"{system} {op}: median {median_ms} ms, min {min_ms} ms")
            emit(**{**base, "op": op}, median_ms=median_ms, min_ms=min_ms, width=width, height=height,
                 note=note, version=version)


if __name__ == "__main__":
    main()
