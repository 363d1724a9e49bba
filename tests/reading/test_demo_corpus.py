"""The compiler over the bundled demo corpus (our own policy text): every span verbatim, refusals that name
what they could not read, and a floor on how many clauses compile so the count cannot slide."""

from __future__ import annotations

from clauseguard.corpus.criteria import all_atoms
from clauseguard.corpus.loader import load_demo
from clauseguard.reading.compiler import Refusal, compile_clause

COMPILED_FLOOR = 35


def test_demo_clauses_compile_or_refuse_honestly() -> None:
    corpus = load_demo()
    compiled = total = 0
    for document in corpus.documents:
        for version in document.versions:
            for clause in version.clauses:
                total += 1
                result = compile_clause(clause.text)
                if isinstance(result, Refusal):
                    assert result.unread, clause.id
                    for unread in result.unread:
                        assert clause.text[unread.span.start:unread.span.end] == unread.span.text
                    continue
                compiled += 1
                for atom in all_atoms(result):
                    assert clause.text[atom.span.start:atom.span.end] == atom.span.text, (clause.id, atom)
    print(f"\ndemo corpus: compiled {compiled} of {total} clauses")
    assert compiled >= COMPILED_FLOOR
