"""The catalog of a served corpus: payers, plans, riders, contracts, documents and codes, as a handler
or an agent picks from them. It describes where the corpus comes from without file paths (it is shown
to remote callers) and never reads clause text.
"""

from __future__ import annotations

from typing import Any

from clauseguard.corpus.sources import Opened
from clauseguard.responses import (
    Catalog,
    CatalogCode,
    CatalogContract,
    CatalogDocument,
    CatalogPayer,
    CatalogPlan,
    CatalogRider,
)


def describe(opened: Opened, fingerprint: str) -> str:
    """Where the corpus comes from, in words and without file paths."""
    short = fingerprint.removeprefix("sha256:")[:12]
    where = {"demo": "the bundled demo corpus", "demo-while-empty": "the bundled demo corpus (the store is empty)",
             "path": "a corpus given with --corpus", "home": "the persistent store"}[opened.origin]
    count = len(opened.corpus.documents)
    return f"{where}: {count} document{'s' if count != 1 else ''}, fingerprint {short}"


def catalog(opened: Opened, fingerprint: str) -> dict[str, Any]:
    """The catalog of `opened`, stamped with the fingerprint its answers carry."""
    corpus = opened.corpus
    attached: dict[str, list[str]] = {}
    for plan in corpus.plans:
        for rider in plan.riders:
            attached.setdefault(rider, []).append(plan.id)
    return Catalog(
        description=describe(opened, fingerprint), fingerprint=fingerprint,
        payers=[CatalogPayer(id=p.id, name=p.name) for p in corpus.payers],
        plans=[CatalogPlan(id=p.id, payer=p.payer, name=p.name, riders=list(p.riders)) for p in corpus.plans],
        riders=[
            CatalogRider(rider_id=d.id, payer=d.payer, title=d.title, attached_to=sorted(attached.get(d.id, [])),
                         overrides=list(d.overrides), versions=[v.version for v in d.versions])
            for d in corpus.documents if d.kind == "rider"
        ],
        contracts=[
            CatalogContract(id=c.id, plan=c.plan, holder=c.holder, effective_date=c.effective_date.isoformat(),
                            end_date=c.end_date.isoformat() if c.end_date else None, terms_anchor=c.terms_anchor)
            for c in corpus.contracts
        ],
        documents=[
            CatalogDocument(id=d.id, payer=d.payer, kind=d.kind, title=d.title, codes=list(d.codes),
                            plans=list(d.plans), overrides=list(d.overrides), versions=[v.version for v in d.versions])
            for d in corpus.documents
        ],
        codes=[CatalogCode(code=c.code, system=c.system, descriptor=c.descriptor) for c in corpus.codes],
    ).as_json()
