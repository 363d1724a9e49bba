"""A criteria tree read back in plain words, so an analyst and a claim handler can check it against
the clause: "covered when ALL of: diabetes mellitus; insulin ... ; ...".

Pure rendering of `corpus.criteria` values; it never reads clause prose and never judges a request.
"""

from __future__ import annotations

from clauseguard.corpus.criteria import (
    AllOf,
    AnyOf,
    AtLeast,
    Atom,
    Criteria,
    Node,
    Not,
    Ref,
    Routing,
    Rule,
    Waiver,
    iter_atoms,
)

EFFECT_WORDS = {
    "covered": "covered",
    "not_covered": "not covered",
    "withheld": "given no standing decision (individual consideration)",
    "limit": "limited",
}


def _marked(text: str, mark: str | None) -> str:
    return f"({mark}) {text}" if mark else text


def _list(head: str, children: tuple[Node, ...]) -> str:
    return f"{head} of: " + "; ".join(node_words(c, nested=True) for c in children)


def node_words(node: Node, nested: bool = False) -> str:
    """One node in words; a nested list is bracketed so its extent stays readable."""
    mark = getattr(node, "mark", None)
    if isinstance(node, AllOf | AnyOf | AtLeast):
        head = "ALL" if isinstance(node, AllOf) else "ANY" if isinstance(node, AnyOf) else f"AT LEAST {node.n}"
        text = _list(head, node.children)
        return _marked(f"[{text}]" if nested else text, mark)
    if isinstance(node, Not):
        return _marked(f"NOT {node_words(node.child, nested=True)}", mark)
    if isinstance(node, Ref):
        if node.service is not None:
            text = f"the criteria of the rules that cover {node.service}"
        else:
            where = f" of clause {node.clause}" if node.clause else ""
            text = f"criteria {', '.join(node.labels)}{where}"
        return _marked(text, mark)
    if isinstance(node, Waiver):
        waived = [a.label for a in iter_atoms(node.body) if a.id in node.waives]
        return (f"{node_words(node.body, nested=True)} UNLESS {node_words(node.condition, nested=True)} "
                f"(then these do not apply: {'; '.join(waived)})")
    if isinstance(node, Routing):
        body = node_words(node.body, nested=True) if node.body is not None else "nothing else"
        then = f"{node.target.label} is required instead" if node.target is not None else "not covered under this rule"
        return f"{body} UNLESS {node_words(node.condition, nested=True)} (then {then})"
    assert isinstance(node, Atom)
    return _marked(node.label, mark)


def rule_words(rule: Rule) -> str:
    """One rule: what it is about, for whom, on what occasion, and what it requires."""
    subject = rule.subject.label if rule.subject is not None else "the requested service"
    parts = [f"{subject}: {EFFECT_WORDS.get(rule.effect, rule.effect)}"]
    if rule.approval:
        period = f" for {rule.approval_period.label}" if rule.approval_period else ""
        parts[0] += f" ({rule.approval} approval{period})"
    if rule.population is not None:
        parts.append(f"for {node_words(rule.population)}")
    if rule.trigger is not None:
        parts.append(f"when it arises that {node_words(rule.trigger)}")
    if rule.when is not None:
        parts.append(f"when {node_words(rule.when)}")
    elif rule.effect == "not_covered":
        parts.append("in every case")
    return "; ".join(parts[:1]) + (" " + ", ".join(parts[1:]) if parts[1:] else "")


def criteria_words(criteria: Criteria) -> list[str]:
    """Every rule, designation and amendment of a clause in words, one line each (notes last)."""
    lines = [rule_words(r) for r in criteria.rules]
    lines += [f"{d.subject.label} is designated {d.designation}" for d in criteria.designations]
    for a in criteria.amendments:
        line = f"amends: {a.action} {a.requirement}"
        if a.replacement is not None:
            line += f" with {node_words(a.replacement)}"
        if a.targets:
            line += f" (in {', '.join(a.targets)})"
        lines.append(line)
    lines += [f"not a criterion ({n.kind}): {n.span.text!r}" for n in criteria.notes]
    return lines or ["decides nothing"]
