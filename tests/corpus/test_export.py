"""`clauseguard corpus export`: the store back out in the interchange format, byte-stable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clauseguard.corpus.export import corpus_yaml, export_corpus
from clauseguard.corpus.loader import load_demo, load_path
from clauseguard.interfaces import cli
from clauseguard.interfaces.cli import main
from clauseguard.interfaces.ingest_commands import register
from tests.corpus.readers.documents import Edition, write_terms_docx, write_terms_pdf


@pytest.fixture(autouse=True)
def _commands() -> None:
    register(cli.app, cli.corpus_app)


def test_demo_round_trips_byte_for_byte(tmp_path: Path) -> None:
    corpus = load_demo()
    first = export_corpus(corpus, tmp_path / "a.yaml")
    again = load_path(first)
    assert again.fingerprint() == corpus.fingerprint()
    second = export_corpus(again, tmp_path / "b.yaml")
    assert first.read_bytes() == second.read_bytes()
    assert load_path(export_corpus(corpus, tmp_path / "c.json")).fingerprint() == corpus.fingerprint()


def test_yaml_keeps_codes_and_labels_as_text() -> None:
    text = corpus_yaml(load_demo())
    assert text.startswith("# clauseguard corpus, interchange format v1\n# fingerprint sha256:")
    assert "effective_start: 20" in text  # dates plain, as the format writes them


def test_ingested_store_exports_loads_and_exports_identically(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pdf = write_terms_pdf(tmp_path / "terms.pdf", Edition("CG-2021-09"))
    docx = write_terms_docx(tmp_path / "rider.docx", "PR-1")
    assert main(["ingest", str(pdf), "--document", "GRP-TERMS", "--version", "CG-2021-09", "--effective-start",
                 "2021-09-01", "--kind", "policy_terms", "--payer", "ALD", "--plan", "GRP-DENTAL",
                 "--code", "D6010", "--code", "95249"]) == 0
    assert main(["ingest", str(docx), "--document", "GRP-RID-PHYSIO", "--version", "PR-1", "--effective-start",
                 "2022-01-01", "--kind", "rider", "--payer", "ALD", "--plan", "GRP-DENTAL"]) == 0
    capsys.readouterr()
    first = tmp_path / "out" / "store.yaml"
    assert main(["corpus", "export", str(first), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["documents"] == 2 and report["path"] == str(first)
    text = first.read_text(encoding="utf-8")
    assert "- '95249'" in text and "sha256:" in text and "page_label: '32'" in text
    second = tmp_path / "again.yaml"
    assert main(["--corpus", str(first), "corpus", "export", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()
    corpus = load_path(first)
    terms = next(d for d in corpus.documents if d.id == "GRP-TERMS")
    assert terms.versions[0].source is not None and terms.versions[0].source.reader == "pdf"


def test_export_into_a_folder(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["--corpus", "demo", "corpus", "export", str(tmp_path)]) == 0
    assert "Exported the bundled demo corpus" in capsys.readouterr().out
    assert load_path(tmp_path / "corpus.yaml").fingerprint() == load_demo().fingerprint()
