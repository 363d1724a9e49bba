"""medspaCy for the fact reader: a blank spaCy pipeline, the target matcher, ConText and the sectionizer.

Loaded lazily, once per process (importing medspaCy costs seconds; nothing here runs on `--help` or a
search), and built once per (lexicon, rules) pair from their data: it never downloads a model and never
holds a clinical word. Sentence boundaries come from the text toolkit, never from PyRuSH.
"""

from __future__ import annotations

import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Final

from clauseguard.reading.facts.rules import Cue, Rules, RulesError
from clauseguard.reading.lexicon import Lexicon, _variants, term_key

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span

TARGETS: Final = "clauseguard_targets"
KIND_LABELS: Final = {"condition": "CONDITION", "therapy": "THERAPY", "service": "SERVICE", "quantity": "QUANTITY",
                      "free": "FREE", "generic": "GENERIC", "value": "VALUE", "block": "BLOCK"}
_VOCABULARY_MEMO: Final = 256  # distinct criteria vocabularies kept per pipeline
_LOCK = threading.Lock()


@cache
def medspacy_modules() -> Any:
    """Import spaCy and medspaCy's parts (once per process)."""
    import spacy
    from medspacy.context import ConText, ConTextRule
    from medspacy.section_detection import Sectionizer, SectionRule
    from medspacy.target_matcher import TargetMatcher, TargetRule

    return type("Medspacy", (), {"spacy": spacy, "ConText": ConText, "ConTextRule": ConTextRule,
                                 "Sectionizer": Sectionizer, "SectionRule": SectionRule,
                                 "TargetMatcher": TargetMatcher, "TargetRule": TargetRule})


@dataclass(frozen=True)
class Target:
    """A mention the matcher found: its kind, the canonical name it stands for, token and character span."""

    kind: str
    name: str
    start: int  # token index
    end: int
    char_start: int
    char_end: int


class Pipeline:
    """One lexicon's and one rule set's spaCy objects: built once, used by every request they read."""

    def __init__(self, lexicon: Lexicon, rules: Rules) -> None:
        ms = medspacy_modules()
        self.ms = ms
        self.rules = rules
        self._check_regimens(lexicon)
        self.nlp: Language = ms.spacy.blank("en")
        rules_found = list(self._lexicon_rules(lexicon))
        # concepts and measured quantities are matched apart ("multiple daily injections" is a regimen and
        # a count of injections at once), each longest-first within itself
        self.lexicon_matcher = ms.TargetMatcher(self.nlp, result_type=None)
        self.lexicon_matcher.add([r for r in rules_found if r.category != "QUANTITY"])
        self.quantity_matcher = ms.TargetMatcher(self.nlp, result_type=None)
        self.quantity_matcher.add([r for r in rules_found if r.category == "QUANTITY"])
        # a wording spans the words of what it counts ("adjusted his methotrexate three times"): matched
        # apart, so the therapy inside it is still a mention of its own
        self.wording_matcher = ms.TargetMatcher(self.nlp, result_type=None)
        self.wording_matcher.add(list(self._wording_rules(lexicon)))
        self.context = ms.ConText(self.nlp, rules=None, span_attrs=None, prune_on_target_overlap=True,
                                  input_span_type="group", span_group_name=TARGETS)
        self.context.add([self._context_rule(group) for group in _grouped(rules.cues)])
        self.sectionizer = ms.Sectionizer(self.nlp, rules=None, require_start_line=True, span_attrs=None,
                                          input_span_type=None)
        self.sectionizer.add(list(self._section_rules(rules)))
        self._vocabularies: OrderedDict[tuple[str, ...], Any] = OrderedDict()

    # --- building from data -------------------------------------------------------------------

    def _lexicon_rules(self, lexicon: Lexicon) -> Iterable[Any]:
        seen: set[tuple[str, str]] = set()
        for concept in lexicon.concepts.values():
            for term in {concept.name, *concept.terms}:
                yield from self._term_rules(term, KIND_LABELS[concept.domain], concept.name, seen)
        for quantity in lexicon.quantities.values():
            for term in {quantity.name, *quantity.terms}:
                yield from self._term_rules(term, "QUANTITY", quantity.name, seen)
        for word in lexicon.phrases("phrasing.yaml", "generic_services"):
            yield from self._term_rules(word, "GENERIC", word, seen)
        for written, name in self.rules.section("aliases.yaml").get("aliases", {}).items():
            if name is not None and name not in lexicon.concepts:
                raise RulesError(f"fact rules aliases.yaml: {written!r} stands for {name!r}, which no lexicon file defines")
            label = KIND_LABELS[lexicon.concepts[name].domain] if name is not None else "BLOCK"
            pattern = [{"ORTH": t.text} for t in self.nlp.make_doc(str(written))]
            yield self.ms.TargetRule(str(written), label, pattern=pattern, metadata={"name": name or ""})

    def _wording_rules(self, lexicon: Lexicon) -> Iterable[Any]:
        """wordings.yaml: token patterns that state a lexicon concept ("glipizide reduced twice")."""
        for name, patterns in (self.rules.section("wordings.yaml").get("patterns") or {}).items():
            concept = lexicon.concepts.get(str(name))
            if concept is None:
                raise RulesError(f"fact rules wordings.yaml: patterns name {name!r}, which no lexicon file defines")
            for i, pattern in enumerate(patterns):
                if not isinstance(pattern, list) or not all(isinstance(t, dict) for t in pattern):
                    raise RulesError(f"fact rules wordings.yaml: patterns.{name}[{i}] must be a list of token mappings")
                yield self.ms.TargetRule(f"{name}#{i}", KIND_LABELS[concept.domain], pattern=pattern,
                                         metadata={"name": concept.name})

    def _check_regimens(self, lexicon: Lexicon) -> None:
        """values.yaml `regimens_by_count` names a lexicon therapy and a lexicon quantity (its shape is rules.py's)."""
        for therapy, rule in self.rules.values("regimens_by_count").items():
            where = f"fact rules values.yaml: regimens_by_count.{therapy}"
            if therapy not in lexicon.concepts:
                raise RulesError(f"{where} names a therapy no lexicon file defines")
            if rule["quantity"] not in lexicon.quantities:
                raise RulesError(f"{where}.quantity {rule['quantity']!r} is no lexicon quantity")

    def _written_only(self) -> frozenset[str]:
        """Terms whose other number is another word ("lows" is hypoglycemia, "low" an adjective)."""
        found = self.rules.section("aliases.yaml").get("written_only") or ()
        return frozenset(" ".join(term_key(str(t))) for t in found)

    def _term_rules(self, term: str, label: str, name: str, seen: set[tuple[str, str]]) -> Iterable[Any]:
        """A term and its other number as phrase rules; where the tokenizer splits the term's capitals
        otherwise ("t1dm" is two tokens, "T1DM" one), a token pattern for that form too."""
        written_only = self._written_only()
        key = term_key(term)
        for variant in _variants(key) if " ".join(key) not in written_only else {key}:
            literal = " ".join(variant)
            if not literal or (literal, name) in seen:
                continue
            seen.add((literal, name))
            yield self.ms.TargetRule(literal, label, metadata={"name": name})
            lower = [t.text for t in self.nlp.make_doc(literal)]
            for form in {literal.upper(), literal.title()}:
                tokens = [t.text.lower() for t in self.nlp.make_doc(form)]
                key = ("tokens:" + " ".join(tokens), name)
                if tokens != lower and key not in seen:
                    seen.add(key)
                    yield self.ms.TargetRule(form, label, pattern=[{"LOWER": t} for t in tokens], metadata={"name": name})

    def _context_rule(self, cues: list[Cue]) -> Any:
        """One ConText rule for a cue's words (written both before and after what it modifies, the two
        directions become one bidirectional rule whose reach depends on the side)."""
        cue = cues[0]
        directions = {c.direction for c in cues}
        direction = "BIDIRECTIONAL" if len(directions) > 1 or "both" in directions else cue.direction.upper()
        kinds = {k for c in cues for k in c.kinds}
        allowed = {KIND_LABELS[k] for k in kinds} if all(c.kinds for c in cues) else None
        terminated_by = {b for c in cues for b in c.breaks} or None
        checks = {c.direction: self._scope_check(c) for c in cues}
        if direction == "BIDIRECTIONAL":
            after = checks.get("forward") or checks.get("both")
            before = checks.get("backward") or checks.get("both")

            def either_side(target: Span, modifier: Span, between: Span) -> bool:
                check = after if target.start >= modifier.end else before
                return check is None or check(target, modifier, _between(target, modifier))

            on_modifies: Callable[[Any, Any, Any], bool] | None = either_side
        else:
            on_modifies = checks[cue.direction]
        return self.ms.ConTextRule(
            cue.literal or cue.name, cue.category, pattern=list(cue.pattern) if cue.pattern else None,
            direction=direction, allowed_types=allowed, terminated_by=terminated_by, on_modifies=on_modifies,
            metadata={"suspicion": any(c.suspicion for c in cues), "scope": cue.scope},
        )

    def _section_rules(self, rules: Rules) -> Iterable[Any]:
        """The rules' headings, each with its colon ("Family history:", "FHx:", "A/P:")."""
        for category, titles in rules.section("sections.yaml").get("sections", {}).items():
            for title in titles:
                yield self.ms.SectionRule(f"{title}:", str(category))

    def _scope_check(self, cue: Cue) -> Callable[[Any, Any, Any], bool] | None:
        """How far a cue reaches, as ConText's on_modifies callback (a small set of generic scopes)."""
        if cue.scope == "sentence" or cue.direction in ("terminate", "pseudo"):
            return None
        if cue.scope == "next":
            return lambda target, modifier, between: len(_between(target, modifier)) == 0
        if cue.scope == "phrase":
            return lambda target, modifier, between: _phrase_scope(target, modifier, _between(target, modifier))
        if cue.scope == "clause" or cue.direction != "forward":
            return lambda target, modifier, between: _clause_scope(target, modifier, _between(target, modifier))
        scope = self.rules.scopes[cue.scope]
        glue, enders = self.rules.glue, self.rules.list_enders

        def list_scope(target: Span, modifier: Span, between: Span) -> bool:
            return _list_scope(target, _between(target, modifier), scope.openers, scope.piece_words, glue, enders)

        return list_scope

    # --- per request ----------------------------------------------------------------------------

    def doc(self, text: str, sentence_starts: Sequence[int]) -> Doc:
        """The tokenized text with the toolkit's sentence boundaries and its sections (a closing newline
        is added so a form's answer at the very end reads like one before a line break)."""
        doc = self.nlp.make_doc(text + "\n")
        starts = sorted(set(sentence_starts))
        k = 0
        for token in doc:
            first = False
            while k < len(starts) and starts[k] <= token.idx:
                first = True
                k += 1
            token.is_sent_start = first or token.i == 0
        with _LOCK:
            _quietly(self.sectionizer, doc)
        return doc

    def lexicon_targets(self, doc: Doc) -> list[Target]:
        """The lexicon's mentions (a blocking alias, having won its place, names nothing)."""
        return [t for t in map(_target, _quietly(self.lexicon_matcher, doc)) if t.kind != "block"]

    def quantity_targets(self, doc: Doc) -> list[Target]:
        return [_target(s) for s in _quietly(self.quantity_matcher, doc)]

    def wording_targets(self, doc: Doc) -> list[Target]:
        return [_target(s) for s in _quietly(self.wording_matcher, doc)]

    def vocabulary_targets(self, doc: Doc, vocabulary: tuple[str, ...]) -> list[Target]:
        """Targets for the criteria's own terms the lexicon lacks (a matcher per vocabulary, memoised)."""
        if not vocabulary:
            return []
        with _LOCK:
            matcher = self._vocabularies.get(vocabulary)
            if matcher is None:
                matcher = self.ms.TargetMatcher(self.nlp, result_type=None)
                rules: list[Any] = []
                seen: set[tuple[str, str]] = set()
                for term in vocabulary:
                    rules.extend(self._term_rules(term, "FREE", term, seen))
                matcher.add(rules)
                self._vocabularies[vocabulary] = matcher
                if len(self._vocabularies) > _VOCABULARY_MEMO:
                    self._vocabularies.popitem(last=False)
            else:
                self._vocabularies.move_to_end(vocabulary)
        return [_target(s) for s in _quietly(matcher, doc)]

    def assert_targets(self, doc: Doc, targets: Sequence[Target]) -> list[tuple[Target, tuple[Any, ...]]]:
        """ConText over the targets: each with the modifiers that reach it."""
        Span = type(doc[0:0])
        spans = [Span(doc, t.start, t.end, label=KIND_LABELS[t.kind]) for t in targets]
        doc.spans[TARGETS] = spans
        doc.user_data["clauseguard_target_tokens"] = frozenset(i for t in targets for i in range(t.start, t.end))
        with _LOCK:
            _quietly(self.context, doc)
        return [(t, tuple(span._.modifiers)) for t, span in zip(targets, doc.spans[TARGETS], strict=True)]

    def modifiers_of(self, doc: Doc, start: int, end: int, kind: str = "value") -> tuple[Any, ...]:
        """The ConText modifiers that reach a span ConText was not run on (a value, a count)."""
        graph = doc._.context_graph
        if graph is None or start >= end:
            return ()
        span = doc[start:end]
        probe = type(span)(doc, span.start, span.end, label=KIND_LABELS[kind])
        return tuple(m for m in graph.modifiers if m.modifies(probe))


def _grouped(cues: Sequence[Cue]) -> list[list[Cue]]:
    """Cues by their words: one rule per words (a word may not mean two categories)."""
    groups: dict[str, list[Cue]] = {}
    for cue in cues:
        groups.setdefault(cue.name, []).append(cue)
    for name, group in groups.items():
        if len({c.category for c in group}) > 1:
            raise RulesError(f"fact rules context.yaml: {name!r} is a cue of {sorted({c.category for c in group})}; "
                             "a cue's words may mean one category only")
    return list(groups.values())


def _quietly(component: Callable[[Any], Any], doc: Doc) -> Any:
    """Run a medspaCy component without spaCy's warning that a matcher of one rule type has no rules."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return component(doc)


def _target(span: Span) -> Target:
    rule = span._.target_rule
    kind = next(k for k, v in KIND_LABELS.items() if v == span.label_)
    return Target(kind, str(rule.metadata["name"]), span.start, span.end, span.start_char, span.end_char)


def _between(target: Span, modifier: Span) -> Span:
    """The tokens strictly between a cue and a mention, on either side (ConText's own span_between
    includes the cue when the mention comes first)."""
    doc = target.doc
    if target.end <= modifier.start:
        return doc[target.end:modifier.start]
    return doc[modifier.end:max(modifier.end, target.start)]


_CLAUSE_STOPS: Final = frozenset({",", ";"})
_JOINERS: Final = frozenset({"and", "then", "&", "+", "/"})
_LABEL_MARKS: Final = frozenset({":", "-", "–", "—"})
_CLAUSE_REACH: Final = 10


def _clause_scope(target: Span, modifier: Span, between: Span) -> bool:
    """Within one clause: a few words and no clause punctuation between cue and mention; punctuation
    alone may separate them ("arthritis, to be confirmed", "papilledema - questionable"); a form's answer
    covers its whole label ("Visit within prior 6 months to evaluate ...: no record provided")."""
    if all(t.is_punct or t.is_space for t in between):
        return True
    words = [t for t in between if not t.is_space]
    answer = modifier[0].text in _LABEL_MARKS  # the cue carries the label's mark: ": no", "- none"
    if target.end <= modifier.start and words and (answer or words[-1].text in _LABEL_MARKS) and not any(
            t.text in (".", ";", ":") for t in (words if answer else words[:-1])) and all(t.sent == modifier.sent for t in words):
        return True
    return len(between) <= _CLAUSE_REACH and not any(t.text in _CLAUSE_STOPS for t in between)


def _phrase_scope(target: Span, modifier: Span, between: Span) -> bool:
    """A few words back across a comma, never past another mention, a semicolon or a full stop."""
    if _clause_scope(target, modifier, between):
        return True
    mentions = between.doc.user_data.get("clauseguard_target_tokens", frozenset())
    words = [t for t in between if not t.is_space]
    return len(words) <= _CLAUSE_REACH and not any(t.text in (";", ".") or t.i in mentions for t in words)


def _set_off_dash(token: Any) -> bool:
    """A dash with space on both sides ("without help - I'm satisfied ...") sets off a clause as a comma
    does; a hyphen inside a word ("non-insulin", "mod-severe") does not."""
    if token.text not in ("-", "–", "—", "--") or not token.whitespace_ or token.i == 0:
        return False
    return bool(token.doc[token.i - 1].whitespace_)


def _list_scope(target: Span, between: Span, openers: frozenset[str], piece_words: int | None,
                glue: frozenset[str], enders: frozenset[str]) -> bool:
    """A forward cue reaches a mention while what lies between is the list it governs; a later item
    with its own predicate after it ("no papilledema, focal deficit present") is no item of the list."""
    doc = between.doc
    mentions = doc.user_data.get("clauseguard_target_tokens", frozenset())
    if any(t.text == "," for t in between):
        for token in doc[target.end:min(len(doc), target.end + 3)]:
            if token.text in (",", ";", ".") or token.is_sent_start:
                break
            if token.lower_ in enders:
                return False
    pieces: list[list[Any]] = [[]]
    tokens = [t for t in between if not t.is_space]
    for i, token in enumerate(tokens):
        if token.text == ";":
            return False
        if token.text == "," or _set_off_dash(token):
            pieces.append([])
            continue
        if token.lower_ in _JOINERS and i + 1 < len(tokens) and tokens[i + 1].lower_ in openers:
            return False  # "continue metformin and start insulin": a new clause, joined
        pieces[-1].append(token)
    if tokens and (tokens[-1].text == "," or tokens[-1].lower_ in _JOINERS) and doc[target.start].lower_ in openers:
        return False  # "no pump, and checks her glucose ...": the mention's own first word opens a clause
    for i, piece in enumerate(pieces):
        words = [t.lower_ for t in piece]
        if i > 0 and words and (words[0] in openers or " ".join(words[:2]) in openers):
            return False
        if piece_words is not None:
            loose = [t for t in piece if t.i not in mentions and t.lower_ not in glue and not t.is_punct]
            if len(loose) > piece_words and not any(t.i in mentions for t in piece):
                return False
    return True
