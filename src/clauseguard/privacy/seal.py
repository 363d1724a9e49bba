"""Sealed originals: the unredacted request replay needs, encrypted with AES-GCM, never stored in clear.

The key is 32 random bytes in a file the operator names (CLAUSEGUARD_SEAL_KEY) or `seal.key` under
CLAUSEGUARD_HOME, created 0600 on first use. A sealed blob is `b"cg1" + nonce(12) + ciphertext+tag`;
the request's canonical JSON is the plaintext and the format tag is bound as associated data. It
never logs a request, never writes plaintext to disk, and refuses a key file others can read.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any, Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from clauseguard.errors import ClauseguardError

KEY_ENV: Final = "CLAUSEGUARD_SEAL_KEY"
KEY_FILE: Final = "seal.key"
_MAGIC: Final = b"cg1"
_NONCE: Final = 12


class SealError(ClauseguardError):
    """A key file that is missing, unreadable or open to others, or a sealed blob that does not open."""


def key_path() -> Path:
    """The operator's key file (CLAUSEGUARD_SEAL_KEY), else CLAUSEGUARD_HOME/seal.key."""
    given = os.environ.get(KEY_ENV)
    if given:
        return Path(given)
    from clauseguard.corpus.sources import home_dir

    return home_dir() / KEY_FILE


def load_key(path: Path | None = None, *, create: bool = True) -> bytes:
    """The 32-byte key; created 0600 (atomically, never overwritten) when absent and `create`."""
    path = path or key_path()
    if not path.exists():
        if not create or os.environ.get(KEY_ENV):
            raise SealError(f"seal key {path} does not exist; create it (32 random bytes, mode 0600) or unset {KEY_ENV}")
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return load_key(path, create=False)
        with os.fdopen(fd, "wb") as handle:
            handle.write(AESGCM.generate_key(bit_length=256))
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise SealError(f"seal key {path} is readable by others (mode {mode:o}); chmod 600 {path}")
    key = path.read_bytes()
    if len(key) != 32:
        raise SealError(f"seal key {path} holds {len(key)} bytes; an AES-256 key is 32 bytes")
    return key


def seal(request: dict[str, Any], key: bytes | None = None) -> bytes:
    """The request, sealed: only a holder of the key can read it back."""
    plaintext = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    nonce = os.urandom(_NONCE)
    return _MAGIC + nonce + AESGCM(key or load_key()).encrypt(nonce, plaintext, _MAGIC)


def unseal(blob: bytes, key: bytes | None = None) -> dict[str, Any]:
    """The request a `seal` call sealed; SealError when the blob was altered or the key is another."""
    if not blob.startswith(_MAGIC) or len(blob) < len(_MAGIC) + _NONCE + 16:
        raise SealError("not a sealed request (expected the cg1 format)")
    nonce = blob[len(_MAGIC):len(_MAGIC) + _NONCE]
    try:
        plaintext = AESGCM(key or load_key(create=False)).decrypt(nonce, blob[len(_MAGIC) + _NONCE:], _MAGIC)
    except InvalidTag as exc:
        raise SealError("the sealed request does not open with this key (altered, or sealed with another key)") from exc
    data = json.loads(plaintext.decode("utf-8"))
    if not isinstance(data, dict):
        raise SealError("the sealed request is not a JSON object")
    return data
