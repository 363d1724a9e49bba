"""Compare: both sides answered, clauses aligned, and a mutation test — change N values in a copy
of a document and require exactly those N differences."""

from __future__ import annotations

import random
import re

import pytest

from clauseguard.compare import align, differences, values_of
from clauseguard.corpus.loader import load_demo
from clauseguard.corpus.model import Clause
from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine


def test_values_are_read_as_values() -> None:
    values = values_of("Pays GBP 1,500 at 70% after a waiting period of six (6) months, up to thirty (30) nights.")
    assert values == {
        "amount": ("GBP 1500",), "count": ("30 night",), "duration": ("6 month(s) (~183 days)",), "rate": ("70%",),
    }
    words_and_digits, digits = values_of("twelve (12) months"), values_of("12 months")
    assert words_and_digits == digits


def test_rider_wordings_compared(tmp_path: object) -> None:
    engine = Engine(open_corpus("demo", None))
    r = engine.compare({"question": "hospital cash: waiting period, nightly amount, exclusions",
                        "a": "rider:GRP-RID-HOSPCASH", "b": "rider:IND-RID-HOSPCASH"}).as_json()
    aspects = {d["aspect"] for d in r["differences"]}
    assert {"waiting_period", "limit", "exclusion"} <= aspects
    assert r["a"]["status"] == "answered" and r["b"]["status"] == "answered"
    assert all(s["clause_id"].startswith("GRP-RID-HOSPCASH") for s in r["a"]["sources"])
    assert all(s["clause_id"].startswith("IND-RID-HOSPCASH") for s in r["b"]["sources"])


def test_versions_of_one_document_compared() -> None:
    engine = Engine(open_corpus("demo", None))
    r = engine.compare({"question": "implant cover", "a": "document:GRP-TERMS@CG-2021-09",
                        "b": "document:GRP-TERMS@CG-2024-01"}).as_json()
    summaries = " ".join(d["summary"] for d in r["differences"])
    assert "50% in GRP-TERMS.CG-2021-09.A7.3 vs 70% in GRP-TERMS.CG-2024-01.A9.1" in summaries


_MUTABLE = re.compile(r"GBP (?P<amount>\d[\d,]*)|\b(?P<rate>\d+)%|\(\d+\) (?P<unit>months|days)")


def _mutate(clause: Clause, rng: random.Random) -> Clause:
    """Change one stated value: an amount or a rate goes up, a duration's unit becomes weeks (the
    words and the digits of "twelve (12) months" must keep agreeing)."""
    m = rng.choice(list(_MUTABLE.finditer(clause.text)))
    if m.group("amount"):
        new = f"GBP {int(m.group('amount').replace(',', '')) + rng.randint(1, 9) * 50:,}"
    elif m.group("rate"):
        new = f"{int(m.group('rate')) + rng.randint(1, 9)}%"
    else:
        new = m.group().replace(m.group("unit"), "weeks")
    return clause.model_copy(update={"text": clause.text[: m.start()] + new + clause.text[m.end():]})


@pytest.mark.parametrize("seed", range(6))
def test_mutations_give_exactly_those_differences(seed: int) -> None:
    rng = random.Random(seed)  # noqa: S311 - a seeded test generator, not a secret
    doc = next(d for d in load_demo().documents if d.id == "GRP-TERMS")
    original = list(doc.versions[0].clauses)
    mutated = list(original)
    candidates = [i for i, c in enumerate(original) if _MUTABLE.search(c.text) and c.kind != "exclusion"]
    n = rng.randint(1, min(4, len(candidates)))
    changed = rng.sample(candidates, n)
    for i in changed:
        mutated[i] = _mutate(original[i], rng)
    exclusions = [i for i, c in enumerate(original) if c.kind == "exclusion"]
    removed = rng.random() < 0.5 and exclusions
    if removed:
        mutated.pop(exclusions[0])
    pairs, only_a, only_b = align(original, mutated)
    found, _ = differences(pairs, only_a, only_b)
    expected = n + (1 if removed else 0)
    assert len(found) == expected, [d.summary for d in found]
    changed_ids = {original[i].id for i in changed}
    assert {d.a.clause_id for d in found if d.a} >= changed_ids
