"""The field's libraries load offline: medspaCy on a blank spaCy pipeline (no model download, spaCy 3.8
with medspaCy installed without its pins), the ICD-10-CM tabular list and the drug dictionary."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from clauseguard.reading.facts import TherapyFact, default_rules, pipeline_for, read_facts
from clauseguard.reading.facts.codes import icd_entry
from clauseguard.reading.lexicon import default_lexicon


def test_medspacy_imports_on_spacy_3_8_and_runs_context_on_a_blank_pipeline() -> None:
    import medspacy  # noqa: F401 - the import itself is the check (spaCy 3.7.5 with numpy 2 crashes here)
    import spacy

    assert spacy.__version__.startswith("3.8")
    pipeline = pipeline_for(default_lexicon(), default_rules())
    # a blank pipeline: the tokenizer only, nothing downloaded, no PyRuSH splitter (the toolkit's sentences)
    assert pipeline.nlp.pipe_names == []
    doc = pipeline.doc("No history of hypertension.", [0])
    [(target, modifiers)] = pipeline.assert_targets(doc, pipeline.lexicon_targets(doc))
    assert (target.kind, target.name) == ("condition", "hypertension")
    assert [m.category for m in modifiers] == ["NEGATED"]


def test_nothing_is_fetched() -> None:
    # a fresh process with the network unreachable reads a note: every model and table is local
    code = ("import socket\n"
            "def refuse(*a, **k): raise OSError('network disabled in this test')\n"
            "socket.socket.connect = refuse\n"
            "from clauseguard.reading.facts import read_facts\n"
            "sheet = read_facts('Lantus 20 units qHS; no history of DKA.', ['E10.65'])\n"
            "print(len(sheet.facts))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)  # noqa: S603 - our own code
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.strip()) > 0


def test_icd10cm_codes_and_descriptions_come_from_the_tabular_list() -> None:
    description, ancestors = icd_entry("M23.221") or ("", ())
    assert "meniscus" in description.lower()
    assert ancestors  # its category and block
    assert icd_entry("Q99.99") is None  # well-formed, not a code


def test_brand_names_become_their_generic_drug() -> None:
    sheet = read_facts("Meds: Lantus 28 units qHS.")
    [therapy] = [f for f in sheet.facts if isinstance(f, TherapyFact)]
    assert getattr(therapy, "therapy", None) == "basal insulin" and getattr(therapy, "brand", None) == "Lantus"


def test_help_and_a_search_load_none_of_them(tmp_path: Path) -> None:
    code = ("import sys\n"
            "from typer.testing import CliRunner\n"
            "from clauseguard.interfaces.cli import app\n"
            "assert CliRunner().invoke(app, ['--help']).exit_code == 0\n"
            "from clauseguard.corpus.sources import open_corpus\n"
            "from clauseguard.engine import Engine\n"
            "Engine(open_corpus('demo', None), log=False).search({'contract_id': 'CT-48213', 'question': 'dental implant'})\n"
            "heavy = [m for m in ('spacy', 'medspacy', 'simple_icd_10_cm', 'drug_named_entity_recognition', 'pint')"
            " if m in sys.modules]\n"
            "print(','.join(heavy))\n")
    env = {**os.environ, "CLAUSEGUARD_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False,  # noqa: S603
                          env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == ""
