#!/usr/bin/env python3
"""Checks that a screenshot of a gpumux report shows drawn charts, not a blank page.

Usage: png_check.py SCREENSHOT.png COLOR[/TOLERANCE[/MIN]] [COLOR[/TOLERANCE[/MIN]]...]
Decodes the PNG with the standard library (8-bit RGB or RGBA, non-interlaced: what Chromium
writes), then requires that
  - the page is not uniform (at least 1% of pixels differ from the background, the most common
    colour), and
  - every COLOR (#rrggbb, a series colour of the charts) covers at least 1000 pixels, counting
    pixels within 48 of it per channel (line anti-aliasing blends edges with white), or within
    TOLERANCE when given (a light tint, e.g. a shaded band, needs a small one: the page's greys
    are within 48 of it), or at least MIN pixels when given (a page of two charts, whose first
    line is partly drawn over). The legend swatches of the charts in view cover about 450 such
    pixels on a page of many charts: the rest must be drawn lines (or bars, or bands).
Exit 0 when all hold, 1 with a message naming what is missing.
"""
import collections
import struct
import sys
import zlib


def decode_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, color_type, _, _, interlace = header
    if depth != 8 or color_type not in (2, 6) or interlace != 0:
        raise ValueError(f"{path}: expected 8-bit RGB(A) non-interlaced, got depth {depth}, "
                         f"colour type {color_type}, interlace {interlace}")
    channels = 3 if color_type == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
                line[i] = (line[i] + pred) & 0xFF
        rows.append(line)
        previous = line
    pixels = []
    for line in rows:
        for x in range(width):
            pixels.append(tuple(line[x * channels:x * channels + 3]))
    return width, height, pixels


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    width, height, pixels = decode_png(argv[1])
    counts = collections.Counter(pixels)
    background, background_count = counts.most_common(1)[0]
    drawn = len(pixels) - background_count
    problems = []
    if drawn < 0.01 * len(pixels):
        problems.append(f"only {drawn} of {len(pixels)} pixels differ from the background "
                        f"{background}: the page is blank")
    for text in argv[2:]:
        color_text, _, rest = text.partition("/")
        tolerance_text, _, minimum_text = rest.partition("/")
        tolerance = int(tolerance_text) if tolerance_text else 48
        minimum = int(minimum_text) if minimum_text else 1000
        target = tuple(int(color_text.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4))
        near = sum(n for color, n in counts.items()
                   if all(abs(a - b) <= tolerance for a, b in zip(color, target)))
        if near < minimum:
            problems.append(f"series colour {text} covers {near} pixels (< {minimum}): its "
                            f"chart lines are not drawn")
        else:
            print(f"png_check: {text} covers {near} pixels")
    print(f"png_check: {argv[1]}: {width}x{height}, {len(counts)} colours, {drawn} pixels "
          f"drawn on background {background}")
    for p in problems:
        print("png_check: FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
