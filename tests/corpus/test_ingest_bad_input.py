"""Bad input to `clauseguard ingest`: a message naming the file and what would be valid, exit 2, one
line on stderr, nothing on stdout, and nothing stored."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from clauseguard.corpus.sources import persistent_store_path
from clauseguard.corpus.store import SqliteStore
from clauseguard.interfaces import cli
from clauseguard.interfaces.cli import main
from clauseguard.interfaces.ingest_commands import register
from tests.corpus.readers.documents import Edition, write_scanned_pdf, write_terms_pdf


@pytest.fixture(autouse=True)
def _commands() -> None:
    register(cli.app, cli.corpus_app)


def _terms(tmp: Path) -> Path:
    return write_terms_pdf(tmp / "terms.pdf", Edition("CG-2021-09"))


def encrypted(tmp: Path) -> Path:
    writer = PdfWriter(clone_from=PdfReader(str(_terms(tmp))))
    writer.encrypt("secret")
    path = tmp / "encrypted.pdf"
    writer.write(str(path))
    return path


def truncated(tmp: Path) -> Path:
    data = _terms(tmp).read_bytes()
    path = tmp / "truncated.pdf"
    path.write_bytes(data[: len(data) // 2])
    return path


def images_only(tmp: Path) -> Path:
    from fpdf import FPDF
    from PIL import Image

    pdf = FPDF(format="A4")
    for _ in range(2):
        pdf.add_page()
        pdf.image(Image.new("RGB", (600, 800), "white"), x=10, y=10, w=180)
    path = tmp / "scan-only.pdf"
    pdf.output(str(path))
    return path


def zero_bytes(tmp: Path) -> Path:
    path = tmp / "empty.pdf"
    path.write_bytes(b"")
    return path


def zip_not_docx(tmp: Path) -> Path:
    path = tmp / "photos.docx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("holiday/IMG_0001.txt", "not a Word document")
    return path


def scripts_only(tmp: Path) -> Path:
    path = tmp / "policy.html"
    path.write_text(
        "<!doctype html><html><head><title>Policy</title><script src='app.js'></script></head>"
        "<body><div id='root'></div><script>render(document.getElementById('root'))</script></body></html>",
        encoding="utf-8",
    )
    return path


def not_a_pdf(tmp: Path) -> Path:
    path = tmp / "terms.pdf"
    path.write_text("<html><body>a web page saved with the wrong suffix</body></html>", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (encrypted, "is encrypted (password-protected); save an unencrypted copy"),
        (truncated, "is truncated (no %%EOF at its end"),
        (images_only, "no text layer: OCR needed (it has only images"),
        (zero_bytes, "is empty (0 bytes); give the complete PDF file"),
        (zip_not_docx, "cannot be read as a Word .docx file: it is a ZIP archive but not a Word document"),
        (scripts_only, "its content is made by scripts (2 <script> element(s), no text outside them)"),
        (not_a_pdf, "cannot be read as a PDF: it does not start with %PDF-"),
    ],
    ids=lambda v: v.__name__ if callable(v) else "",
)
def test_bad_input_exits_2_naming_the_file_and_stores_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, make: Callable[[Path], Path], says: str
) -> None:
    path = make(tmp_path)
    code = main(["ingest", str(path), "--document", "GRP-TERMS", "--version", "v1", "--effective-start", "2024-01-01",
                 "--kind", "policy_terms", "--payer", "ALD", "--json"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith(f"error: {path}: ") and says in captured.err
    store_file = persistent_store_path(None)
    if store_file.exists():
        with SqliteStore(store_file) as store:
            assert store.is_empty()


def test_a_page_of_images_among_pages_of_text_names_the_page(tmp_path: Path) -> None:
    from clauseguard.corpus.readers import pdf
    from clauseguard.errors import CorpusError

    path = write_scanned_pdf(tmp_path / "scanned.pdf")
    with pytest.raises(CorpusError, match=r"no text layer: OCR needed \(page 2 has no text, only images"):
        pdf.read(path)
