"""PHI: finding it in user text, keeping it out of everything that leaves the process, sealing originals.

    redaction.py   Redaction.of(text): regions found once per text; redact(text)
    patterns.py    identifier patterns (data/privacy/patterns.yaml, RE2)
    phones.py      phone numbers (phonenumbers) and long digit runs
    addresses.py   street addresses (pyap, on bounded windows)
    presidio_ids.py  presidio's validated id recognizers on a blank spaCy pipeline
    names.py       person names: cues, the name table, the vocabulary rule
    name_terms.py  the signs that a capitalised run is a clinical term (eponyms, products), not a person
    name_lowercase.py  names typed in lower case after a title or label ("pt john mwangi")
    name_tokens.py the tokens and scripts the name finder reads
    rows.py        dates of birth without a label before them: demographics rows, after a name, restated
    form_rows.py   a form row's date under a label no cue knows, unless the label names another event
    recurrences.py an identifier found once, redacted where its exact text recurs
    tables.py      the word tables (built once by build_tables.py, committed)
    scrub.py       a request's PHI values scrubbed from every string of a response, trace or log line
    seal.py        the original request sealed with AES-GCM for replay (never stored in clear)
    leak_categories.py  a corpus run's leaks as structural categories only (how a blind holdout is looked at)

Nothing here downloads, and nothing here keeps a PHI value anywhere but in memory.
"""

from clauseguard.privacy.redaction import Redaction, redact

__all__ = ["Redaction", "redact"]
