"""A search naming an unknown payer blames payer_id, not the plan."""

from __future__ import annotations

import pytest

from clauseguard.corpus.sources import open_corpus
from clauseguard.engine import Engine
from clauseguard.errors import ClauseguardError


def test_unknown_payer_is_blamed_on_the_payer() -> None:
    engine = Engine(open_corpus("demo", None), log=False)
    with pytest.raises(ClauseguardError) as caught:
        engine.search({"payer_id": "ZZZ", "plan_id": "KHP-PPO-PLUS", "effective_date": "2024-09-01",
                       "question": "physical therapy visits"})
    assert "payer" in str(caught.value) and "ZZZ" in str(caught.value)
    assert "plan_id" not in str(caught.value)
