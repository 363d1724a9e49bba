"""Sealed originals: the unredacted request replay needs, encrypted with AES-GCM, never stored in clear.

The key is 32 random bytes in a file the operator names (CLAUSEGUARD_SEAL_KEY) or `seal.key` under
CLAUSEGUARD_HOME, created 0600 on first use. A sealed blob is `b"cg1" + nonce(12) + ciphertext+tag`;
the request's canonical JSON is the plaintext and the format tag is bound as associated data. The
audit log stores the blob beside the redacted request; `original_request` opens it for replay and
impact. It never logs a request, never writes plaintext to disk, and refuses a key file others can read.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from clauseguard.errors import EnvironmentFailure

if TYPE_CHECKING:
    from clauseguard.audit import AuditRecord

KEY_ENV: Final = "CLAUSEGUARD_SEAL_KEY"
KEY_FILE: Final = "seal.key"
_MAGIC: Final = b"cg1"
_NONCE: Final = 12


class SealError(EnvironmentFailure):
    """A key file that is missing, unreadable or open to others, or a sealed blob that does not open.

    An environment failure (CLI exit 3, HTTP 503): without its key no answer can be audited with its
    original, so none goes out; `resource` is the key file or the assertion whose blob did not open."""


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
        if os.environ.get(KEY_ENV):
            raise SealError(str(path), f"the seal key {KEY_ENV} names does not exist; create it (32 random "
                                       f"bytes, mode 0600) or unset {KEY_ENV}")
        if not create:
            raise SealError(str(path), "the seal key does not exist; restore the key the originals were "
                                       "sealed with (a new key cannot open them)")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return load_key(path, create=False)
        except OSError as exc:
            raise SealError(str(path), f"the seal key cannot be created ({exc.strerror}); make its folder "
                                       f"writable or name an existing key with {KEY_ENV}") from exc
        with os.fdopen(fd, "wb") as handle:
            handle.write(AESGCM.generate_key(bit_length=256))
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError as exc:
        raise SealError(str(path), f"the seal key cannot be read ({exc.strerror})") from exc
    if mode & 0o077:
        raise SealError(str(path), f"the seal key is readable by others (mode {mode:o}); chmod 600 {path}")
    try:
        key = path.read_bytes()
    except OSError as exc:
        raise SealError(str(path), f"the seal key cannot be read ({exc.strerror}); give this user read access") from exc
    if len(key) != 32:
        raise SealError(str(path), f"the seal key holds {len(key)} bytes; an AES-256 key is 32 bytes")
    return key


def seal(request: dict[str, Any], key: bytes | None = None) -> bytes:
    """The request, sealed: only a holder of the key can read it back."""
    plaintext = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    nonce = os.urandom(_NONCE)
    return _MAGIC + nonce + AESGCM(key or load_key()).encrypt(nonce, plaintext, _MAGIC)


def unseal(blob: bytes, key: bytes | None = None, *, what: str = "sealed request") -> dict[str, Any]:
    """The request a `seal` call sealed; SealError when the blob was altered or the key is another."""
    if not blob.startswith(_MAGIC) or len(blob) < len(_MAGIC) + _NONCE + 16:
        raise SealError(what, "not a sealed request (expected the cg1 format)")
    nonce = blob[len(_MAGIC):len(_MAGIC) + _NONCE]
    where = "the given key" if key is not None else f"the key at {key_path()}"
    try:
        plaintext = AESGCM(key or load_key(create=False)).decrypt(nonce, blob[len(_MAGIC) + _NONCE:], _MAGIC)
    except InvalidTag as exc:
        raise SealError(what, f"the sealed request does not open with {where} (altered, or sealed with another "
                              "key); restore the key it was sealed with") from exc
    data = json.loads(plaintext.decode("utf-8"))
    if not isinstance(data, dict):
        raise SealError(what, "the sealed request is not a JSON object")
    return data


def original_request(record: AuditRecord) -> dict[str, Any] | None:
    """The seal hook of replay and impact: an audit row's original request, or None when the row has
    none sealed (written before sealing); SealError when it has one that does not open."""
    if record.request_sealed is None:
        return None
    return unseal(record.request_sealed, what=f"sealed original of {record.assertion_id}")
