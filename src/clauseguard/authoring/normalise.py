"""A checked sheet written back: spans filled in, the plain words rewritten, `read_by` saying whether
each entry is authored or the compiler's reading. With offsets only, it keeps just the authored
entries, spans as offsets and no clause text: a sheet that can be committed without the policy's words."""

from __future__ import annotations

from typing import Any

from clauseguard.authoring.check import CheckReport
from clauseguard.authoring.revisions import clause_sha256
from clauseguard.authoring.sheet import FORMAT, offsets_only, sheet_yaml

HEADER = """\
# clauseguard criteria sheet, checked (`clauseguard criteria check FILE`); spans are offsets into each
# clause's text and `text_sha256` names the text they were written against.
"""


def normalised_data(report: CheckReport, *, offsets: bool = False) -> dict[str, Any]:
    entries = []
    for e in report.entries:
        if offsets and e.same_as_compiler():
            continue  # a sheet that copies no policy text keeps only what is authored
        entry: dict[str, Any] = {"id": e.clause.id, "role": e.role}
        if e.entry.reason:
            entry["reason"] = e.entry.reason
        entry["read_by"] = "compiler" if e.same_as_compiler() else "authored"
        entry["text_sha256"] = clause_sha256(e.clause.text)
        if e.entry.text is not None and not offsets:
            entry["text"] = e.clause.text
        if e.deciding and e.data is not None:
            entry["criteria"] = offsets_only(e.data) if offsets else e.data
            if not offsets:  # the words of notes quote the clause
                entry["plain"] = e.words
        entries.append(entry)
    data: dict[str, Any] = {"format": FORMAT, "document": report.sheet.document}
    if report.sheet.version is not None:
        data["version"] = report.sheet.version
    data["clauses"] = entries
    return data


def normalised_sheet(report: CheckReport, *, offsets_only: bool = False) -> str:
    return sheet_yaml(normalised_data(report, offsets=offsets_only), HEADER)
