"""Writes the broken photo of issue 46's finding: a PNG whose header says 6000 × 6000 RGB and
whose pixel data stops short — a complete, well-formed file (every chunk and its CRC, IEND)
of about 126 KB, whose compressed data holds 7 of the 6000 rows. Its header passes the upload
check; every decode fails. Usage: broken_png.py OUT"""
import os
import struct
import sys
import zlib


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


rows = b"".join(b"\x00" + os.urandom(6000 * 3) for _ in range(7))    # filter byte + pixels
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 6000, 6000, 8, 2, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))
with open(sys.argv[1], "wb") as out:
    out.write(png)
