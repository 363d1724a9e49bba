"""Comparing an ingest of the L33822 PDFs (tests/fixtures/pdfs/cms_l33822.py) with the clauses of
../shared/real/cms-l33822/corpus.yaml.

The corpus splits each article into criterion blocks by hand, by meaning ("the supply allowance"
starts a block, "If any of coverage criteria (1-6) are not met" closes the one above); the reader
splits by layout. So the comparison is: the same paragraphs, verbatim and in order, nothing added
(no title, header, footer or table text) and nothing lost; each under the same section and article;
and clause boundaries as precision / recall against the corpus's, plus the clauses whose text is
exactly a corpus clause's. `python -m tests.corpus.readers.l33822` prints the figures.
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from clauseguard.corpus.readers import pdf, structure
from tests.fixtures.pdfs import cms_l33822

VERSIONS = {"v2020": "2020-01", "v2021": "2021-07", "v2024a": "2024-04", "v2024b": "2024-10"}


def _line(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Comparison:
    version: str
    corpus_clauses: int = 0
    ingested_clauses: int = 0
    same_paragraphs: bool = False
    paragraph_differences: list[str] = field(default_factory=list)
    article_agreement: float = 0.0
    precision: float = 0.0
    recall: float = 0.0
    exact_clauses: int = 0


def corpus_versions() -> dict[str, Any]:
    data = yaml.safe_load((cms_l33822.SOURCE / "corpus.yaml").read_text(encoding="utf-8"))
    doc = next(d for d in data["documents"] if d["id"] == "L33822")
    return {v["version"]: v for v in doc["versions"]}


def compare(pdf_path: Path, version: dict[str, Any]) -> Comparison:
    read = pdf.read(pdf_path)
    drafted = structure(read.blocks, guess_title=False)
    clauses = [c for c in drafted.clauses if not c.table]
    result = Comparison(version["version"], len(version["clauses"]), len(clauses))
    want = [(i, _line(p), c.get("article") or c["section"], c["section"])
            for i, c in enumerate(version["clauses"]) for p in c["text"].split("\n")]
    got = [(i, _line(p), c.article or c.section, c.section) for i, c in enumerate(clauses) for p in c.text.split("\n")]
    result.same_paragraphs = [w[1] for w in want] == [g[1] for g in got]
    if not result.same_paragraphs:
        for k, (w, g) in enumerate(zip(want, got, strict=False)):
            if w[1] != g[1]:
                result.paragraph_differences.append(f"paragraph {k + 1}: corpus {w[1][:70]!r} / ingest {g[1][:70]!r}")
                break
        if len(want) != len(got):
            result.paragraph_differences.append(f"{len(want)} corpus paragraphs, {len(got)} ingested")
        return result
    same = sum(1 for w, g in zip(want, got, strict=True) if w[2].casefold() == g[2].casefold() and w[3].casefold() == g[3].casefold())
    result.article_agreement = same / len(want)
    starts_want = {k for k in range(len(want)) if k == 0 or want[k][0] != want[k - 1][0]}
    starts_got = {k for k in range(len(got)) if k == 0 or got[k][0] != got[k - 1][0]}
    hit = len(starts_want & starts_got)
    result.precision, result.recall = hit / len(starts_got), hit / len(starts_want)
    corpus_texts = {"\n".join(_line(p) for p in c["text"].split("\n")) for c in version["clauses"]}
    result.exact_clauses = sum(1 for c in clauses if "\n".join(_line(p) for p in c.text.split("\n")) in corpus_texts)
    return result


def compare_all(out: Path) -> list[Comparison]:
    versions = corpus_versions()
    results = []
    for path in cms_l33822.build(out):
        stem = path.stem.removeprefix("cms-l33822-")
        results.append(compare(path, versions[VERSIONS[stem]]))
    return results


def main() -> int:
    if not cms_l33822.available():
        print(cms_l33822.SKIP_REASON)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        for r in compare_all(Path(tmp)):
            print(
                f"L33822 {r.version}: paragraphs {'identical' if r.same_paragraphs else 'DIFFER'}; "
                f"section and article agree on {r.article_agreement:.0%} of paragraphs; clause boundaries "
                f"precision {r.precision:.2f} recall {r.recall:.2f}; {r.exact_clauses} of {r.ingested_clauses} ingested "
                f"clauses are exactly a corpus clause ({r.corpus_clauses} in the corpus)"
            )
            for d in r.paragraph_differences:
                print("    " + d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
