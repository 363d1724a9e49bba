"""Presidio's identifier recognizers (validated ids: cards, IBANs, NHS and Medicare numbers, NPIs,
passports, licences, crypto wallets) on a blank spaCy pipeline, fully offline.

No spaCy model is loaded (presidio's default would download one) and tldextract is given its bundled
suffix snapshot, never a fetch. Presidio finds no names here: names are `names.py`'s. It finds
regions only; every text it sees is first capped in length, so its regexes run over bounded input.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, Final

from clauseguard.privacy.patterns import Region

# Recognizers whose values are identifiers a narrative may carry; each validates its matches.
RECOGNIZERS: Final = (
    "CreditCardRecognizer", "IbanRecognizer", "CryptoRecognizer", "UsSsnRecognizer", "UsItinRecognizer",
    "UsPassportRecognizer", "UsBankRecognizer", "MedicalLicenseRecognizer", "NhsRecognizer", "UkNinoRecognizer",
    "AuMedicareRecognizer", "InAadhaarRecognizer", "InPanRecognizer", "EsNifRecognizer", "PlPeselRecognizer",
    "SgFinRecognizer", "UsMbiRecognizer", "UsNpiRecognizer", "IpRecognizer", "MacAddressRecognizer",
)
LABELS: Final = {"IP_ADDRESS": "IP", "MAC_ADDRESS": "ID", "US_SSN": "SSN", "UK_NHS": "ID"}
MIN_SCORE: Final = 0.4
_DIGIT: Final = re.compile(r"[0-9]")
_LONE_TOKEN: Final = 40
WINDOW: Final = 2_000  # characters per call: presidio's own patterns then see bounded input
# Windows per text: past 64 KB, validated ids are left to phones.py (every run of 7+ digits is redacted
# there anyway), so presidio's cost per request is bounded whatever the text's length.
MAX_WINDOWS: Final = 64


@cache
def _analyzer() -> Any:
    import spacy
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    from presidio_analyzer import predefined_recognizers as known
    from presidio_analyzer.nlp_engine import SpacyNlpEngine

    class BlankSpacyEngine(SpacyNlpEngine):  # type: ignore[misc]
        """spaCy's blank English tokenizer: nothing to download, no NER."""

        def load(self) -> None:
            self.nlp = {"en": spacy.blank("en")}  # type: ignore[assignment]

    engine = BlankSpacyEngine(models=[{"lang_code": "en", "model_name": "blank:en"}])
    engine.load()
    registry = RecognizerRegistry(supported_languages=["en"])
    for name in RECOGNIZERS:
        recognizer = getattr(known, name, None)
        if recognizer is not None:
            registry.add_recognizer(recognizer())
    return AnalyzerEngine(registry=registry, nlp_engine=engine, supported_languages=["en"])


def find_presidio_ids(text: str) -> list[Region]:
    """Identifier regions presidio's validated recognizers find, window by window. A lone token (a contract
    id "CT-48213", a code "E10.9") is left to the pattern detectors, which read every string anyway: a
    search for a contract then loads no spaCy at all."""
    if _DIGIT.search(text) is None or (len(text) <= _LONE_TOKEN and not any(ch.isspace() for ch in text)):
        return []
    analyzer = _analyzer()
    out: list[Region] = []
    step = WINDOW // 2
    for offset in range(0, min(max(len(text) - step, 1), MAX_WINDOWS * step), step):
        chunk = text[offset:offset + WINDOW]
        for found in analyzer.analyze(chunk, language="en", score_threshold=MIN_SCORE):
            out.append((offset + found.start, offset + found.end, LABELS.get(found.entity_type, "ID")))
    return out
