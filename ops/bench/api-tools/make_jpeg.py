"""Write a real baseline JPEG of about TARGET bytes (default 200 KB) with cjpeg (libjpeg-turbo):
a synthetic photo-like image (gradients, shapes, grain), grown until the file is big enough.

usage: make_jpeg.py OUT.jpg [TARGET_BYTES]
"""
import math
import os
import random
import subprocess
import sys

out = sys.argv[1]
target = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
random.seed(7)
width = 640
while True:
    height = width * 3 // 4
    pixels = bytearray()
    for y in range(height):
        for x in range(width):
            r = 128 + 100 * math.sin(x / 37.0) * math.cos(y / 53.0)
            g = 128 + 90 * math.sin((x + y) / 71.0)
            b = 255 * y / height
            n = random.randint(-24, 24)
            pixels += bytes((max(0, min(255, int(r) + n)), max(0, min(255, int(g) + n)), max(0, min(255, int(b) + n))))
    ppm = out + ".ppm"
    with open(ppm, "wb") as f:
        f.write(b"P6 %d %d 255\n" % (width, height))
        f.write(pixels)
    subprocess.run(["cjpeg", "-quality", "85", "-outfile", out, ppm], check=True)
    os.remove(ppm)
    size = os.path.getsize(out)
    if size >= target * 0.9:
        print(f"{out}: {width}x{height}, {size} bytes")
        break
    width = int(width * math.sqrt(target / size)) + 8
