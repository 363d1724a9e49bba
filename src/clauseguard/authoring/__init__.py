"""Criteria authoring: when the compiler cannot read a clause, an analyst can — checked, versioned, audited.

    draft.py         the sheet an analyst starts from: per deciding clause its tree, or holes
    sheet.py         the sheet file format (spans as text, offsets and text, or offsets alone)
    check.py         a sheet held against the corpus: spans, kinds, references, every sentence covered
    plain.py         a tree read back in plain words
    revisions.py     append-only, content-addressed revisions in the store; four-eyes approval
    submit.py        a checked sheet written as revisions, all or none
    disagreement.py  an authored tree against the compiler's, over generated case shapes
    report.py        the reading report with the revisions in use
    view.py          what the page and the API show of a clause's criteria and history
    pinning.py       the revisions an audited answer was made with, fetched again for its replay

The reader uses the newest approved revision of a clause before the corpus's own criteria and the
compiler (`reading.clause_criteria`); nothing here judges a request.
"""
