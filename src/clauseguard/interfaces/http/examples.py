"""Example requests of every endpoint, on the bundled demo corpus (`clauseguard --corpus demo serve`).

They are published in the OpenAPI document and a test sends each one and checks the answer against
the documented response schema, so an example that stops working fails the build.
"""

from __future__ import annotations

from typing import Any, Final

DENTAL: Final = "dental implant: coverage, annual cap, waiting period"

SEARCH: Final[dict[str, dict[str, Any]]] = {
    "contract": {"summary": "A group contract's terms (the broker's call shape)",
                 "value": {"contract_id": "CT-48213", "effective_date": "2022-06-01", "question": DENTAL,
                           "threshold": 0.62, "k": 3}},
    "plan": {"summary": "A payer's plan on a date",
             "value": {"payer_id": "KHP", "plan_id": "KHP-PPO-PLUS", "as_of_date": "2024-09-01",
                       "question": "physical therapy: how many visits per year"}},
    "codes": {"summary": "Only the documents governing a code",
              "value": {"payer_id": "KHP", "plan_id": "KHP-PPO-PLUS", "as_of_date": "2024-06-01",
                        "procedure_codes": ["E0784"], "question": "insulin pump: replacement limit"}},
}
DETERMINATION: Final[dict[str, dict[str, Any]]] = {
    "case": {"summary": "A structured case",
             "value": {"payer_id": "KHP", "plan_id": "KHP-HMO-CORE", "procedure_codes": ["29881"],
                       "diagnosis_codes": ["S83.511D"], "as_of_date": "2024-01-01",
                       "narrative": "Medial meniscal tear confirmed on MRI, with locking and catching. Six weeks of "
                                    "supervised physical therapy without adequate relief.",
                       "question": "Is arthroscopic meniscectomy covered?"}},
    "halt": {"summary": "A bad field value is a 200 with gate HALT, not a 422",
             "value": {"payer_id": "", "plan_id": "KHP-PPO-PLUS", "procedure_codes": ["97140"],
                       "diagnosis_codes": [], "as_of_date": "2024-04-01", "narrative": "Routine physical therapy.",
                       "question": "Is this covered?"}},
}
COMPARE: Final[dict[str, dict[str, Any]]] = {
    "riders": {"summary": "Two riders' wording of one benefit",
               "value": {"question": "hospital cash: waiting period, nightly amount, exclusions",
                         "a": "rider:GRP-RID-HOSPCASH", "b": "rider:IND-RID-HOSPCASH"}},
    "versions": {"summary": "Two versions of one document",
                 "value": {"question": DENTAL, "a": "document:GRP-TERMS@CG-2021-09", "b": "document:GRP-TERMS@CG-2024-01"}},
}
RETRIEVAL: Final[dict[str, dict[str, Any]]] = {
    "gold": {"summary": "Recall of two gold clauses",
             "value": {"question": DENTAL, "contract_id": "CT-48213", "k": 3,
                       "gold_clause_ids": ["GRP-TERMS.CG-2021-09.A7.3", "GRP-TERMS.CG-2021-09.A4.2"]}},
}
DECISION: Final[dict[str, dict[str, Any]]] = {
    "agree": {"summary": "A clinician signs the engine's outcome",
              "value": {"assertion_id": "as-(from a determination)", "final_outcome": "NOT_COVERED",
                        "decided_by": "dr-k.mensah", "reason": "Criteria reviewed; not met as documented."}},
}
# Path and query parameters: name -> example value.
PARAMETERS: Final[dict[str, str]] = {
    "clause_id": "GRP-TERMS.CG-2021-09.A7.3", "document_id": "GRP-TERMS", "code": "E0784",
    "plan_id": "KHP-PPO-PLUS", "as_of_date": "2024-06-01", "assertion_id": "as-(from a determination)",
    "trace_id": "tr-(from any answer)", "limit": "20", "kind": "determination",
}
