"""The lexicon: versioned data files in the package, fingerprinted; code reads them, never hard-codes terms."""

from __future__ import annotations

import ast
import re
from importlib import resources
from pathlib import Path

import pytest
import yaml

from clauseguard.reading.lexicon import Lexicon, LexiconError, default_lexicon, load_lexicon, tokenize

LEXICON_DIR = Path(str(resources.files("clauseguard").joinpath("data", "lexicon")))


def test_every_file_is_versioned_and_the_fingerprint_is_stable() -> None:
    lex = default_lexicon()
    assert set(lex.versions) >= {"conditions.yaml", "therapies.yaml", "services.yaml", "measures.yaml",
                                 "numbers.yaml", "cues.yaml", "phrasing.yaml"}
    assert all(isinstance(v, int) for v in lex.versions.values())
    assert lex.fingerprint.startswith("sha256:")
    assert load_lexicon(LEXICON_DIR).fingerprint == lex.fingerprint


def test_the_fingerprint_changes_with_any_byte_of_data(tmp_path: Path) -> None:
    for source in LEXICON_DIR.glob("*.yaml"):
        (tmp_path / source.name).write_bytes(source.read_bytes())
    before = load_lexicon(tmp_path).fingerprint
    path = tmp_path / "numbers.yaml"
    path.write_text(path.read_text() + "\n# a comment\n")
    assert load_lexicon(tmp_path).fingerprint != before


def test_a_file_without_a_version_is_refused(tmp_path: Path) -> None:
    for source in LEXICON_DIR.glob("*.yaml"):
        (tmp_path / source.name).write_bytes(source.read_bytes())
    data = yaml.safe_load((tmp_path / "numbers.yaml").read_text())
    del data["version"]
    (tmp_path / "numbers.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(LexiconError, match="version"):
        load_lexicon(tmp_path)


def test_a_term_standing_for_two_concepts_is_refused() -> None:
    files = {p.name: p.read_bytes() for p in LEXICON_DIR.glob("*.yaml")}
    files["conditions.yaml"] += b"  another condition:\n    terms: [type 1 diabetes]\n"
    with pytest.raises(LexiconError, match="already stands for"):
        Lexicon(files)


@pytest.mark.parametrize(("spec", "message"), [
    (b"counted_from: insulin", "must be a mapping with `class`"),
    (b"counted_from: {class: no such therapy}", "which no concept file defines"),
])
def test_a_count_from_a_regimen_must_name_a_known_therapy_class(spec: bytes, message: str) -> None:
    files = {p.name: p.read_bytes() for p in LEXICON_DIR.glob("*.yaml")}
    entry = b"  doses counted:\n    terms: [doses counted]\n    per_day: true\n    " + spec + b"\n"
    files["measures.yaml"] = files["measures.yaml"].replace(b"\nquantities:\n", b"\nquantities:\n" + entry, 1)
    with pytest.raises(LexiconError, match=message):
        Lexicon(files)


def test_icd10_families() -> None:
    lex = default_lexicon()
    assert lex.conditions_for_code("E10.9") == ("type 1 diabetes mellitus",)
    assert lex.conditions_for_code("E10.65") == ("type 1 diabetes mellitus",)
    assert lex.conditions_for_code("E11.9") == ("type 2 diabetes mellitus",)
    assert lex.conditions_for_code("M05.79") == ("rheumatoid arthritis",)
    assert lex.conditions_for_code("M06.9") == ("rheumatoid arthritis",)
    assert lex.conditions_for_code("G47.33") == ("obstructive sleep apnea",)
    assert lex.conditions_for_code("Z99.89") == ()


def test_drug_classes_and_broader_terms() -> None:
    lex = default_lexicon()
    for drug in ("methotrexate", "leflunomide", "sulfasalazine", "hydroxychloroquine"):
        assert lex.is_a(drug, "conventional synthetic dmard")
        assert lex.is_a(drug, "dmard")
    assert not lex.is_a("infliximab", "conventional synthetic dmard")
    assert lex.is_a("magnetic resonance imaging", "advanced imaging")
    assert lex.is_a("tension-type headache", "primary headache")


def test_synonyms_read_as_one_concept() -> None:
    lex = default_lexicon()
    assert lex.concept_named("basal-bolus regimen") == lex.concept_named("multiple daily injections") \
        == "intensive insulin regimen"
    assert lex.concept_named("progressive foot drop") == "progressive neurologic deficit"
    assert lex.concept_named("MRI") == "magnetic resonance imaging"
    assert lex.quantity_named("HbA1c") == lex.quantity_named("A1c") == "hemoglobin a1c"
    assert lex.concept_named("fingersticks") is None and lex.quantity_named("fingersticks") == "fingerstick tests"


def test_words_that_yaml_reads_as_booleans_stay_words() -> None:
    lex = default_lexicon()
    assert "no" in lex.phrases("cues.yaml", "negation_before")
    assert lex.number_words()["no"] == 0


def test_procedure_codes_name_services() -> None:
    lex = default_lexicon()
    assert lex.services_for_code("95810") == ("attended polysomnography",)
    assert lex.services_for_code("J1745") == ("infliximab",)
    assert lex.services_for_code("99999") == ()


def test_a_loaded_lexicon_shares_nothing_with_the_default_one() -> None:
    """The cold verifier loads its own lexicon: no object or derived table may be the reader's."""
    from clauseguard.reading.compiler import compile_clause
    from clauseguard.reading.facts import read_facts

    reader, cold = default_lexicon(), load_lexicon()
    assert cold is not reader and cold.fingerprint == reader.fingerprint
    text = "Hearing aids are covered when the hearing threshold is 40 dB or greater."
    for lex in (reader, cold):
        compile_clause(text, lex)
        read_facts("Hearing threshold 45 dB.", lexicon=lex)
    for name in ("compiler.grammar", "facts.note.tables"):
        assert reader.derived(name, lambda _: None) is not cold.derived(name, lambda _: None)
    assert reader.phrases("cues.yaml", "hedge_before") is not cold.phrases("cues.yaml", "hedge_before")


def test_derived_tables_are_built_once_per_lexicon() -> None:
    lex = load_lexicon(LEXICON_DIR)
    built: list[object] = []

    def build(_: Lexicon) -> object:
        built.append(object())
        return built[-1]

    first = lex.derived("probe", build)
    assert lex.derived("probe", build) is first and len(built) == 1
    words = lex.number_words()
    words["no"] = 99.0  # a caller changing its copy changes nothing for the next caller
    assert lex.number_words()["no"] == 0


def test_longest_match_and_plurals() -> None:
    lex = default_lexicon()
    found = [m.name for m in lex.find_concepts("Type 2 diabetes on a basal-bolus regimen; prior sleep studies")]
    assert found == ["type 2 diabetes mellitus", "intensive insulin regimen", "sleep study"]
    assert [t.text for t in tokenize("A1c 8.6%, Crohn’s")] == ["a1c", "8.6", "%", "crohn's"]


MODULES = ("../corpus/criteria", "lexicon", "compiler", "amend")  # and every module of reading/evaluate/ and facts/
SENTINELS = ("methotrexate", "diabetes", "sleep apnea", "fingerstick", "polysomnography", "a1c", "dmard", "insulin",
             "radiculopathy", "mri", "inadequate response", "rheumatoid")


def test_code_holds_no_domain_terms() -> None:
    """Code reads domain terms from data: none of these appears in a string or name of the reading code
    (docstrings and comments may use them as examples)."""
    root = Path(str(resources.files("clauseguard").joinpath("reading")))
    facts = [f"facts/{p.stem}" for p in sorted((root / "facts").glob("*.py"))]
    assert facts, "the fact reader's package has moved"
    compiled = [f"compile/{p.stem}" for p in sorted((root / "compile").glob("*.py"))]  # compiler.py's code
    assert compiled, "the rule compiler's package has moved"
    evaluation = [f"evaluate/{p.stem}" for p in sorted((root / "evaluate").glob("*.py"))]
    assert evaluation, "the evaluator's package has moved"
    for module in (*MODULES, *evaluation, *facts, *compiled):
        tree = ast.parse((root / f"{module}.py").read_text())
        docstrings = set()
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                    isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                docstrings.add(id(body[0].value))
        words = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                 and id(n) not in docstrings]
        words += [n.id for n in ast.walk(tree) if isinstance(n, ast.Name)]
        text = "\n".join(words).lower()
        for term in SENTINELS:
            assert not re.search(rf"(?<![a-z]){re.escape(term)}(?![a-z])", text), (module, term)
