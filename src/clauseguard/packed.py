"""Packed files: a holdout suite or corpus stored gzip-compressed and base64-encoded (`*.gz.b64`).

It owns turning a plain file into its packed form and back, in memory, so a grep of the tree never
shows a holdout sentence and nobody reads one by accident. It is not encryption (that is the PHI
seal's job): anyone who decodes on purpose can read it. It never writes a decoded file to disk.

    python -m clauseguard.packed pack PLAIN OUT.gz.b64    # an author packs a file
    python -m clauseguard.packed check OUT.gz.b64         # prints only its size and a hash
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import sys
import textwrap
from pathlib import Path
from typing import Final

SUFFIX: Final = ".gz.b64"


def is_packed(path: Path | str) -> bool:
    return str(path).endswith(SUFFIX)


def pack(text: str) -> str:
    """Gzip (mtime 0, so the same text always packs to the same bytes) then base64, 76 columns."""
    packed = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
    encoded = base64.b64encode(packed).decode("ascii")
    return "\n".join(textwrap.wrap(encoded, 76)) + "\n"


def unpack(contents: str) -> str:
    """The plain text of a packed file's contents."""
    raw = base64.b64decode("".join(contents.split()), validate=True)
    return gzip.decompress(raw).decode("utf-8")


def read_text(path: Path | str) -> str:
    """A suite or corpus file's text, unpacked in memory when it is packed."""
    raw = Path(path).read_text(encoding="utf-8")
    return unpack(raw) if is_packed(path) else raw


def plain_name(path: Path | str) -> str:
    """`search.json.gz.b64` -> `search.json`: the name that says which format the text is in."""
    name = Path(path).name
    return name[: -len(SUFFIX)] if is_packed(name) else name


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "pack":
        source, target = Path(argv[1]), Path(argv[2])
        if not is_packed(target):
            print(f"error: the packed file's name must end in {SUFFIX}", file=sys.stderr)
            return 2
        text = source.read_text(encoding="utf-8")
        target.write_text(pack(text), encoding="utf-8")
        if unpack(target.read_text(encoding="utf-8")) != text:  # pragma: no cover - a broken codec
            print("error: the packed file does not decode to its source", file=sys.stderr)
            return 3
        print(f"packed {len(text)} characters into {target}")
        return 0
    if len(argv) == 2 and argv[0] == "check":
        text = read_text(argv[1])
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
        print(f"{argv[1]}: decodes to {len(text)} characters, sha256 {digest}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
