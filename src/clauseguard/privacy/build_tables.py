"""Build the redactor's word tables once, at build time: names, ordinary words, clinical words.

Run `make phi-tables` (a throwaway venv with the build-only packages) or
`python -m clauseguard.privacy.build_tables OUT_DIR` where names-dataset, wordfreq, english-words,
simple-icd-10-cm and drug-named-entity-recognition are installed. The outputs are small, sorted,
gzip-compressed text files committed under `clauseguard/data/privacy/`; the running redactor reads
only those and never imports any of these packages (names-dataset alone is 1.9 GB in memory).
"""

from __future__ import annotations

import bz2
import gzip
import pickle  # noqa: S403 - the build reads the pickles the two data packages ship, nothing else
import re
import sys
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any

NAME_RANK = 1500  # a name must rank in the top NAME_RANK of at least one country of names-dataset
COMMON_NAME_RANK = 100  # names this common stay names even where a clinical term uses them
WEAK_ZIPF = 3.3  # a name that is also an English word this common is "weak": redacted only in a name position
ORDINARY_ZIPF = 2.0  # dictionary words at least this common are ordinary vocabulary
TOP_WORDS = 50_000  # plus the most frequent English words whatever the dictionaries say

_NAME_SHAPE = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def _folded(text: str) -> str:
    """Lower case without diacritics, as the redactor looks words up: "Waldenström" and "Behçet" are
    kept whole ("waldenstrom", "behcet") instead of being cut at the accented letter."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _ranked_names(pickle_path: Path) -> dict[str, int]:
    with gzip.open(pickle_path, "rb") as handle:
        data: dict[str, dict[str, Any]] = pickle.load(handle)  # noqa: S301 - the package's own data file
    out: dict[str, int] = {}
    for name, info in data.items():
        ranks = [r for r in (info.get("rank") or {}).values() if r is not None]
        if ranks and min(ranks) <= NAME_RANK and _NAME_SHAPE.fullmatch(name) and len(name) >= 2:
            out[name] = min(ranks)
    return out


def _icd_words() -> set[str]:
    import simple_icd_10_cm as icd  # type: ignore[import-not-found, import-untyped, unused-ignore]

    notes = (icd.get_inclusion_term, icd.get_includes, icd.get_excludes1, icd.get_excludes2, icd.get_code_also,
             icd.get_code_first, icd.get_use_additional_code, icd.get_notes)
    words: set[str] = set()
    for code in icd.get_all_codes(with_dots=False):
        texts = [icd.get_description(code)]
        for note in notes:
            found = note(code)
            texts.extend(found if isinstance(found, list) else [found] if found else [])
        for text in texts:
            words.update(w.removesuffix("'s") for w in _WORD.findall(_folded(str(text))))
    return words


def _drug_words() -> set[str]:
    import drug_named_entity_recognition as dner  # type: ignore[import-not-found, import-untyped, unused-ignore]

    path = Path(dner.__file__).parent / "drug_ner_dictionary.pkl.bz2"
    with bz2.open(path, "rb") as handle:
        data = pickle.load(handle)  # noqa: S301 - the package's own data file
    words: set[str] = set()
    for variant in data["drug_variant_to_canonical"]:
        words.update(w for w in _WORD.findall(_folded(str(variant))) if len(w) >= 4)
    return words


def _write(path: Path, lines: Iterable[str]) -> int:
    rows = sorted(set(lines))
    # mtime=0: the same inputs give the same bytes
    with gzip.GzipFile(filename="", mode="wb", fileobj=path.open("wb"), mtime=0) as handle:
        handle.write(("\n".join(rows) + "\n").encode("utf-8"))
    return len(rows)


def build_clinical(out_dir: Path) -> dict[str, int]:
    """The clinical table alone (ICD-10-CM and the drug dictionary; no names-dataset needed)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    clinical = _icd_words() | _drug_words()
    return {"clinical": _write(out_dir / "clinical.txt.gz", (w for w in clinical if len(w) >= 3))}


def build(out_dir: Path) -> dict[str, int]:
    import names_dataset  # type: ignore[import-not-found, import-untyped, unused-ignore]
    from english_words import get_english_words_set  # type: ignore[import-not-found, import-untyped, unused-ignore]
    from wordfreq import top_n_list, zipf_frequency  # type: ignore[import-not-found, import-untyped, unused-ignore]

    data = Path(names_dataset.__file__).parent / "v3"
    first = _ranked_names(data / "first_names.pkl.gz")
    last = _ranked_names(data / "last_names.pkl.gz")
    clinical = _icd_words() | _drug_words()
    # Webster's 2nd keeps proper nouns capitalised, so its lower-case entries are ordinary words
    # (GCIDE capitalises every headword and cannot tell "smith" from "John").
    dictionary = {w for w in get_english_words_set(["web2"], lower=False, alpha=True) if w.islower()}

    def weak(name: str) -> bool:
        word = name.lower()
        rank = min(first.get(name, NAME_RANK), last.get(name, NAME_RANK))
        # A clinical word weakens a name only when the name is not among the most common ones:
        # "Parkinson" and "Hashimoto" are eponyms first, "John" (St John's wort) is a name first.
        return (len(word) <= 2 or (word in clinical and rank > COMMON_NAME_RANK)
                or (word in dictionary and zipf_frequency(word, "en") >= WEAK_ZIPF))

    names = []
    strong: set[str] = set()
    for name in sorted(set(first) | set(last)):
        flags = ("F" if name in first else "") + ("L" if name in last else "")
        if weak(name):
            flags += "w"
        else:
            strong.add(name.lower())
        names.append(f"{name}\t{flags}")
    ordinary = {w for w in dictionary if _WORD.fullmatch(w) and zipf_frequency(w, "en") >= ORDINARY_ZIPF}
    ordinary |= {w for w in top_n_list("en", TOP_WORDS) if _WORD.fullmatch(w)}
    ordinary -= strong
    out_dir.mkdir(parents=True, exist_ok=True)
    return {
        "names": _write(out_dir / "names.tsv.gz", names),
        "ordinary": _write(out_dir / "ordinary.txt.gz", ordinary),
        "clinical": _write(out_dir / "clinical.txt.gz", (w for w in clinical if len(w) >= 3)),
    }


if __name__ == "__main__":  # pragma: no cover - run by `make phi-tables`
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    target = Path(args[0]) if args else Path(__file__).parents[1] / "data" / "privacy"
    built = build_clinical(target) if "--clinical-only" in sys.argv else build(target)
    for table, count in built.items():
        print(f"{table}: {count} rows -> {target}")
