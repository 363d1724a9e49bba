"""Who a rule is for: a population names diagnoses the lexicon knows. The population written before
the service, the one a draft has read so far, and the diagnosis statement lifted from a covered
rule's requirements.
"""

from __future__ import annotations

import re

from clauseguard.corpus.criteria import AllOf, AnyOf, Condition, Node, Not, iter_atoms
from clauseguard.reading.compile.conditions import _ConditionReader
from clauseguard.reading.compile.reader import _flatten, _RuleDraft, _Seg, _Unread


class _PopulationReader(_ConditionReader):
    """Populations among a rule's conditions."""

    def _is_population(self, node: Node) -> bool:
        """A population statement names diagnoses the lexicon knows (an ICD-10-CM family)."""
        atoms = list(iter_atoms(node))
        if not atoms or not isinstance(node, Condition | AnyOf):
            return False
        for atom in atoms:
            if not isinstance(atom, Condition):
                return False
            concept = self.lex.concepts.get(atom.concept)
            if concept is None or not concept.icd10 or atom.history:
                return False
        return True

    def _condition_list(self, seg: _Seg, draft: _RuleDraft) -> list[Node]:
        """A population named before the service ('For members with X,' / 'Members with X qualify')."""
        node = self._bare(lambda: self._conditions(seg, draft))
        parts: list[Node] = list(node.children) if isinstance(node, AllOf) else [node]
        for part in parts:
            if not all(isinstance(a, Condition) for a in iter_atoms(part)) or isinstance(part, Not):
                raise _Unread(seg.start, seg.end, "a population that is not a condition")
        return parts

    def _population_of(self, draft: _RuleDraft) -> Node | None:
        """The population a draft has read so far, when it names diagnoses only (for a refusal)."""
        parts = [p for p in draft.population if self._is_population(p)]
        if not parts or len(parts) != len(draft.population):
            return None
        return parts[0] if len(parts) == 1 else AllOf(tuple(parts))

    def _extract_population(self, draft: _RuleDraft) -> None:
        """The diagnosis statement among a covered rule's top-level requirements is its population."""
        if draft.effect != "covered" or not draft.when:
            return
        top = _flatten(AllOf(tuple(draft.when)))
        parts = list(top.children) if isinstance(top, AllOf) else [top]
        keep: list[Node] = []
        for i, part in enumerate(parts):
            if self._is_population(part) and (i == 0 or self._states_diagnosis(part)):
                draft.population.append(part)
            else:
                keep.append(part)
        draft.when = keep

    def _states_diagnosis(self, node: Node) -> bool:
        return all(re.search(r"\bdiagnos", a.span.text, re.I) for a in iter_atoms(node))
