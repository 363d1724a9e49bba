"""The blind test PDFs (two generators, four house styles) read against their expected structure,
and the real L33822 text rendered as CMS PDFs read back to the corpus's paragraphs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.corpus.readers import expected_pdfs, l33822
from tests.fixtures.pdfs import cms_l33822


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return expected_pdfs.build_all(tmp_path_factory.mktemp("pdfs"))


@pytest.mark.parametrize("expected_file", expected_pdfs.expected_files(), ids=lambda p: p.stem)
def test_pdf_reads_as_its_expected_structure(built: dict[str, Path], expected_file: Path) -> None:
    expected = expected_pdfs.load(expected_file)
    score = expected_pdfs.score_pdf(built[expected["pdf"]], expected)
    assert score.precision >= 0.95 and score.recall >= 0.95, score.problems
    # headings, pages, labels, list markers and depths, joiners, tables and running text: exact
    assert score.problems == []


def test_every_expected_pdf_is_built(built: dict[str, Path]) -> None:
    assert sorted(expected_pdfs.load(p)["pdf"] for p in expected_pdfs.expected_files()) == sorted(built)


@pytest.mark.skipif(not cms_l33822.available(), reason=cms_l33822.SKIP_REASON)
def test_l33822_pdfs_read_back_to_the_corpus_paragraphs(tmp_path: Path) -> None:
    results = l33822.compare_all(tmp_path)
    assert len(results) == 4
    for r in results:
        # every paragraph of the corpus, verbatim and in order, and nothing else (title, header,
        # footer and the title block's table are not clause text)
        assert r.same_paragraphs, r.paragraph_differences
        # every corpus clause boundary is one of ours: no ingested clause straddles two corpus clauses
        assert r.recall == 1.0
        # the corpus splits some articles by meaning; the reader by layout, a little finer
        assert r.precision >= 0.75 and r.exact_clauses >= 0.6 * r.ingested_clauses
        # 2024: text after "CGM Continued Coverage" goes back to the parent article in the corpus,
        # which no heading in the document says
        assert r.article_agreement >= 0.85
