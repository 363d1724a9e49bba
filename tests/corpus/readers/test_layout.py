"""The PDF reader's typographic rules one at a time, on runs and lines made by hand: small capitals,
letter spacing, joiner lines, bullets, contents entries, table headers and continuations, dates."""

from __future__ import annotations

from datetime import date

import pytest

from clauseguard.corpus.readers.blocks import Block
from clauseguard.corpus.readers.frontmatter import contents_entry, is_contents, is_cover
from clauseguard.corpus.readers.layout import make_line, page_lines
from clauseguard.corpus.readers.markers import clean_glyphs, joiner_line, normal_marker, text_marker
from clauseguard.corpus.readers.pdf_page import Run
from clauseguard.corpus.readers.revisions import parse_date, revision_dates
from clauseguard.corpus.readers.running import find_running
from clauseguard.corpus.readers.structure import structure
from clauseguard.corpus.readers.tables import Cell, Table, join_continued, settle_header


def run(text: str, x0: float, size: float = 10.0, baseline: float = 100.0, bold: bool = False, width: float | None = None) -> Run:
    w = width if width is not None else 0.5 * size * len(text)
    return Run(text, x0, x0 + w, baseline - 0.75 * size, baseline + 0.25 * size, baseline, size, bold, False)


def test_small_capitals_are_one_word_in_mixed_case() -> None:
    # "COVERAGE RATIONALE" set as C + OVERAGE (76 %) + " R" + ATIONALE (76 %), glyphs touching
    runs = [run("C", 60, 13, bold=True, width=9), run("OVERAGE ", 69.5, 9.9, bold=True, width=48),
            run(" R", 118, 13, bold=True, width=12), run("ATIONALE", 130.5, 9.9, bold=True, width=50)]
    line = make_line(runs)
    assert line.text == "Coverage Rationale" and line.small_caps and line.size == 13 and line.bold


def test_capitals_at_one_size_stay_capitals() -> None:
    line = make_line([run("HIV AND AIDS", 60)])
    assert line.text == "HIV AND AIDS" and not line.small_caps


def test_letter_spaced_capitals_are_tracked() -> None:
    assert make_line([run("POLICY SUMMARY", 60, 11, bold=True, width=132)]).tracked
    assert not make_line([run("POLICY SUMMARY", 60, 11, bold=True, width=97)]).tracked


def test_a_marker_set_as_its_own_run_hangs_the_text() -> None:
    line = make_line([run("a. ", 85, width=7), run("Body mass index of 40 or greater", 105.6)])
    assert (line.marker, line.body, line.text_x0) == ("a.", "Body mass index of 40 or greater", 105.6)


def test_two_columns_read_left_then_right() -> None:
    runs = []
    for k in range(8):
        runs.append(run(f"left column line {k} of justified text here", 57, baseline=100 + 13 * k, width=229))
        runs.append(run(f"right column line {k} of the other text", 308, baseline=100 + 13 * k, width=229))
    read = page_lines(runs, 595.0, 1)
    assert read.gutter is not None and 286 < read.gutter < 308
    assert [line.text.split()[0] for line in read.lines] == ["left"] * 8 + ["right"] * 8


@pytest.mark.parametrize(("text", "joiner"), [("-AND-", "-AND-"), ("- OR -", "- OR -"), ("AND", "AND"), ("(or)", "(or)"),
                                              ("and", None), ("Andrew", None), ("-AND- the member", None)])
def test_joiner_lines(text: str, joiner: str | None) -> None:
    assert joiner_line(text) == joiner


def test_bullets_and_private_use_glyphs() -> None:
    assert (normal_marker("\uf0b7"), normal_marker("o"), normal_marker("1.")) == ("\u2022", "\u25e6", "1.")
    assert clean_glyphs("\uf0b7 Vagus nerve\ue123 therapy") == ("\u2022 Vagus nerve therapy", 1)
    assert text_marker("(ii) taking part in a fight") == "(ii)" and text_marker("2024 was a year") is None


def test_a_footer_in_the_margin_is_taken_out_and_gives_the_label() -> None:
    pages = []
    for n in (1, 2, 3):
        lines = [make_line([run("Body text that differs on every page number " + "x" * n, 60, baseline=100 + 14 * k)], n)
                 for k in range(5)]
        lines.append(make_line([run(f"Northvale Health Plan  Page {n} of 3", 60, 8, baseline=770)], n))
        pages.append((n, 792.0, lines))
    found = find_running(pages)
    assert all(found.removed[n] == {5} for n in (1, 2, 3))
    assert found.labels == {1: "1", 2: "2", 3: "3"}
    assert [(what, pages_) for what, _, pages_ in found.dropped] == [("footer", (1, 2, 3))]


def test_body_text_in_the_margin_is_not_running_text() -> None:
    # a page that holds only a heading and one line, on every page: close together, not set off
    pages = [(n, 842.0, [make_line([run(f"Article {n} Scope", 31, 11, baseline=40)], n),
                         make_line([run("This article describes the cover.", 31, baseline=55)], n)]) for n in (1, 2)]
    assert find_running(pages).removed == {}


def test_contents_lines_and_cover_pages() -> None:
    assert contents_entry("ARTICLE 1 - DEFINITIONS ........................ 1") == "ARTICLE 1 - DEFINITIONS"
    assert contents_entry("A. Atopic Dermatitis . . . . . . . . . ii") == "A. Atopic Dermatitis"
    assert contents_entry("The member pays 1") is None
    entries = [make_line([run(f"{k}. Chapter {k} .......... {k + 2}", 60, baseline=100 + 20 * k)]) for k in range(5)]
    assert is_contents([make_line([run("Contents", 60, 14, baseline=80)]), *entries])
    title = [make_line([run(t, 306 - 5 * len(t) / 2, baseline=200 + 30 * k)]) for k, t in enumerate(("PINECREST", "Policy"))]
    assert is_cover(title, 612, contents_next=False)
    assert not is_cover([make_line([run("x" * 100, 60)])], 612, contents_next=False)


def _table(rows: list[list[tuple[str, bool]]], page: int = 1, columns: tuple[float, ...] = (60, 200, 550)) -> Table:
    return Table(page, 60, 100, 550, 300, columns, [[Cell(t, b) for t, b in row] for row in rows], page_end=page)


def test_a_bold_first_column_is_a_key_value_table_without_header() -> None:
    t = _table([[("Policy Number", True), ("MP-2.114", False)], [("Effective Date", True), ("03/01/2024", False)]])
    settle_header(t)
    assert t.key_value and t.header == () and t.body[0] == ["Policy Number", "MP-2.114"]


def test_a_bold_first_row_over_regular_rows_is_the_header() -> None:
    t = _table([[("Date", True), ("Change", True)], [("03/01/2024", False), ("New policy.", False)]])
    settle_header(t)
    assert t.header == ("Date", "Change") and not t.key_value


def test_a_table_continued_drops_its_repeated_header_and_rejoins_a_cut_row() -> None:
    first = _table([[("Date", True), ("Change", True)], [("01/01/2024", False), ("Revised the", False)]])
    more = _table([[("Date", True), ("Change", True)], [("", False), ("criteria.", False)],
                   [("07/01/2023", False), ("Clarified.", False)]], page=2)
    assert join_continued(first, more)
    settle_header(first)
    assert (first.page, first.page_end, first.repeated_headers) == (1, 2, 1)
    assert first.body == [["01/01/2024", "Revised the criteria."], ["07/01/2023", "Clarified."]]
    assert not join_continued(first, _table([[("a", False), ("b", False), ("c", False)]], page=3,
                                            columns=(60, 100, 200, 550)))


@pytest.mark.parametrize(("text", "day"), [("01/15/2024", date(2024, 1, 15)), ("2024-03-01", date(2024, 3, 1)),
                                           ("May 1, 2024", date(2024, 5, 1)), ("1 May 2024", date(2024, 5, 1)),
                                           ("25/12/2023", date(2023, 12, 25)), ("R9", None)])
def test_dates_in_revision_tables(text: str, day: date | None) -> None:
    assert parse_date(text) == day


def test_a_revision_history_offers_its_dates_newest_first() -> None:
    rows = [["07/01/2023", "Clarified."], ["01/01/2024", "Revised."]]
    assert revision_dates(["Date", "Summary of Changes"], rows) == [date(2024, 1, 1), date(2023, 7, 1)]
    assert revision_dates(["Code", "Description"], [["43644", "Gastric bypass"]]) is None
    assert revision_dates(["Date", "Description"], rows, heading="REVISION HISTORY") is not None


def test_joiners_and_nested_items_stay_in_one_clause_with_their_depths() -> None:
    blocks = [
        Block("heading", "Coverage Rationale", 1, "1", level=1),
        Block("heading", "Adults", 1, "1", level=2),
        Block("paragraph", "Covered when all of the following are met:", 1, "1"),
        Block("list_item", "1. One of the following:", 1, "1", depth=1, marker="1."),
        Block("list_item", "a. BMI of 40 or greater", 1, "1", depth=2, marker="a."),
        Block("joiner", "-OR-", 1, "1", depth=2),
        Block("list_item", "b. BMI of 35 with a comorbidity", 1, "1", depth=2, marker="b."),
        Block("joiner", "-AND-", 2, "2", depth=1),
        Block("list_item", "2. A supervised program", 2, "2", depth=1, marker="2."),
        Block("paragraph", "If the criteria are not met, it is denied.", 2, "2"),  # closes the list: same block
        Block("paragraph", "Next criteria block starts here.", 2, "2"),
    ]
    drafted = structure(blocks, guess_title=False)  # as the PDF reader's blocks are structured
    assert drafted.title is None and [h.text for h in drafted.headings] == ["Coverage Rationale", "Adults"]
    first, second = drafted.clauses
    assert first.text.splitlines() == [
        "Covered when all of the following are met:", "1. One of the following:", "  a. BMI of 40 or greater",
        "  -OR-", "  b. BMI of 35 with a comorbidity", "-AND-", "2. A supervised program",
        "If the criteria are not met, it is denied.",
    ]
    assert first.lists == (("1.", 1), ("a.", 2), ("b.", 2), ("2.", 1)) and first.joiners == ("-OR-", "-AND-")
    assert (first.page, first.page_end, first.page_end_label) == (1, 2, "2")
    assert second.text == "Next criteria block starts here." and second.key == "C1p2"


def test_a_running_head_that_changes_with_the_section_is_running_text() -> None:
    pages = []
    for n in range(1, 7):
        section = ("Coverage Rationale", "Applicable Codes", "Revision History")[(n - 1) // 2]
        lines = [make_line([run(section, 60, 8, baseline=40)], n)]
        lines += [make_line([run(f"Body line {k} on page {n} says something new", 60, baseline=100 + 14 * k)], n)
                  for k in range(4)]
        pages.append((n, 792.0, lines))
    found = find_running(pages)
    assert all(found.removed[n] == {0} for n in range(1, 7))
    assert [text for _, text, _ in found.dropped] == ["Applicable Codes", "Coverage Rationale", "Revision History"]
