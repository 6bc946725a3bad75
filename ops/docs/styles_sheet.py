"""The contact sheets of docs/styles.md, one per style (docs/styles/<style>.jpg), run by
ops/docs/contact-sheets in the image benchmark's venv (OpenCV, Pillow, NumPy).

Each photo is first made the one input of both systems: turned upright, converted to sRGB through
its ICC profile if it has one (Atelier honours profiles, OpenCV ignores them), its long side capped
at 1024 px (Lanczos), and written as a PNG without a profile. Then one row per photo: the photo,
Atelier at intensity 0.2, 0.5 and 0.9 (`atelier styles render`), and OpenCV's nearest filter at
half, exactly and double OpenCV's default sigma_s and sigma_r. The markdown for docs/styles.md
(the photos, OpenCV's parameters) goes to stdout; progress to stderr.
"""
import argparse
import concurrent.futures
import importlib.metadata
import io
import os
import shutil
import subprocess
import sys
import time

import cv2
import numpy as np
from PIL import Image, ImageCms, ImageDraw, ImageFont, ImageOps

STYLES = ["cartoon", "sketch", "pop_art", "watercolor", "comic"]
INTENSITIES = [0.2, 0.5, 0.9]
MAX_SIDE = 1024        # both systems see the photo at this long side at most
TILE = 180             # tile width; the height follows the photo
GAP = 4
QUALITY = 85           # lowered in steps of 5 (to 60 at most) while a sheet is over MAX_BYTES
MAX_BYTES = 300_000

# pencilSketch's brightness. OpenCV's default, 0.02, leaves most of a photo near black; 0.05 is
# what OpenCV's own sample (npr_demo) and ops/bench/peers/image_peers.py use.
SHADE_FACTOR = 0.05
# OpenCV's nearest counterpart of each style: (function, output, fixed arguments). Its defaults
# (sigma_s, sigma_r) are OpenCV's own; low and high are half and double of both.
OPENCV = {
    "cartoon": ("edgePreservingFilter", None, "flags=RECURS_FILTER"),
    "sketch": ("pencilSketch", "gray output", f"shade_factor={SHADE_FACTOR}"),
    "pop_art": ("stylization", None, ""),
    "watercolor": ("stylization", None, ""),
    "comic": ("pencilSketch", "colour output", f"shade_factor={SHADE_FACTOR}"),
}
DEFAULTS = {"edgePreservingFilter": (60, 0.4), "pencilSketch": (60, 0.07), "stylization": (60, 0.45)}
SETTINGS = {"low": 0.5, "default": 1.0, "high": 2.0}


def log(message):
    print(f"[styles-sheet] {message}", file=sys.stderr, flush=True)


def sigmas(function, setting):
    s, r = DEFAULTS[function]
    k = SETTINGS[setting]
    return round(s * k), min(1.0, round(r * k, 3))


def opencv_outputs(function, bgr, setting):
    """Every output of `function` at `setting`: {output name or None: BGR uint8 image}."""
    sigma_s, sigma_r = sigmas(function, setting)
    if function == "edgePreservingFilter":
        return {None: cv2.edgePreservingFilter(bgr, flags=cv2.RECURS_FILTER, sigma_s=sigma_s, sigma_r=sigma_r)}
    if function == "pencilSketch":
        gray, colour = cv2.pencilSketch(bgr, sigma_s=sigma_s, sigma_r=sigma_r, shade_factor=SHADE_FACTOR)
        return {"gray output": cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR), "colour output": colour}
    if function == "stylization":
        return {None: cv2.stylization(bgr, sigma_s=sigma_s, sigma_r=sigma_r)}
    raise ValueError(function)


def opencv_call(style):
    function, output, fixed = OPENCV[style]
    call = f"cv2.{function}({fixed})" if fixed else f"cv2.{function}"
    return f"{call}, {output}" if output else call


def prepare(source, dest):
    """The common input: upright, sRGB, long side ≤ MAX_SIDE, 8-bit RGB PNG without a profile."""
    with Image.open(source) as im:
        im = ImageOps.exif_transpose(im)
        icc = im.info.get("icc_profile")
        im = im.convert("RGB")
        profile = None
        if icc:
            source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            profile = ImageCms.getProfileDescription(source).strip()
            im = ImageCms.profileToProfile(im, source, ImageCms.createProfile("sRGB"), outputMode="RGB")
        original = im.size
        if max(im.size) > MAX_SIDE:
            scale = MAX_SIDE / max(im.size)
            im = im.resize((round(im.width * scale), round(im.height * scale)), Image.LANCZOS)
        im.save(dest)
        return original, im.size, profile


def render_atelier(atelier, style, intensity, src, dest):
    run = subprocess.run([atelier, "styles", "render", "--style", style, "--intensity", str(intensity),
                          "--max-side", str(MAX_SIDE), src, dest], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"atelier styles render --style {style} --intensity {intensity} {src}: "
                           f"exit {run.returncode}\n{run.stderr.strip()}")


def tile(image, height):
    return image.convert("RGB").resize((TILE, height), Image.LANCZOS)


def wrap(draw, text, font, width):
    lines, line = [], ""
    for word in text.split(" "):
        candidate = f"{line} {word}".strip()
        if line and draw.textlength(candidate, font=font) > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    return lines + [line]


def save_jpeg(sheet, path):
    quality = QUALITY
    while True:
        buffer = io.BytesIO()
        sheet.save(buffer, "JPEG", quality=quality, optimize=True)
        if buffer.tell() <= MAX_BYTES or quality <= 60:
            break
        quality -= 5
    with open(path, "wb") as f:
        f.write(buffer.getvalue())
    return quality, buffer.tell()


def make_sheet(style, rows, caption, font):
    columns = ["photo"] + [f"Atelier {i}" for i in INTENSITIES] + [f"OpenCV {s}" for s in SETTINGS]
    width = len(columns) * TILE + (len(columns) + 1) * GAP
    line_height = round(font.size * 1.4)
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    caption_lines = wrap(probe, caption, font, width - 2 * GAP)
    header = line_height + GAP
    height = header + sum(r[0].height + GAP for r in rows) + len(caption_lines) * line_height + GAP
    sheet = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(sheet)
    for c, label in enumerate(columns):
        x = GAP + c * (TILE + GAP)
        draw.text((x + TILE / 2, GAP + line_height / 2), label, fill="black", font=font, anchor="mm")
    y = header + GAP
    for tiles in rows:
        for c, t in enumerate(tiles):
            sheet.paste(t, (GAP + c * (TILE + GAP), y))
        y += tiles[0].height + GAP
    for line in caption_lines:
        draw.text((GAP, y), line, fill=(60, 60, 60), font=font)
        y += line_height
    return sheet


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--atelier", required=True, help="the atelier binary")
    parser.add_argument("--work", required=True, help="scratch folder (capped inputs, renders)")
    parser.add_argument("--out", required=True, help="where <style>.jpg go")
    parser.add_argument("--photo", nargs=5, action="append", required=True,
                        metavar=("CATEGORY", "PACKAGE", "DEBIAN_PATH", "FILE", "WHAT"),
                        help="one row: its category, Debian package, path there, file read, description")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="atelier renders at once")
    args = parser.parse_args()
    started = time.monotonic()

    inputs, renders = os.path.join(args.work, "inputs"), os.path.join(args.work, "renders")
    shutil.rmtree(args.work, ignore_errors=True)   # nothing stale from an earlier run
    os.makedirs(inputs)
    os.makedirs(renders)
    os.makedirs(args.out, exist_ok=True)

    photos = []
    for category, package, debian_path, file, what in args.photo:
        src = os.path.join(inputs, f"{category}.png")
        original, size, profile = prepare(file, src)
        photos.append(dict(category=category, package=package, path=debian_path, what=what,
                           src=src, original=original, size=size, profile=profile))
        log(f"{category}: {debian_path} {original[0]}×{original[1]} → {size[0]}×{size[1]}"
            + (f" (its profile, {profile}, converted to sRGB)" if profile else ""))

    jobs = [(style, intensity, p) for style in STYLES for p in photos for intensity in INTENSITIES]
    log(f"{len(jobs)} atelier renders ({args.jobs} at once)")
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for future in [pool.submit(render_atelier, args.atelier, s, i, p["src"],
                                   os.path.join(renders, f"{s}-{p['category']}-{i}.png")) for s, i, p in jobs]:
            future.result()
    atelier_seconds = time.monotonic() - t0

    t0 = time.monotonic()
    opencv = {}   # (function, setting, category) → {output: BGR}
    for p in photos:
        bgr = cv2.imread(p["src"], cv2.IMREAD_COLOR)
        for function in sorted({f for f, _, _ in OPENCV.values()}):
            for setting in SETTINGS:
                opencv[function, setting, p["category"]] = opencv_outputs(function, bgr, setting)
    opencv_seconds = time.monotonic() - t0
    log(f"renders: atelier {atelier_seconds:.1f} s, opencv {opencv_seconds:.1f} s")

    font = ImageFont.load_default(size=11)
    cv_version = importlib.metadata.version("opencv-python-headless")
    for style in STYLES:
        function, output, _ = OPENCV[style]
        rows = []
        for p in photos:
            with Image.open(p["src"]) as im:
                height = round(TILE * im.height / im.width)
                tiles = [tile(im, height)]
            for i in INTENSITIES:
                with Image.open(os.path.join(renders, f"{style}-{p['category']}-{i}.png")) as im:
                    tiles.append(tile(im, height))
            for setting in SETTINGS:
                bgr = opencv[function, setting, p["category"]][output]
                tiles.append(tile(Image.fromarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)), height))
            rows.append(tiles)
        settings = "; ".join(f"{s} sigma_s={sigmas(function, s)[0]}, sigma_r={sigmas(function, s)[1]}"
                             for s in SETTINGS)
        caption = (f"{style}. Rows: {', '.join(p['category'] for p in photos)}, each capped at "
                   f"{MAX_SIDE} px for both. Atelier: styles render --style {style} --intensity X. "
                   f"OpenCV {cv_version}: {opencv_call(style)}; {settings} (default = OpenCV's).")
        path = os.path.join(args.out, f"{style}.jpg")
        quality, size = save_jpeg(make_sheet(style, rows, caption, font), path)
        log(f"wrote {path} ({size // 1024} KB, quality {quality})")

    print("| row | what it shows | Debian package | file |")
    print("|---|---|---|---|")
    for p in photos:
        w, h = p["original"]
        print(f"| {p['category']} | {p['what']} | `{p['package']}` | `{p['path']}` ({w}×{h}) |")
    print()
    print(f"Columns: the photo (long side capped at {MAX_SIDE} px: the same pixels go to both systems), "
          f"Atelier at `intensity` {', '.join(map(str, INTENSITIES))}, then OpenCV's nearest filter "
          f"(opencv-python-headless {cv_version}) at half, exactly and double its default `sigma_s` and `sigma_r`:")
    print()
    print("| style | OpenCV | low | default | high |")
    print("|---|---|---|---|---|")
    for style in STYLES:
        function = OPENCV[style][0]
        cells = " | ".join("sigma_s={}, sigma_r={}".format(*sigmas(function, s)) for s in SETTINGS)
        print(f"| `{style}` | `{opencv_call(style)}` | {cells} |")
    print()
    for style in STYLES:
        print(f"![{style}: Atelier beside OpenCV](styles/{style}.jpg)")
    log(f"sheets done in {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
