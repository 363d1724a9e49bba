"""Scoring an ingest of the blind test PDFs against their expected structure (tests/fixtures/pdfs).

`score(expected, read, drafted)` compares as the fixtures' README says: headings case-insensitively
after collapsing whitespace, one clause per expected clause found by its first and last words,
clause-boundary precision and recall over the text clauses (tables are scored apart, as tables),
pages, labels, list markers (bullets compared as the reader normalises them) and depths, joiners,
and the running text that must not be in any clause. `python -m tests.corpus.readers.expected_pdfs`
prints the scores of all eight PDFs.
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from clauseguard.corpus.readers import ReadDocument, Structure, pdf, structure
from clauseguard.corpus.readers.markers import normal_marker

EXPECTED = Path(__file__).resolve().parents[2] / "fixtures" / "pdfs" / "expected"


def norm(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Score:
    pdf: str
    precision: float = 0.0
    recall: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def exact(self) -> bool:
        return not self.problems


def expected_files() -> list[Path]:
    return sorted(EXPECTED.glob("*.yaml"))


def load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _clause_problems(n: int, want: dict[str, Any], got: Any) -> list[str]:
    out = []
    where = f"clause {n + 1} ({want['starts'][:30]!r})"
    if norm(got.section).casefold() != norm(want["heading"]).casefold():
        out.append(f"{where}: section {got.section!r}, expected {want['heading']!r}")
    article = want.get("article")
    if article is not None and norm(got.article or "").casefold() != norm(article).casefold():
        out.append(f"{where}: article {got.article!r}, expected {article!r}")
    if article is None and got.article not in (None, got.section):
        out.append(f"{where}: article {got.article!r}, expected none")
    for key in ("page", "page_label", "page_end", "page_end_label"):
        if getattr(got, key) != want.get(key):
            out.append(f"{where}: {key} {getattr(got, key)!r}, expected {want.get(key)!r}")
    lists = [(normal_marker(item["marker"]), item["depth"]) for item in want.get("lists", [])]
    if list(got.lists) != lists:
        out.append(f"{where}: lists {list(got.lists)}, expected {lists}")
    if list(got.joiners) != want.get("joiners", []):
        out.append(f"{where}: joiners {list(got.joiners)}, expected {want.get('joiners', [])}")
    return out


def score(expected: dict[str, Any], read: ReadDocument, drafted: Structure) -> Score:
    result = Score(expected["pdf"])
    problems = result.problems
    if read.pages != expected["pages"]:
        problems.append(f"pages {read.pages}, expected {expected['pages']}")
    if list(read.report.page_labels) != expected["page_labels"]:
        problems.append(f"page labels {list(read.report.page_labels)}, expected {expected['page_labels']}")
    dropped = {what for what, _, _ in read.report.dropped}
    for what in ("cover page", "contents page"):
        if any(what in d for d in expected["dropped"]) != (what in dropped):
            problems.append(f"{what} dropped: {what in dropped}, expected {what not in dropped}")
    want_headings = [(norm(h["text"]).casefold(), h["level"], h["page"]) for h in expected["headings"]]
    got_headings = [(norm(h.text).casefold(), h.level, h.page) for h in drafted.headings]
    if got_headings != want_headings:
        missing = [h for h in want_headings if h not in got_headings]
        extra = [h for h in got_headings if h not in want_headings]
        problems.append(f"headings differ: missing {missing}, unexpected {extra}")
    texts = [c for c in drafted.clauses if not c.table]
    matched_got: set[int] = set()
    found = 0
    for n, want in enumerate(expected["clauses"]):
        hits = [
            i for i, c in enumerate(texts)
            if norm(c.text).startswith(norm(want["starts"])) and norm(c.text).endswith(norm(want["ends"]))
        ]
        if len(hits) != 1:
            problems.append(f"clause {n + 1} ({want['starts'][:30]!r} .. {want['ends'][-25:]!r}): {len(hits)} ingested clauses match")
            continue
        found += 1
        matched_got.add(hits[0])
        problems.extend(_clause_problems(n, want, texts[hits[0]]))
    result.recall = found / len(expected["clauses"]) if expected["clauses"] else 1.0
    result.precision = len(matched_got) / len(texts) if texts else 0.0
    for c in texts:  # tables are not clause text (the fixtures' convention); they hold payer names as values
        for text in {t for want in expected["clauses"] for t in want.get("must_not_contain", [])}:
            if text.casefold() in c.text.casefold():
                problems.append(f"clause {c.key} holds running text {text!r}")
    tables = [
        (t.page, t.page_end, list(t.header), t.rows, list(t.keys)) for t in read.report.tables
    ]
    want_tables = [
        (t["page"], t.get("page_end"), t["header"], t["rows"], t.get("keys", [])) for t in expected.get("tables", [])
    ]
    if tables != want_tables:
        problems.append(f"tables {tables}, expected {want_tables}")
    return result


def score_pdf(path: Path, expected: dict[str, Any]) -> Score:
    read = pdf.read(path)
    return score(expected, read, structure(read.blocks, guess_title=False))


def build_all(out: Path) -> dict[str, Path]:
    from tests.fixtures.pdfs import make_fpdf, make_reportlab

    return {p.name: p for p in [*make_fpdf.build(out), *make_reportlab.build(out)]}


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        built = build_all(Path(argv[0]) if argv else Path(tmp))
        for path in expected_files():
            expected = load(path)
            s = score_pdf(built[expected["pdf"]], expected)
            print(f"{s.pdf:48} precision {s.precision:.2f} recall {s.recall:.2f} {'exact' if s.exact else 'DIFFERS'}")
            for problem in s.problems:
                print(f"    {problem}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
