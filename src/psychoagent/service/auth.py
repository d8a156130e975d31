"""Bearer keys for the service: each key may use a list of namespaces ("*" for all).

keys.toml::

    [[keys]]
    key = "a-long-random-secret"
    namespaces = ["alice", "bob"]

    [[keys]]
    key = "another-secret"
    namespaces = ["*"]
"""

from __future__ import annotations

import hmac
import ipaddress
import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MIN_KEY_CHARS = 16
"""Shorter secrets are guessable; 16 random characters are well beyond brute force over HTTP."""


class KeyEntry(BaseModel):
    """One bearer key and the namespaces it may read and write."""

    model_config = ConfigDict(extra="forbid")

    key: str = Field(..., min_length=MIN_KEY_CHARS)
    namespaces: list[str] = Field(..., min_length=1)


class KeyFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    keys: list[KeyEntry] = Field(..., min_length=1)


class KeyRing:
    """Checks a presented key and the namespaces it grants, in constant time per key."""

    def __init__(self, entries: list[KeyEntry]) -> None:
        self.entries = entries

    @classmethod
    def load(cls, path: Path) -> KeyRing:
        """Read keys.toml; raises ValueError naming the file and the field at fault."""
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ValueError(f"--keys: cannot read {path}: {exc.strerror}") from exc
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"--keys: {path} is not valid TOML: {exc}") from exc
        try:
            parsed = KeyFile.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"])
            raise ValueError(f"--keys: {path}: field {field!r}: {err['msg']}") from exc
        if len({e.key for e in parsed.keys}) != len(parsed.keys):
            raise ValueError(f"--keys: {path}: the same key is listed twice")
        return cls(parsed.keys)

    def namespaces_of(self, presented: str) -> list[str] | None:
        """The namespaces a key may use, or None for an unknown key."""
        found: list[str] | None = None
        for entry in self.entries:  # compare against every entry so timing does not reveal which matched
            if hmac.compare_digest(entry.key.encode(), presented.encode()):
                found = entry.namespaces
        return found

    def allows(self, presented: str, namespace: str) -> bool | None:
        """True if the key may use the namespace, False if not, None if the key is unknown."""
        granted = self.namespaces_of(presented)
        if granted is None:
            return None
        return "*" in granted or namespace in granted


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
