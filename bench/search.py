"""Search benchmark: synthetic corpora of 1k, 10k and 100k clauses, embedded default backend.

    python bench/search.py                 # all sizes, one subprocess each (independent peak memory)
    python bench/search.py --sizes 1000    # one size
    python bench/search.py --profile 100000

The floor, measured in the same process: for each question part, bm25s over an index of the
eligible rows only plus numpy over the pre-gathered eligible embeddings (top k of each). The full
request is `clauseguard.search.search` end to end (versions, parts, retrieval, the excluded pass,
reading, the cold re-check of every source against the store) for a two-part question under a
plan-and-date request. Printed: medians and the ratio to the floor (target <= 4x at 10k and 100k),
the index's cold build and warm load (target at 100k: <= 10 s and <= 1 s), and the load average
before and after, since the machine is shared.

Each corpus has many documents (10 clauses per version, 3 versions each) across 4 payers and 12
plans; clause text is drawn from a fixed word list with a fixed seed, so every run indexes the same
corpus. Per size it prints: cold index build (embeddings computed), warm build (embeddings read from
the on-disk cache), query p50/p95 for one question part (`retrieve`, k=3, under a realistic
plan-and-date eligibility mask), p95 with every clause eligible (worst case), p95 of the bounded
`best_ineligible` pass, and the process's peak RSS. Timings are the best of 3 rounds of 300 queries
(the machine may be shared). Target: p95 <= 20 ms per query at 100k clauses.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from clauseguard.corpus.model import Clause, ClauseKind, Code, Corpus, Document, Payer, Plan, Version
from clauseguard.retrieval import build_index, eligible_mask, retrieve, split_question
from clauseguard.retrieval.retrieve import best_ineligible
from clauseguard.versions import eligibility

SEED = 20240315
SIZES = (1_000, 10_000, 100_000)
CLAUSES_PER_VERSION = 10
VERSIONS_PER_DOCUMENT = 3
PAYERS = 4
PLANS_PER_PAYER = 3
QUERIES = 300
ROUNDS = 3  # timing rounds per measure; the best round's figures are kept
TARGET_OVER_FLOOR = 4.0
TARGET_COLD_S = 10.0
TARGET_WARM_S = 1.0

DOMAIN_WORDS = """
implant crown bridge denture filling root canal scaling orthodontic periodontal extraction x-ray
quote invoice receipt prescription referral authorization approval physician specialist dentist
hospital inpatient outpatient admission discharge night stay surgery anaesthesia procedure therapy
session visit evaluation treatment plan progress note record documentation evidence claim benefit
allowance cap limit maximum amount annual lifetime per year month week day waiting period entry
member insured person policy contract schedule rider exclusion excluded covered reimbursed payable
paid tariff percent deductible copayment coinsurance network provider emergency abroad travel
maternity childbirth pregnancy newborn optical glasses lenses hearing aid oxygen pump insulin sensor
glucose diabetes obesity bariatric knee meniscus spine lumbar fusion imaging mri scan screening
mammography genetic testing variant cancer therapy physiotherapy psychotherapy counselling
medication drug biologic infusion injection device equipment wheelchair prosthesis replacement repair
""".split()
ASPECT_PHRASES = (
    "annual cap",
    "waiting period",
    "documents required",
    "coverage",
    "exclusions",
    "limit per year",
)
KINDS: tuple[ClauseKind, ...] = (
    "scope",
    "criteria",
    "exclusion",
    "limit",
    "waiting_period",
    "documents",
    "definition",
    "other",
)


def word_list(rng: random.Random, size: int = 4000) -> list[str]:
    """Domain words plus pronounceable filler words, fixed by the seed."""
    syllables = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"]
    words = list(dict.fromkeys(DOMAIN_WORDS))
    while len(words) < size:
        w = "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))
        if w not in words:
            words.append(w)
    return words


def zipf_weights(n: int) -> list[float]:
    return [1.0 / (i + 1) ** 1.05 for i in range(n)]


def synthetic_corpus(clauses: int, seed: int = SEED) -> Corpus:
    rng = random.Random(seed)  # noqa: S311 - a fixed synthetic corpus, not a secret
    words = word_list(rng)
    weights = zipf_weights(len(words))
    rng.shuffle(words)  # domain words land at random frequencies

    def sentence(lo: int, hi: int) -> str:
        return " ".join(rng.choices(words, weights=weights, k=rng.randint(lo, hi)))

    payers = [Payer(id=f"P{p}", name=f"Payer {p}") for p in range(PAYERS)]
    plans = [
        Plan(id=f"P{p}-PLAN{j}", payer=f"P{p}", name=f"Plan {p}.{j}")
        for p in range(PAYERS)
        for j in range(PLANS_PER_PAYER)
    ]
    n_docs = max(1, clauses // (CLAUSES_PER_VERSION * VERSIONS_PER_DOCUMENT))
    documents = []
    for d in range(n_docs):
        payer = f"P{d % PAYERS}"
        own_plans = () if rng.random() < 0.5 else (f"{payer}-PLAN{rng.randrange(PLANS_PER_PAYER)}",)
        start = date(2021, 1, 1) + timedelta(days=rng.randrange(365))
        versions = []
        for v in range(VERSIONS_PER_DOCUMENT):
            end = start + timedelta(days=rng.randint(300, 700))
            last = v == VERSIONS_PER_DOCUMENT - 1
            doc_clauses = []
            for c in range(CLAUSES_PER_VERSION):
                article = f"{c // 3 + 1}.{c % 3 + 1}"
                doc_clauses.append(
                    Clause(
                        id=f"D{d:05d}.v{v + 1}.C{c + 1}",
                        section=sentence(2, 4).capitalize(),
                        article=f"{article} {sentence(1, 3)}",
                        kind=rng.choice(KINDS),
                        page=rng.randint(1, 90),
                        text=sentence(25, 60).capitalize() + ".",
                    )
                )
            versions.append(
                Version(
                    version=f"v{v + 1}",
                    effective_start=start,
                    effective_end=None if last else end,
                    clauses=tuple(doc_clauses),
                )
            )
            start = end + timedelta(days=1)
        documents.append(
            Document(
                id=f"D{d:05d}",
                payer=payer,
                kind="medical_policy",
                title=sentence(3, 6).title(),
                codes=(f"A{d % 10000:04d}",),
                plans=own_plans,
                versions=tuple(versions),
            )
        )
    codes = sorted({c for d in documents for c in d.codes})
    return Corpus(
        format="clauseguard.corpus/v1", payers=tuple(payers), plans=tuple(plans), documents=tuple(documents),
        codes=tuple(Code(code=c, system="HCPCS", descriptor="synthetic") for c in codes),
    )


def queries(seed: int = SEED) -> list[str]:
    rng = random.Random(seed + 1)  # noqa: S311
    words = list(dict.fromkeys(DOMAIN_WORDS))
    found = []
    for i in range(QUERIES):
        subject = " ".join(rng.sample(words, rng.randint(1, 3)))
        if i % 10 == 0:
            found.append(f"what does {rng.randint(1, 4)}.{rng.randint(1, 3)} say about {subject}")
        elif i % 10 == 1:
            found.append(f"is A{rng.randrange(3000):04d} covered")
        else:
            found.append(f"{subject} {rng.choice(ASPECT_PHRASES)}")
    return found


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def run_size(clauses: int) -> dict[str, float]:
    corpus = synthetic_corpus(clauses)
    fingerprint = corpus.fingerprint()
    with tempfile.TemporaryDirectory() as cache:
        t0 = time.perf_counter()
        index = build_index(corpus, cache_dir=Path(cache), fingerprint=fingerprint)
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        build_index(corpus, cache_dir=Path(cache), fingerprint=fingerprint)
        warm = time.perf_counter() - t0

    rng = random.Random(SEED + 2)  # noqa: S311
    plan_ids = [p.id for p in corpus.plans]
    masks = []
    for _ in range(20):
        day = date(2021, 6, 1) + timedelta(days=rng.randrange(1200))
        masks.append(eligible_mask(index, eligibility(corpus, plan_id=rng.choice(plan_ids), day=day)))
    parts = [split_question(q)[0] for q in queries()]

    for part in parts[:20]:  # warm-up: first calls pay for lazy imports and caches
        retrieve(index, part, masks[0], 3)

    def timed(mask_of: list[np.ndarray], call) -> list[float]:  # type: ignore[no-untyped-def]
        out = []
        for i, part in enumerate(parts):
            mask = mask_of[i % len(mask_of)]
            t = time.perf_counter()
            call(part, mask)
            out.append((time.perf_counter() - t) * 1000)
        return out

    def best_of(rounds: int, mask_of: list[np.ndarray], call) -> list[float]:  # type: ignore[no-untyped-def]
        # The machine is shared: keep the round with the lowest p95 (as timeit keeps its minimum).
        return min((timed(mask_of, call) for _ in range(rounds)), key=lambda t: percentile(t, 95))

    full, floor = request_vs_floor(corpus, index, Path(tempfile.mkdtemp(prefix="cg-bench-")))

    realistic = best_of(ROUNDS, masks, lambda p, m: retrieve(index, p, m, 3))
    everything = best_of(ROUNDS, [np.ones(index.size, dtype=bool)], lambda p, m: retrieve(index, p, m, 3))
    excluded = best_of(ROUNDS, masks, lambda p, m: best_ineligible(index, [p], ~m, 3))
    return {
        "clauses": float(clauses),
        "eligible_share": float(np.mean([m.mean() for m in masks])),
        "build_cold_s": cold,
        "build_warm_s": warm,
        "p50_ms": statistics.median(realistic),
        "p95_ms": percentile(realistic, 95),
        "p95_all_eligible_ms": percentile(everything, 95),
        "p95_excluded_ms": percentile(excluded, 95),
        "request_p50_ms": statistics.median(full),
        "floor_p50_ms": statistics.median(floor),
        "request_over_floor": statistics.median(full) / max(1e-9, statistics.median(floor)),
        "request_p95_ms": percentile(full, 95),
        "floor_p95_ms": percentile(floor, 95),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "embeddings_mb": (index.dense.matrix.nbytes if index.dense is not None else 0) / 2**20,
    }


REQUEST_QUESTIONS = 60
TWO_PART = "{subject}: annual cap, waiting period"


def request_vs_floor(corpus: Corpus, index: Any, home: Path) -> tuple[list[float], list[float]]:
    """Milliseconds per full search request, and per floor (both parts), over the same requests."""
    import bm25s

    from clauseguard.corpus.store import SqliteStore
    from clauseguard.requests import SearchRequest
    from clauseguard.retrieval.tokens import tokens
    from clauseguard.search import search

    store = SqliteStore(home / "bench.sqlite")
    store.add(corpus, source="bench corpus")
    rng = random.Random(SEED + 3)  # noqa: S311
    words = list(dict.fromkeys(DOMAIN_WORDS))
    requests = []
    for _ in range(REQUEST_QUESTIONS):
        plan = rng.choice(corpus.plans)
        day = date(2021, 6, 1) + timedelta(days=rng.randrange(1200))
        subject = " ".join(rng.sample(words, 2))
        requests.append(SearchRequest(question=TWO_PART.format(subject=subject), payer_id=plan.payer,
                                      plan_id=plan.id, effective_date=day))
    # the floor's per-request state, built ahead and not timed: a bm25s index of the eligible rows
    # and the eligible embeddings gathered into one matrix
    prepared = []
    for req in requests:
        assert req.plan_id is not None and req.effective_date is not None
        rows = np.flatnonzero(eligible_mask(index, eligibility(corpus, plan_id=req.plan_id, day=req.effective_date)))
        texts = [tokens(index.clauses.rows[r].text) for r in rows.tolist()]
        vocab = {t: i for i, t in enumerate(sorted({t for doc in texts for t in doc}))}
        bm = bm25s.BM25(method="lucene")
        bm.index(([[vocab[t] for t in doc] for doc in texts], vocab), show_progress=False)
        gathered = np.ascontiguousarray(index.dense.matrix[rows]) if index.dense is not None else None
        prepared.append((req, vocab, bm, gathered))

    def floor_once(req: Any, vocab: dict[str, int], bm: Any, gathered: np.ndarray | None) -> None:
        for part in split_question(req.question):
            ids = [vocab[t] for t in sorted(set(tokens(part.text))) if t in vocab]
            if ids:
                scores = bm.get_scores_from_ids(ids)
                np.argpartition(-scores, min(3, len(scores) - 1))[:3]
            if gathered is not None and index.dense is not None:
                sims = gathered @ index.dense.embed_query(part.text)
                np.argpartition(-sims, min(3, len(sims) - 1))[:3]

    for req, *_ in prepared[:5]:  # warm-up
        search(req, corpus=corpus, store=store, index=index)
    full, floor = [], []
    for _ in range(ROUNDS):
        for req, vocab, bm, gathered in prepared:
            t = time.perf_counter()
            search(req, corpus=corpus, store=store, index=index)
            full.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            floor_once(req, vocab, bm, gathered)
            floor.append((time.perf_counter() - t) * 1000)
    store.close()
    return full, floor


def profile(clauses: int) -> None:
    import cProfile
    import pstats

    corpus = synthetic_corpus(clauses)
    index = build_index(corpus)
    day = date(2023, 1, 1)
    mask = eligible_mask(index, eligibility(corpus, plan_id=corpus.plans[0].id, day=day))
    parts = [split_question(q)[0] for q in queries()]
    retrieve(index, parts[0], mask, 3)
    prof = cProfile.Profile()
    prof.enable()
    request_vs_floor(corpus, index, Path(tempfile.mkdtemp(prefix="cg-bench-")))
    prof.disable()
    pstats.Stats(prof).sort_stats("cumulative").print_stats(25)


def table(rows: list[dict[str, float]]) -> str:
    head = (
        "| clauses | eligible | build cold (s) | load warm (s) | request p50 / p95 (ms) | floor p50 / p95 (ms) | request / floor "
        "| retrieve p50 / p95 (ms) | p95 excluded pass (ms) | peak RSS (MB) |"
    )
    lines = [head, "|" + "---|" * 10]
    for r in rows:
        lines.append(
            f"| {int(r['clauses']):,} | {r['eligible_share']:.1%} | {r['build_cold_s']:.2f} | {r['build_warm_s']:.2f} "
            f"| {r['request_p50_ms']:.2f} / {r['request_p95_ms']:.2f} | {r['floor_p50_ms']:.2f} / {r['floor_p95_ms']:.2f} "
            f"| {r['request_over_floor']:.1f}x "
            f"| {r['p50_ms']:.2f} / {r['p95_ms']:.2f} | {r['p95_excluded_ms']:.2f} | {r['peak_rss_mb']:.0f} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description="retrieval benchmark")
    parser.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    parser.add_argument("--json", action="store_true", help="run in this process and print one JSON row")
    parser.add_argument("--profile", type=int, default=None, help="cProfile the queries at this size")
    args = parser.parse_args()
    if args.profile:
        profile(args.profile)
        return 0
    if args.json:
        print(json.dumps(run_size(args.sizes[0])))
        return 0
    load = os.getloadavg()[0]
    print(f"load average before the run: {load:.2f} on {os.cpu_count()} cores (other work skews timings)\n")
    rows = []
    for size in args.sizes:
        out = subprocess.run(  # noqa: S603 - runs this very file
            [sys.executable, __file__, "--json", "--sizes", str(size)],
            check=False,
            capture_output=True,
            text=True,
        )
        if out.returncode != 0:  # say which size failed and why, and keep the sizes that ran
            print(f"size {size:,} failed (exit {out.returncode}):\n{out.stderr.strip()}\n", file=sys.stderr)
            continue
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(table(rows))
    after = os.getloadavg()[0]
    print(f"\nload average after the run: {after:.2f}")
    for r in rows:
        if r["clauses"] >= 10_000:
            ok = "met" if r["request_over_floor"] <= TARGET_OVER_FLOOR else "MISSED"
            print(f"target request <= {TARGET_OVER_FLOOR:.0f}x the floor at {int(r['clauses']):,}: {ok} "
                  f"({r['request_over_floor']:.1f}x)")
        if r["clauses"] >= 100_000:
            print(f"target cold build <= {TARGET_COLD_S:.0f} s: {'met' if r['build_cold_s'] <= TARGET_COLD_S else 'MISSED'}"
                  f" ({r['build_cold_s']:.1f} s); warm load <= {TARGET_WARM_S:.0f} s: "
                  f"{'met' if r['build_warm_s'] <= TARGET_WARM_S else 'MISSED'} ({r['build_warm_s']:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
