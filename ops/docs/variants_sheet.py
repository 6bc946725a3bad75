"""The contact sheet of photo variants for docs/images.md (docs/variants.jpg), run by
ops/docs/contact-sheets after the styles' sheets, on the same prepared photos (upright, sRGB,
long side ≤ 1024 px): one row per photo — the photo, the ThumbHash placeholder a phone paints
first, a centre square crop, Atelier's `cover` square (cropped around the subject), `contain` and
`inside` in the same square box — then one photo encoded as JPEG, WebP and AVIF at quality 80.
Renders come from `atelier variant render` / `atelier variant placeholder` (release build).
"""
import argparse
import io
import os
import subprocess
import sys

from PIL import Image, ImageDraw, ImageFont, ImageOps

from styles_sheet import GAP, save_jpeg, wrap

BOX = 180            # the box every variant is asked to fit
FRAME = (225, 225, 225)


def atelier(binary, *arguments):
    run = subprocess.run([binary, "variant", *arguments], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"atelier variant {' '.join(arguments)}: exit {run.returncode}\n{run.stderr.strip()}")
    return run.stdout.strip()


def framed(image):
    """`image` centred in a BOX × BOX frame, so each fit shows against the box it was asked for."""
    frame = Image.new("RGB", (BOX, BOX), FRAME)
    frame.paste(image.convert("RGB"), ((BOX - image.width) // 2, (BOX - image.height) // 2))
    return frame


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--atelier", required=True)
    parser.add_argument("--work", required=True, help="scratch folder")
    parser.add_argument("--out", required=True, help="the sheet (JPEG)")
    parser.add_argument("--photo", nargs=2, action="append", required=True, metavar=("CATEGORY", "PREPARED_PNG"))
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    font = ImageFont.load_default(size=13)
    columns = ["photo", "ThumbHash", "centre crop", "cover", "contain", "inside"]
    rows = []
    for category, path in args.photo:
        photo = Image.open(path).convert("RGB")
        shown = photo.copy()
        shown.thumbnail((BOX, BOX), Image.LANCZOS)
        placeholder_png = os.path.join(args.work, f"{category}-thumbhash.png")
        thumbhash = atelier(args.atelier, "placeholder", "--png", placeholder_png, path)
        placeholder = Image.open(placeholder_png).convert("RGB").resize(shown.size, Image.BILINEAR)
        centre = ImageOps.fit(photo, (BOX, BOX), Image.LANCZOS, centering=(0.5, 0.5))
        fits = []
        for fit in ["cover", "contain", "inside"]:
            out = os.path.join(args.work, f"{category}-{fit}.png.jpg")
            atelier(args.atelier, "render", "--width", str(BOX), "--height", str(BOX), "--fit", fit, "--format", "jpeg",
                    "--quality", "90", path, out)
            fits.append(Image.open(out))
        rows.append(([framed(shown), framed(placeholder), centre] + [framed(f) for f in fits],
                     f"{category}: thumbhash {thumbhash} ({len(thumbhash) * 3 // 4} bytes)"))
    # One photo in the three encodings, as format=auto would pick by Accept.
    category, path = args.photo[0]
    encoded = []
    for fmt in ["jpeg", "webp", "avif"]:
        out = os.path.join(args.work, f"{category}-inside-512.{fmt}")
        atelier(args.atelier, "render", "--width", "512", "--height", "512", "--fit", "inside", "--format", fmt, path, out)
        size = os.path.getsize(out)
        image = Image.open(out)
        image.thumbnail((BOX, BOX), Image.LANCZOS)
        encoded.append((framed(image), f"{fmt}: {size:,} bytes"))

    width = len(columns) * BOX + (len(columns) + 1) * GAP
    line = round(font.size * 1.4)
    height = line + GAP + len(rows) * (BOX + line + GAP) + line + BOX + line + 2 * GAP
    sheet = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(sheet)
    for c, label in enumerate(columns):
        draw.text((GAP + c * (BOX + GAP) + BOX / 2, GAP + line / 2), label, fill="black", font=font, anchor="mm")
    y = line + GAP
    for tiles, caption in rows:
        for c, t in enumerate(tiles):
            sheet.paste(t, (GAP + c * (BOX + GAP), y))
        draw.text((GAP, y + BOX + 2), caption, fill=(60, 60, 60), font=font)
        y += BOX + line + GAP
    draw.text((GAP, y), f"{category}, 512 px inside, quality 80: what format=auto answers by Accept", fill="black", font=font)
    y += line
    for c, (t, label) in enumerate(encoded):
        sheet.paste(t, (GAP + c * (BOX + GAP), y))
        draw.text((GAP + c * (BOX + GAP) + BOX / 2, y + BOX + line / 2), label, fill=(60, 60, 60), font=font, anchor="mm")
    quality, size = save_jpeg(sheet, args.out)
    print(f"[variants-sheet] wrote {args.out} ({size // 1000} KB, quality {quality})", file=sys.stderr)


if __name__ == "__main__":
    main()
