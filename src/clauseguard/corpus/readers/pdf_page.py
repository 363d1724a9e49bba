"""One PDF page as pdfium draws it: text runs with their box, baseline, size and weight, the ruling
lines tables are drawn with, and how much of the page images cover.

It reads pdfium's page objects (one per text-showing operator), not its character boxes: a run is
one string in one font at one size, which is what small capitals and letter-spaced headings are
made of. It never joins runs into lines or decides what a run means; every page is closed after use.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

_BOLD_NAMES: Final = ("bold", "black", "heavy", "semibold", "demibold", "demi")
_ITALIC_NAMES: Final = ("italic", "oblique")
_SOFT_HYPHENS: Final = str.maketrans({"\x02": "-", "\ufffe": "-", "\u00ad": "-", "\r": " ", "\n": " "})
_MAX_TILT: Final = 0.09  # about 5 degrees: a run tilted more (a watermark, a rotated label) is not body text
_RULE: Final = 2.5  # a box thinner than this (points) is a ruling line


@dataclass(frozen=True, slots=True)
class Run:
    """One run of text: x0..x1 and top..bottom from the top-left corner, baseline likewise."""

    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    baseline: float
    size: float
    bold: bool
    italic: bool


@dataclass(frozen=True, slots=True)
class Edge:
    """A ruling segment, horizontal (y0 == y1) or vertical (x0 == x1), top-down coordinates."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def horizontal(self) -> bool:
        return self.y0 == self.y1


@dataclass
class RawPage:
    number: int
    width: float
    height: float
    runs: list[Run] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    image_share: float = 0.0  # share of the page's area covered by images
    declared_label: str | None = None  # the label /PageLabels gives this page


class _Fonts:
    """Weight and slant of each font object, read once."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.seen: dict[int | None, tuple[bool, bool]] = {}

    def style(self, font: Any) -> tuple[bool, bool]:
        key = ctypes.cast(font, ctypes.c_void_p).value
        found = self.seen.get(key)
        if found is None:
            r = self.raw
            size = r.FPDFFont_GetBaseFontName(font, None, 0)
            buffer = ctypes.create_string_buffer(max(size, 1))
            r.FPDFFont_GetBaseFontName(font, buffer, size)
            name = buffer.value.decode("latin-1").lower()
            weight = r.FPDFFont_GetWeight(font)
            angle = ctypes.c_int(0)
            slanted = bool(r.FPDFFont_GetItalicAngle(font, ctypes.byref(angle))) and angle.value != 0
            found = (weight >= 600 or any(m in name for m in _BOLD_NAMES),
                     slanted or any(m in name for m in _ITALIC_NAMES))
            self.seen[key] = found
        return found


def _text_of(raw: Any, obj: Any, textpage: Any) -> str:
    size = raw.FPDFTextObj_GetText(obj, textpage, None, 0)
    if size <= 2:
        return ""
    buffer = (ctypes.c_ushort * (size // 2))()
    raw.FPDFTextObj_GetText(obj, textpage, buffer, size)
    return bytes(buffer)[: size - 2].decode("utf-16-le", errors="replace").translate(_SOFT_HYPHENS)


def _page_texts(raw: Any, textpage: Any) -> dict[int, str] | None:
    """Every text object's text from one read of the page's text: a page object's characters are
    consecutive in pdfium's text page (each object is laid out once), so the end of each object's
    run is found by galloping (a few calls per object, not one per character; pdfium's own
    per-object call scans the whole page each time). None when the page's text does not map one
    unit per character; an object missing from the map asks for its own text."""
    count = raw.FPDFText_CountChars(textpage)
    if count <= 0:
        return {}
    buffer = (ctypes.c_ushort * (count + 1))()
    written = raw.FPDFText_GetText(textpage, 0, count, buffer)
    if written != count + 1:
        return None
    units = bytes(buffer)[: 2 * count].decode("utf-16-le", errors="replace")
    if len(units) != count:
        return None
    # the same C function, returning the object's address as an int (ctypes.cast per call is slow)
    address = ctypes.cast(raw.FPDFText_GetTextObject, ctypes.c_void_p).value
    if address is None:
        return None
    owner = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)(address)
    page_text = ctypes.cast(textpage, ctypes.c_void_p).value

    def of(i: int) -> int | None:
        found: int | None = owner(page_text, i)
        return found

    texts: dict[int, str] = {}
    shared: set[int] = set()
    i = 0
    while i < count:
        obj = of(i)
        good, step = i, 1
        while good + step < count and of(good + step) == obj:
            good += step
            step *= 2
        bad = min(good + step, count)
        while bad - good > 1:  # the last index of the run is in [good, bad)
            mid = (good + bad) // 2
            if of(mid) == obj:
                good = mid
            else:
                bad = mid
        if obj is not None:
            if obj in texts or obj in shared:
                # pdfium gave several objects' characters one internal object (it does for some
                # one-glyph runs): galloping may have run over others' characters, so that key is
                # dropped and those objects ask for their own text
                shared.add(obj)
                texts.pop(obj, None)
            else:
                texts[obj] = units[i: good + 1].translate(_SOFT_HYPHENS)
        i = good + 1
    return texts


def _transform(m: tuple[float, ...], x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


def _compose(outer: tuple[float, ...], inner: tuple[float, ...]) -> tuple[float, ...]:
    """inner then outer (PDF row-vector convention)."""
    a1, b1, c1, d1, e1, f1 = inner
    a2, b2, c2, d2, e2, f2 = outer
    return (a1 * a2 + b1 * c2, a1 * b2 + b1 * d2, c1 * a2 + d1 * c2, c1 * b2 + d1 * d2,
            e1 * a2 + f1 * c2 + e2, e1 * b2 + f1 * d2 + f2)


class _PageReader:
    def __init__(self, raw: Any, page: Any, textpage: Any, number: int, fonts: _Fonts) -> None:
        self.raw, self.page, self.textpage, self.fonts = raw, page, textpage, fonts
        width, height = float(raw.FPDF_GetPageWidthF(page)), float(raw.FPDF_GetPageHeightF(page))
        if raw.FPDFPage_GetRotation(page) in (1, 3):  # objects are placed on the page before it is turned
            width, height = height, width
        self.out = RawPage(number, width, height)
        self.image_area = 0.0
        self._float = [ctypes.c_float() for _ in range(4)]
        self._matrix = raw.FS_MATRIX()
        self.texts = _page_texts(raw, textpage)

    def matrix(self, obj: Any) -> tuple[float, ...]:
        m = self._matrix
        if not self.raw.FPDFPageObj_GetMatrix(obj, ctypes.byref(m)):
            return (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
        return (m.a, m.b, m.c, m.d, m.e, m.f)

    def bounds(self, obj: Any, outer: tuple[float, ...] | None) -> tuple[float, float, float, float]:
        """(x0, top, x1, bottom) of an object, top-down, in page space."""
        left, bottom, right, top = self._float
        self.raw.FPDFPageObj_GetBounds(obj, left, bottom, right, top)
        box = (left.value, bottom.value, right.value, top.value)
        if outer is not None:
            xs, ys = zip(*(_transform(outer, x, y) for x in (box[0], box[2]) for y in (box[1], box[3])), strict=True)
            box = (min(xs), min(ys), max(xs), max(ys))
        h = self.out.height
        return box[0], h - box[3], box[2], h - box[1]

    def objects(self, container: Any | None = None) -> Iterator[Any]:
        r = self.raw
        if container is None:
            for k in range(r.FPDFPage_CountObjects(self.page)):
                yield r.FPDFPage_GetObject(self.page, k)
        else:
            for k in range(r.FPDFFormObj_CountObjects(container)):
                yield r.FPDFFormObj_GetObject(container, k)

    def read(self, container: Any = None, outer: tuple[float, ...] | None = None) -> None:
        r = self.raw
        for obj in self.objects(container):
            kind = r.FPDFPageObj_GetType(obj)
            if kind == r.FPDF_PAGEOBJ_TEXT:
                self.text(obj, outer)
            elif kind == r.FPDF_PAGEOBJ_PATH:
                self.path(obj, outer)
            elif kind == r.FPDF_PAGEOBJ_IMAGE:
                x0, top, x1, bottom = self.bounds(obj, outer)
                self.image_area += max(0.0, x1 - x0) * max(0.0, bottom - top)
            elif kind == r.FPDF_PAGEOBJ_FORM:
                inner = self.matrix(obj)
                self.read(obj, inner if outer is None else _compose(outer, inner))

    def text(self, obj: Any, outer: tuple[float, ...] | None) -> None:
        key = ctypes.cast(obj, ctypes.c_void_p).value
        text = self.texts.get(key) if self.texts is not None and key is not None else None
        if text is None:  # not in the page's text map: pdfium's own (slower) way, object by object
            text = _text_of(self.raw, obj, self.textpage)
        if not text.strip():
            return
        m = self.matrix(obj)
        if outer is not None:
            m = _compose(outer, m)
        a, b, c, d, e, f = m
        if abs(b) > _MAX_TILT * abs(a) + 1e-6 or abs(c) > _MAX_TILT * abs(d) + 1e-6 or a <= 0 or d <= 0:
            return
        size = ctypes.c_float(0.0)
        self.raw.FPDFTextObj_GetFontSize(obj, ctypes.byref(size))
        bold, italic = self.fonts.style(self.raw.FPDFTextObj_GetFont(obj))
        x0, top, x1, bottom = self.bounds(obj, outer)
        effective = round(size.value * math.hypot(c, d), 2)
        self.out.runs.append(Run(text, x0, x1, top, bottom, self.out.height - f, effective, bold, italic))

    def path(self, obj: Any, outer: tuple[float, ...] | None) -> None:
        """Straight horizontal and vertical segments (lines, and the sides of rectangles)."""
        r = self.raw
        m = self.matrix(obj)
        if outer is not None:
            m = _compose(outer, m)
        x, y = ctypes.c_float(), ctypes.c_float()
        start = prev = None
        h = self.out.height
        for k in range(r.FPDFPath_CountSegments(obj)):
            seg = r.FPDFPath_GetPathSegment(obj, k)
            r.FPDFPathSegment_GetPoint(seg, ctypes.byref(x), ctypes.byref(y))
            px, py = _transform(m, x.value, y.value)
            point = (px, h - py)
            kind = r.FPDFPathSegment_GetType(seg)
            if kind == r.FPDF_SEGMENT_MOVETO:
                start = prev = point
                continue
            if prev is not None and kind == r.FPDF_SEGMENT_LINETO:
                self.segment(prev, point)
            prev = point
            if r.FPDFPathSegment_GetClose(seg) and start is not None:
                self.segment(point, start)
                prev = start
        x0, top, x1, bottom = self.bounds(obj, outer)
        if r.FPDFPath_CountSegments(obj) == 0 or (x1 - x0 < _RULE or bottom - top < _RULE):
            # a filled thin rectangle drawn as one box (a rule set as a filled bar)
            if x1 - x0 >= _RULE and bottom - top < _RULE:
                self.out.edges.append(Edge(x0, (top + bottom) / 2, x1, (top + bottom) / 2))
            elif bottom - top >= _RULE and x1 - x0 < _RULE:
                self.out.edges.append(Edge((x0 + x1) / 2, top, (x0 + x1) / 2, bottom))

    def segment(self, a: tuple[float, float], b: tuple[float, float]) -> None:
        (ax, ay), (bx, by) = a, b
        if abs(ay - by) < 0.5 and abs(ax - bx) >= _RULE:
            y = round((ay + by) / 2, 1)
            self.out.edges.append(Edge(min(ax, bx), y, max(ax, bx), y))
        elif abs(ax - bx) < 0.5 and abs(ay - by) >= _RULE:
            x = round((ax + bx) / 2, 1)
            self.out.edges.append(Edge(x, min(ay, by), x, max(ay, by)))


def _label(raw: Any, document: Any, index: int) -> str | None:
    size = raw.FPDF_GetPageLabel(document, index, None, 0)
    if size <= 2:
        return None
    buffer = (ctypes.c_ushort * (size // 2))()
    raw.FPDF_GetPageLabel(document, index, buffer, size)
    return bytes(buffer)[: size - 2].decode("utf-16-le", errors="replace").strip() or None


def read_pages(document: Any) -> Iterator[RawPage]:
    """Every page of an open `pypdfium2.PdfDocument`, in order, each closed once read."""
    import pypdfium2.raw as raw

    for index in range(len(document)):
        page = document[index]
        textpage = page.get_textpage()
        try:
            # fonts are read per page: pdfium frees a page's font objects with the page
            reader = _PageReader(raw, page.raw, textpage.raw, index + 1, _Fonts(raw))
            reader.read()
            out = reader.out
            area = out.width * out.height
            out.image_share = min(1.0, reader.image_area / area) if area else 0.0
            out.declared_label = _label(raw, document.raw, index)
        finally:
            textpage.close()
            page.close()
        yield out
