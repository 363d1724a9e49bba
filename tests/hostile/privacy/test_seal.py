"""Sealed originals: AES-GCM, a 0600 key file, nothing in clear, tampering refused."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from clauseguard.privacy.seal import SealError, key_path, load_key, seal, unseal

REQUEST = {"narrative": "Patient Aoife Byrne, DOB 03/04/1980.", "question": "Covered?"}


def test_round_trip_and_no_clear_text(isolated_home: Path) -> None:
    blob = seal(REQUEST)
    assert b"Aoife" not in blob and b"1980" not in blob
    assert unseal(blob) == REQUEST
    assert stat.S_IMODE(key_path().stat().st_mode) == 0o600
    assert key_path().parent == isolated_home


def test_tampering_and_another_key_are_refused(isolated_home: Path) -> None:
    blob = bytearray(seal(REQUEST))
    blob[-1] ^= 1
    with pytest.raises(SealError, match="does not open"):
        unseal(bytes(blob))
    with pytest.raises(SealError, match="does not open"):
        unseal(seal(REQUEST), key=os.urandom(32))


def test_a_key_others_can_read_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = tmp_path / "operator.key"
    key.write_bytes(os.urandom(32))
    key.chmod(0o644)
    monkeypatch.setenv("CLAUSEGUARD_SEAL_KEY", str(key))
    with pytest.raises(SealError, match="chmod 600"):
        load_key()
    key.chmod(0o600)
    assert unseal(seal(REQUEST)) == REQUEST
