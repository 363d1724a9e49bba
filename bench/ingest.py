"""Ingest benchmark: a generated 160-page policy PDF through extraction, structure and embeddings.

    python bench/ingest.py                # 3 rounds, each stage timed; peak memory from a fresh process
    python bench/ingest.py --rounds 5
    python bench/ingest.py --pages 320    # another size (the targets are stated for 160 pages)

The PDF (fpdf2, fixed seed, core fonts) is a commercial policy: a running header and a "Page N of M"
footer, section and article headings, criteria lists two levels deep with "-AND-" lines, short
paragraphs (about nine clauses a page, as in the policy the issue measured: 1,000 clauses in 108
pages), and a ruled table every few pages that crosses a page break now and then. Stages:
extraction (pdfium runs, tables, running text, lines into blocks), structure (blocks into clauses,
each classified), embeddings (the retrieval index over the ingested clauses: lexical and the
embedded dense backend). It prints per stage the median seconds over the rounds, pages/s and
clauses/s, the whole ingest's rates, the peak RSS of a fresh process doing the whole ingest once,
each against its target, and the machine it ran on (cores, load). Targets: >= 20 pages/s,
>= 500 clauses/s, peak <= 300 MB.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, date, datetime
from pathlib import Path

from fpdf import FPDF

SEED = 20241215
PAGES = 160
TARGET_PAGES_S = 20.0
TARGET_CLAUSES_S = 500.0
TARGET_PEAK_MB = 300.0

WORDS = """
member insured person benefit covered treatment hospital dental implant waiting period claim payment
medically necessary criteria documented practitioner physician specialist prior authorization therapy
session visit evaluation plan progress note record device equipment prescription diagnosis condition
procedure surgery admission discharge outpatient inpatient annual limit maximum amount deductible
""".split()


def _sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    return " ".join(words).capitalize() + "."


class _Policy(FPDF):
    def header(self) -> None:
        self.set_font("helvetica", "", 8)
        self.set_xy(20, 10)
        self.cell(0, 4, "Benchmark Health Plan | Medical Policy MP-9.999")
        self.line(20, 15, self.w - 20, 15)
        self.set_xy(20, 22)

    def footer(self) -> None:
        self.set_font("helvetica", "", 8)
        self.set_xy(20, -14)
        self.cell(0, 4, "Benchmark Health Plan - Proprietary")
        self.set_xy(20, -14)
        self.cell(0, 4, f"Page {self.page_no()} of {{nb}}", align="R")


def make_pdf(path: Path, pages: int = PAGES) -> Path:
    """A policy of `pages` pages, the same bytes for the same size."""
    rng = random.Random(SEED)  # noqa: S311 - a fixed synthetic document, not a secret
    pdf = _Policy(format="letter")
    pdf.set_creation_date(datetime(2024, 1, 1, tzinfo=UTC))
    pdf.set_title("Benchmark Medical Policy")
    pdf.alias_nb_pages("{nb}")
    pdf.set_auto_page_break(True, 22)
    pdf.set_margins(20, 22, 20)
    pdf.add_page()
    section = article = 0
    while pdf.page_no() < pages or pdf.get_y() < 200:
        if pdf.page_no() >= pages and pdf.get_y() > 200:
            break
        if article % 10 == 0:
            section += 1
            pdf.set_font("helvetica", "B", 13)
            pdf.multi_cell(0, 7, f"SECTION {section} - {' '.join(rng.choice(WORDS) for _ in range(3)).upper()}",
                           new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
        article += 1
        pdf.set_font("helvetica", "B", 10.5)
        pdf.multi_cell(0, 6, f"{section}.{article} {' '.join(rng.choice(WORDS) for _ in range(3)).title()}",
                       new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1)
        pdf.set_font("helvetica", "", 10)
        for _ in range(rng.randint(2, 4)):  # standalone paragraphs: a clause each
            pdf.multi_cell(0, 5, " ".join(_sentence(rng, rng.randint(8, 16)) for _ in range(2)), new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
        if article % 3:
            continue
        pdf.multi_cell(0, 5, _sentence(rng, 12)[:-1] + " when all of the following are met:", new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1.5)
        for item in range(1, rng.randint(2, 4) + 1):
            pdf.set_x(20)
            pdf.cell(7, 5, f"{item}.")
            pdf.set_left_margin(27)
            pdf.multi_cell(0, 5, _sentence(rng, rng.randint(6, 14)), new_x="LMARGIN", new_y="NEXT")
            if item == 2:
                for letter in "ab":
                    pdf.set_x(27)
                    pdf.cell(7, 5, f"{letter}.")
                    pdf.set_left_margin(34)
                    pdf.multi_cell(0, 5, _sentence(rng, 10), new_x="LMARGIN", new_y="NEXT")
                    pdf.set_left_margin(27)
            pdf.set_left_margin(20)
            pdf.ln(1)
            pdf.set_font("helvetica", "B", 10)
            pdf.set_x(20)
            pdf.cell(0, 5, rng.choice(("-AND-", "-OR-")), new_x="LMARGIN", new_y="NEXT")
            pdf.set_font("helvetica", "", 10)
            pdf.ln(1)
        pdf.multi_cell(0, 5, _sentence(rng, 14), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)
        if article % 30 == 0:
            pdf.set_font("helvetica", "", 9)
            with pdf.table(col_widths=(1, 3, 1), line_height=4.5, padding=1, repeat_headings=1) as table:
                for r, row in enumerate([("Code", "Description", "Status")] + [
                    (f"{90000 + rng.randint(0, 9999)}", _sentence(rng, 6), rng.choice(("covered", "not covered")))
                    for _ in range(10)
                ]):
                    cells = table.row()
                    for cell in row:
                        cells.cell(cell)
                    del r
            pdf.ln(3)
    pdf.output(str(path))
    return path


def _stages(path: Path) -> dict[str, float]:
    """One ingest, stage by stage: wall and CPU seconds per stage, pages and clauses."""
    from clauseguard.corpus.classify import classify
    from clauseguard.corpus.model import FORMAT_V1, Clause, Corpus, Document, Payer, Version
    from clauseguard.corpus.readers import pdf, structure
    from clauseguard.retrieval import build_index

    marks = [(time.perf_counter(), time.process_time())]
    read = pdf.read(path)
    marks.append((time.perf_counter(), time.process_time()))
    drafted = structure(read.blocks, guess_title=False)
    clauses = []
    for d in drafted.clauses:  # what `read_version` does with each draft
        meta = classify(d.text, d.headings, title=drafted.title or "", chunk=d.chunk)
        clauses.append(Clause(id=f"MP.v1.{d.key}", section=d.section, text=d.text, kind=meta.kind, article=d.article,
                              page=d.page, page_label=d.page_label, page_end=d.page_end,
                              page_end_label=d.page_end_label if d.page_end else None, benefit=meta.benefit,
                              coverage_type=meta.coverage_type))
    marks.append((time.perf_counter(), time.process_time()))
    corpus = Corpus(format=FORMAT_V1, payers=(Payer(id="BHP", name="Benchmark Health Plan"),), documents=(
        Document(id="MP", payer="BHP", kind="medical_policy", title="Benchmark", versions=(
            Version(version="v1", effective_start=date(2024, 1, 1), clauses=tuple(clauses)),)),))
    build_index(corpus)
    marks.append((time.perf_counter(), time.process_time()))
    out = {"pages": float(read.pages), "clauses": float(len(clauses))}
    for n, stage in enumerate(("extraction", "structure", "embeddings")):
        out[stage] = marks[n + 1][0] - marks[n][0]
        out[stage + "_cpu"] = marks[n + 1][1] - marks[n][1]
    out["ingest"] = marks[-1][0] - marks[0][0]
    out["ingest_cpu"] = marks[-1][1] - marks[0][1]
    return out


def _peak(path: Path) -> float:
    """Peak RSS (MB) of a fresh process that ingests the PDF once and builds its index."""
    here, target = str(Path(__file__).parent), str(path)
    code = (
        f"import resource, sys; sys.path.insert(0, {here!r}); import ingest as b; from pathlib import Path; "
        f"b._stages(Path({target!r})); print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)  # noqa: S603
    return int(out.stdout.strip().splitlines()[-1]) / 1024


def _machine() -> str:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}, load average {load}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pages", type=int, default=PAGES)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("CLAUSEGUARD_HOME", tmp)
        path = make_pdf(Path(tmp) / "policy.pdf", args.pages)
        _stages(path)  # warm: imports, the embedder's weights, the lexicon
        runs = [_stages(path) for _ in range(args.rounds)]
        peak = _peak(path)
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    pages, clauses = med["pages"], med["clauses"]
    print(f"machine: {_machine()}")
    print(f"document: {int(pages)} pages, {int(clauses)} clauses; medians of {args.rounds} rounds ({date.today().isoformat()})")
    print("  (wall seconds, and CPU seconds of this process: on a shared machine the CPU figure is the steadier one)")
    for stage, unit, amount in (("extraction", "pages", pages), ("structure", "clauses", clauses),
                                ("embeddings", "clauses", clauses)):
        print(f"  {stage:12} {med[stage]:7.3f} s wall {amount / med[stage]:8.0f} {unit}/s | "
              f"{med[stage + '_cpu']:7.3f} s CPU {amount / med[stage + '_cpu']:8.0f} {unit}/s")
    for label, key in (("wall", "ingest"), ("CPU", "ingest_cpu")):
        pages_s, clauses_s = pages / med[key], clauses / med[key]
        print(f"  whole ingest ({label}) {med[key]:.3f} s: {pages_s:.1f} pages/s ({pages_s / TARGET_PAGES_S:.1f}x the "
              f"target {TARGET_PAGES_S:.0f}) {'ok' if pages_s >= TARGET_PAGES_S else 'MISSED'}, {clauses_s:.0f} clauses/s "
              f"({clauses_s / TARGET_CLAUSES_S:.1f}x the target {TARGET_CLAUSES_S:.0f}) "
              f"{'ok' if clauses_s >= TARGET_CLAUSES_S else 'MISSED'}")
    print(f"  peak RSS (fresh process, whole ingest and index) {peak:.0f} MB, target <= {TARGET_PEAK_MB:.0f} MB "
          f"({peak / TARGET_PEAK_MB:.2f}x) {'ok' if peak <= TARGET_PEAK_MB else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
