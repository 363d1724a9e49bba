"""Readers for corpus formats other than interchange v1, each turned into a v1 `Corpus`.

Each module offers `detect(data) -> bool` (recognise the format by its keys, never by its content)
and `import_corpus(file, data) -> Corpus`; the loader then checks cross-references and normalises.
An importer never repairs or guesses: anything it does not know is a CorpusError naming the key path.
"""
