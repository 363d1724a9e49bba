"""One text toolkit for every reader: normalising, sentences, word tokens with offsets, stems.

The fact reader, the rule compiler, retrieval, the verifier and preflight all take their text from
here, so a word, a sentence and a stem mean the same thing everywhere. Nothing here knows a policy
or a clinical term: vocabulary is data elsewhere.
"""

from clauseguard.text.normalise import fold, normalise, squash
from clauseguard.text.segment import Sentence, pieces, sentences
from clauseguard.text.stem import stem, stems
from clauseguard.text.tokens import STOP_WORDS, Token, content_words, terms, tokenize, words

__all__ = [
    "STOP_WORDS", "Sentence", "Token", "content_words", "fold", "normalise", "pieces", "sentences", "squash", "stem",
    "stems", "terms", "tokenize", "words",
]
