"""The one exception tree of clauseguard; every message tells the user what to do.

    ClauseguardError
     ├── CorpusError        a corpus file or store that cannot be loaded (names file, path, valid values)
     │    └── AppendOnlyError   a change that would rewrite what the store already holds
     ├── CriteriaError      policy-as-code that does not load (names the path inside the criteria)
     ├── RequestError       a request that is not well-formed data (CLI exit 2, HTTP 422)
     ├── NotFoundError      an unknown contract, clause, document or plan id (CLI exit 2, HTTP 404)
     ├── StoreUrlError      a store URL that is malformed or does not connect (CLI exit 2; names the
     │                      URL without its password)
     └── EnvironmentFailure the machine failed, not the request: an audit log or store that cannot be
                            written, is locked, is full or has vanished, a database gone mid-run
                            (CLI exit 3, HTTP 503); names the file or URL, never returns an unaudited answer

A determination never raises for a bad field *value*: preflight turns it into gate HALT.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a corpus: where it is and what would be valid."""

    file: str
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.path}" if self.path else self.file
        return f"{where}: {self.message}"


class ClauseguardError(Exception):
    """Base of every error clauseguard raises on purpose."""


class CorpusError(ClauseguardError):
    """A corpus that cannot be loaded or stored; carries every problem found."""

    def __init__(self, problems: list[Problem] | str) -> None:
        if isinstance(problems, str):
            problems = [Problem(file="corpus", path="", message=problems)]
        self.problems = problems
        shown = "; ".join(str(p) for p in problems[:20])
        more = f" (and {len(problems) - 20} more)" if len(problems) > 20 else ""
        super().__init__(shown + more)


class AppendOnlyError(CorpusError):
    """The store is append-only: a clause id always resolves to the same text."""


class CriteriaError(ClauseguardError):
    """Criteria JSON that does not load: names the path inside the criteria and what would be valid."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"criteria{path}: {message}")


class RequestError(ClauseguardError):
    """A request that is not well-formed as data; names the field and what would be valid."""

    def __init__(self, field: str, message: str, location: str = "body") -> None:
        self.field = field
        self.location = location  # where the field is: body, query, path or header (HTTP's `loc`)
        super().__init__(f"{field}: {message}")


class NotFoundError(ClauseguardError):
    """An id that names nothing in the corpus; never answered by guessing another."""

    def __init__(self, kind: str, ident: str, hint: str = "") -> None:
        self.kind = kind
        self.ident = ident
        text = f"unknown {kind} '{ident}'"
        super().__init__(text + (f"; {hint}" if hint else ""))


class StoreUrlError(ClauseguardError):
    """A store URL that is malformed, or a database that refuses it (wrong password, unreachable host).

    `url` is the URL with its password removed: no message ever shows a password."""

    def __init__(self, url: str, message: str) -> None:
        self.url = url
        super().__init__(f"store URL {url}: {message}")


class EnvironmentFailure(ClauseguardError):
    """The environment failed, not the request (CLI exit 3, HTTP 503): names what failed and what to do.

    `resource` is the file path or the password-free URL of what failed."""

    def __init__(self, resource: str, message: str) -> None:
        self.resource = resource
        super().__init__(f"{resource}: {message}")
