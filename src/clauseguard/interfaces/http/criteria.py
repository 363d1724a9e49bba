"""The criteria routes: read-only draft, check, clause view and log; and `criteria add` with an admin key.

Each is one call into `clauseguard.authoring` on the engine's corpus and store. Adding revisions over
HTTP needs `X-Admin-Key: <key>` matching one of CLAUSEGUARD_ADMIN_KEYS (none set: it is refused, 403);
approval is never offered over HTTP (four eyes at the command line: `clauseguard criteria approve`).
The add route is left out of the published examples, which the contract test sends without keys.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Final

from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict

from clauseguard.errors import CorpusError, RequestError
from clauseguard.interfaces.http.body import check_text, parse_json
from clauseguard.interfaces.http.docs import ERRORS, LOOKUP_ERRORS, body_doc
from clauseguard.interfaces.http.examples import PARAMETERS
from clauseguard.interfaces.worker import EngineThread
from clauseguard.responses import ClauseCriteria, CriteriaAdded, CriteriaCheck, CriteriaLog, CriteriaSheet

if TYPE_CHECKING:
    from clauseguard.authoring.sheet import Sheet
    from clauseguard.engine import Engine

ADMIN_KEYS_ENV: Final = "CLAUSEGUARD_ADMIN_KEYS"
ADMIN_HEADER: Final = b"x-admin-key"

_OSTEOARTHRITIS = ("Arthroscopic debridement or lavage for knee pain attributed to osteoarthritis, without a "
                   "symptomatic meniscal tear causing mechanical symptoms, is not medically necessary.")
CHECK_EXAMPLES: Final[dict[str, dict[str, Any]]] = {
    "authored": {"summary": "An analyst's tree for a clause the compiler cannot read (spans quoted)", "value": {
        "format": "clauseguard.criteria-sheet/v1", "document": "KHP-MP-0224", "clauses": [{
            "id": "KHP-MP-0224.v1.C4", "role": "exclusion", "criteria": {"rules": [{
                "effect": "not_covered", "span": _OSTEOARTHRITIS,
                "subject": {"kind": "service", "span": "Arthroscopic debridement or lavage",
                            "concept": "arthroscopic debridement or lavage"},
                "trigger": {"kind": "condition", "span": "knee pain attributed to osteoarthritis",
                            "concept": "osteoarthritis of the knee"},
                "when": {"kind": "not", "child": {
                    "kind": "condition", "span": "a symptomatic meniscal tear causing mechanical symptoms",
                    "concept": "meniscal tear", "qualifiers": ["symptomatic"]}},
            }]},
        }]}},
}


class SheetBody(BaseModel):
    """A criteria sheet as `clauseguard criteria draft` writes it (see `clauseguard.authoring.sheet`)."""

    model_config = ConfigDict(extra="forbid")

    format: str
    document: str
    version: str | None = None
    corpus_fingerprint: str | None = None
    clauses: list[dict[str, Any]]


def admin_keys() -> tuple[str, ...]:
    return tuple(k.strip() for k in os.environ.get(ADMIN_KEYS_ENV, "").split(",") if k.strip())


def require_admin(request: Request, keys: tuple[str, ...]) -> None:
    """403 when the server has no admin key (adding is off); 401 when the request shows none that matches."""
    if not keys:
        raise HTTPException(403, f"criteria are added over HTTP only with an admin key, and this server sets none "
                                 f"({ADMIN_KEYS_ENV}); use `clauseguard criteria add` instead")
    offered = [v.strip() for n, v in request.scope.get("headers", []) if n == ADMIN_HEADER]
    matched = False
    for value in offered:
        for key in keys:  # every comparison runs: no early exit tells which key came close
            matched |= hmac.compare_digest(value, key.encode("utf-8"))
    if not matched:
        raise HTTPException(401, "adding criteria needs the header X-Admin-Key: <an admin key of this server>")


def sheet_of(data: Any) -> Sheet:
    """The body as a sheet; a problem of its shape is a 422 naming the key path."""
    from clauseguard.authoring.sheet import parse_sheet

    try:
        return parse_sheet(data, "body")
    except CorpusError as exc:
        problem = exc.problems[0]
        raise RequestError(problem.path or "request", problem.message) from None


def criteria_router(worker: EngineThread) -> APIRouter:
    router = APIRouter(prefix="/criteria", tags=["criteria"])

    async def answer(fn: Callable[[Engine], BaseModel | dict[str, Any]], model: type[BaseModel],
                     status: int = 200) -> JSONResponse:
        found = await worker.call(fn)
        body = found if isinstance(found, BaseModel) else model.model_validate(found)
        return JSONResponse(body.as_json() if hasattr(body, "as_json") else body.model_dump(), status_code=status)

    def ident(name: str, value: str, where: str = "path") -> str:
        try:
            return check_text(name, value)
        except RequestError as exc:
            raise RequestError(name, str(exc).removeprefix(f"{name}: "), where) from None

    @router.get("/documents/{document_id}/draft", response_model=CriteriaSheet, responses=LOOKUP_ERRORS,
                summary="A criteria sheet to author from")
    async def draft(
        document_id: Annotated[str, Path(description="A document id", examples=[PARAMETERS["document_id"]],
                                         max_length=400)],
        version: Annotated[str | None, Query(description="Only this version label", max_length=100)] = None,
        offsets_only: Annotated[bool, Query(description="Spans as offsets, no clause text")] = False,
    ) -> JSONResponse:
        """Per deciding clause the tree it is read with (an approved revision, the corpus's criteria or the
        compiler's), or a hole per stretch the compiler cannot read with its reason; every other clause
        with its role. The same sheet as `clauseguard criteria draft`."""
        from clauseguard.authoring.draft import draft_sheet

        doc, label = ident("document_id", document_id), ident("version", version, "query") if version else None
        return await answer(lambda e: draft_sheet(e.corpus, doc, label, lexicon=e.lexicon, revisions=e.revisions,
                                                  with_text=not offsets_only, offsets=offsets_only), CriteriaSheet)

    @router.post("/check", response_model=CriteriaCheck, responses=ERRORS, summary="Check a criteria sheet",
                 openapi_extra=body_doc(SheetBody, CHECK_EXAMPLES))
    async def check(request: Request) -> JSONResponse:
        """Spans verbatim, node kinds and comparators valid, references resolved, every sentence of a
        deciding clause covered or noted; `ok` false lists each problem with the clause, the key path and
        what would be valid, and every tree comes back in plain words. Nothing is written."""
        from clauseguard.authoring.check import check_sheet

        sheet = sheet_of(parse_json(await request.body()))
        return await answer(lambda e: check_sheet(sheet, e.corpus, lexicon=e.lexicon, revisions=e.revisions).as_json(),
                            CriteriaCheck)

    @router.get("/clauses/{clause_id}", response_model=ClauseCriteria, responses=LOOKUP_ERRORS,
                summary="A clause's criteria, spans and reader")
    async def clause(clause_id: Annotated[str, Path(description="A clause id", examples=[PARAMETERS["clause_id"]],
                                                    max_length=400)]) -> JSONResponse:
        """The clause text with the span of every rule, criterion, reference and note, the stretches no one
        reads, the tree in plain words, and who reads it: the compiler, the corpus's own criteria, or
        revision R of NAME."""
        from clauseguard.authoring.view import clause_view

        cid = ident("clause_id", clause_id)
        return await answer(lambda e: clause_view(e.corpus, cid, e.revisions, e.lexicon), ClauseCriteria)

    @router.get("/clauses/{clause_id}/log", response_model=CriteriaLog, responses=LOOKUP_ERRORS,
                summary="A clause's criteria revisions")
    async def log(clause_id: Annotated[str, Path(description="A clause id", examples=[PARAMETERS["clause_id"]],
                                                 max_length=400)]) -> JSONResponse:
        """Every revision of the clause's criteria, oldest first (author, time, note, content hash,
        approvals, whether the row is intact), and who reads the clause now."""
        from clauseguard.authoring.view import clause_log

        cid = ident("clause_id", clause_id)
        return await answer(lambda e: clause_log(e.opened, cid), CriteriaLog)

    @router.post("/revisions", response_model=CriteriaAdded, status_code=201, include_in_schema=False)
    async def add(request: Request) -> JSONResponse:
        """`criteria add` over HTTP: {"sheet", "author", "note"}; needs X-Admin-Key. Revisions are used once
        approved at the command line by someone other than their author."""
        require_admin(request, admin_keys())
        data = parse_json(await request.body())
        if not isinstance(data, dict) or set(data) != {"sheet", "author", "note"}:
            raise RequestError("request", "send {\"sheet\": <a criteria sheet>, \"author\": NAME, \"note\": TEXT}")
        sheet = sheet_of(data["sheet"])
        author, note = str(data["author"]), str(data["note"])

        def write(engine: Engine) -> dict[str, Any]:
            from clauseguard.authoring.check import check_sheet
            from clauseguard.authoring.revisions import revision_log
            from clauseguard.authoring.submit import add_checked

            report = check_sheet(sheet, engine.corpus, lexicon=engine.lexicon, revisions=engine.revisions)
            if not report.ok:
                first = report.problems[0]
                raise RequestError(f"sheet.{first.path}", f"{first.clause_id}: {first.message} "
                                                          f"({len(report.problems)} problem(s) in all; nothing written)")
            with revision_log(engine.opened.store) as revisions:
                return {"added": [a.as_json() for a in add_checked(report, revisions, author=author, note=note)]}

        return await answer(write, CriteriaAdded, status=201)

    return router
