#!/usr/bin/python3
"""picture.py SCREEN PNG: a screen the viewer wrote with a script's
`dumplooks` step (t/house/screens/picture-*.txt: its lines, then `looks:` and a
line of look letters under each) drawn as a terminal shows it, in the
xterm 256-colour palette with DejaVu Sans Mono.  The PNG keeps the SHA-256
of the screen it was drawn from (tEXt ttv-screen-sha256), so t/house/pictures.t
can tell a picture that no longer shows what the tests check."""
import hashlib
import sys

from PIL import Image, ImageDraw, ImageFont
from PIL.PngImagePlugin import PngInfo

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
SIZE = 15
DEFAULT_FG = (208, 208, 208)
DEFAULT_BG = (28, 28, 28)
BASE16 = [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
          (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
          (255, 0, 255), (0, 255, 255), (255, 255, 255)]


def colour(n, default):
    """xterm's colour n (-1: the terminal's own)."""
    if n < 0:
        return default
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[n // 6 % 6], steps[n % 6])
    g = 8 + 10 * (n - 232)
    return (g, g, g)


def parse(text):
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("looks:"))
    screen = lines[:at]
    looks = {}
    for item in lines[at][len("looks:"):].split():
        letter, look = item.split("=", 1)
        fg, bg, attrs = look.split("/")
        looks[letter] = (int(fg), int(bg), attrs)
    cells = lines[at + 1:at + 1 + len(screen)]
    return screen, looks, cells


def draw(screen, looks, cells):
    font, bold = ImageFont.truetype(FONT, SIZE), ImageFont.truetype(BOLD, SIZE)
    ascent, descent = font.getmetrics()
    cw, ch = round(font.getlength("M")), ascent + descent
    cols = max(len(c) for c in cells)
    img = Image.new("RGB", (cols * cw, len(cells) * ch), DEFAULT_BG)
    d = ImageDraw.Draw(img)
    for y, row in enumerate(cells):
        text = screen[y] if y < len(screen) else ""
        for x in range(cols):
            fg, bg, attrs = looks.get(row[x] if x < len(row) else "", (-1, -1, ""))
            fgc, bgc = colour(fg, DEFAULT_FG), colour(bg, DEFAULT_BG)
            if "r" in attrs:
                fgc, bgc = bgc, fgc
            if "d" in attrs:
                fgc = tuple((f + b) // 2 for f, b in zip(fgc, bgc))
            box = (x * cw, y * ch, (x + 1) * cw - 1, (y + 1) * ch - 1)
            d.rectangle(box, fill=bgc)
            c = text[x] if x < len(text) else " "
            if c != " ":
                d.text((x * cw, y * ch), c, font=bold if "b" in attrs else font, fill=fgc)
            if "u" in attrs:
                d.line((x * cw, (y + 1) * ch - 2, (x + 1) * cw - 1, (y + 1) * ch - 2), fill=fgc)
    return img


def main():
    src, out = sys.argv[1], sys.argv[2]
    data = open(src, "rb").read()
    screen, looks, cells = parse(data.decode("utf-8"))
    info = PngInfo()
    info.add_text("ttv-screen-sha256", hashlib.sha256(data).hexdigest())
    draw(screen, looks, cells).save(out, pnginfo=info, optimize=True)


main()
