"""Who may do what at the table: users, roles, passwords, tokens and sessions.

Users live in a JSON file (`[api] users`, `tablectl users add|remove|list`). People
(dealer, pit, admin) have a password, kept as an scrypt hash; devices and
integrations (betting terminals, card readers, a test rig) have a bearer token,
kept as its SHA-256 (a token is 256 random bits: a fast hash cannot be searched).
A browser logs in with a password and gets a session cookie; its writes also carry
the session's CSRF token in a header. The daemon can also issue tokens that live
only in its memory (`issue_token`), for harnesses it runs itself.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

USERS_FORMAT = "tablectl-users/1"
ROLES = ("dealer", "pit", "admin", "device")
PEOPLE = ("dealer", "pit", "admin")
# The event kinds each role may send. Only the pit resolves a misdeal or voids a round.
WRITES: dict[str, frozenset[str]] = {
    "device": frozenset({"bet", "deal", "card", "do", "shoe"}),
    "dealer": frozenset({"bet", "deal", "card", "do", "shoe", "flag"}),
    "admin": frozenset({"bet", "deal", "card", "do", "shoe", "flag"}),
    "pit": frozenset({"bet", "deal", "card", "do", "shoe", "flag", "resolve"}),
}
# scrypt: 16 MiB and about 50-100 ms per check on a Raspberry Pi 4.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
SESSION_S = 12 * 3600.0
LOGIN_FAILURES = 5  # failed logins per user (or per address) ...
LOGIN_WINDOW_S = 60.0  # ... within this many seconds, then refused for the rest of it
NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.@")


class UsersError(Exception):
    """The users file cannot be read or written; the message says what to do."""


@dataclass(frozen=True)
class Principal:
    """Who is calling: a user's name and role, and how they proved it."""

    name: str
    role: str
    via: str  # "token", "session"
    csrf: str | None = None  # a session's CSRF token

    @property
    def source(self) -> str:
        """The journal's source for this caller's events, e.g. "pit:anna"."""
        return f"{self.role}:{self.name}"

    def may_send(self, kind: str) -> bool:
        return kind in WRITES.get(self.role, frozenset())


def hash_password(password: str) -> str:
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P,
                            maxmem=64 * 1024 * 1024, dklen=32)
    return "$".join(("scrypt", str(SCRYPT_N), str(SCRYPT_R), str(SCRYPT_P),
                     _b64(salt), _b64(digest)))


def check_password(password: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        expected = base64.b64decode(digest)
        actual = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=int(n),
                                r=int(r), p=int(p), maxmem=64 * 1024 * 1024,
                                dklen=len(expected))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, expected)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return "tct_" + secrets.token_urlsafe(32)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def check_name(name: str) -> str | None:
    """Why `name` cannot be a user's name, None if it can."""
    if not 1 <= len(name) <= 64 or not set(name) <= NAME_CHARS:
        return "a user's name is 1 to 64 letters, digits or -_.@"
    return None


class UsersFile:
    """The users file: read on each change of its modification time, written whole
    (to a new file, then renamed over the old one, readable by its owner only)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def load(self) -> dict[str, dict[str, Any]]:
        if not self.path.exists():
            return {}
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise UsersError(f"{self.path}: cannot read the users file ({error})") from error
        if not isinstance(doc, dict) or doc.get("format") != USERS_FORMAT or not isinstance(
                doc.get("users"), dict):
            raise UsersError(f"{self.path} is not a tablectl users file ({USERS_FORMAT})")
        return {str(name): dict(entry) for name, entry in doc["users"].items()
                if isinstance(entry, dict) and entry.get("role") in ROLES}

    def save(self, users: dict[str, dict[str, Any]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"format": USERS_FORMAT, "users": users}, indent=2, sort_keys=True)
        temporary = self.path.with_name(self.path.name + ".new")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            out.write(text + "\n")
        os.replace(temporary, self.path)

    def add_person(self, name: str, role: str, password: str) -> None:
        users = self.load()
        users[name] = {"role": role, "password": hash_password(password)}
        self.save(users)

    def add_device(self, name: str, role: str = "device",
                   expires_days: float | None = None) -> str:
        """Add (or renew) a token user; returns the token, shown only now."""
        token = new_token()
        users = self.load()
        entry: dict[str, Any] = {"role": role, "token_sha256": token_digest(token)}
        if expires_days is not None:
            entry["expires"] = time.time() + expires_days * 86400.0
        users[name] = entry
        self.save(users)
        return token

    def remove(self, name: str) -> bool:
        users = self.load()
        if users.pop(name, None) is None:
            return False
        self.save(users)
        return True


class Authenticator:
    """Checks tokens, passwords and sessions against the users file (re-read when it
    changes, so `tablectl users` takes effect without a restart)."""

    def __init__(self, users: UsersFile | None, clock: Callable[[], float] = time.time) -> None:
        self.users = users
        self.clock = clock
        self._lock = threading.Lock()
        self._loaded: tuple[float, dict[str, dict[str, Any]]] | None = None
        self._tokens: dict[str, Principal] = {}  # digest -> a token this process issued
        self._sessions: dict[str, tuple[Principal, float]] = {}
        self._failures: dict[str, list[float]] = {}
        self._dummy: str | None = None

    def _table(self) -> dict[str, dict[str, Any]]:
        if self.users is None:
            return {}
        try:
            mtime = self.users.path.stat().st_mtime
        except OSError:
            return {}
        with self._lock:
            if self._loaded is None or self._loaded[0] != mtime:
                self._loaded = (mtime, self.users.load())
            return self._loaded[1]

    def issue_token(self, name: str, role: str) -> str:
        """A token valid while this process runs (not written anywhere)."""
        token = new_token()
        with self._lock:
            self._tokens[token_digest(token)] = Principal(name, role, "token")
        return token

    def by_token(self, token: str) -> Principal | None:
        digest = token_digest(token)
        with self._lock:
            issued = self._tokens.get(digest)
        if issued is not None:
            return issued
        for name, entry in self._table().items():
            stored = entry.get("token_sha256")
            if isinstance(stored, str) and hmac.compare_digest(stored, digest):
                expires = entry.get("expires")
                if isinstance(expires, int | float) and expires < self.clock():
                    return None
                return Principal(name, str(entry["role"]), "token")
        return None

    def login_blocked(self, keys: tuple[str, ...]) -> float:
        """Seconds until a login for these keys (user, address) may be tried again."""
        now = self.clock()
        wait = 0.0
        with self._lock:
            for key in keys:
                recent = [t for t in self._failures.get(key, []) if now - t < LOGIN_WINDOW_S]
                self._failures[key] = recent
                if len(recent) >= LOGIN_FAILURES:
                    wait = max(wait, LOGIN_WINDOW_S - (now - recent[0]))
        return wait

    def login(self, name: str, password: str,
              keys: tuple[str, ...]) -> tuple[str, Principal] | None:
        """A new session (its cookie value and principal) for a person whose password
        is right; None otherwise (and the failure counts against every key)."""
        entry = self._table().get(name)
        stored = entry.get("password") if entry else None
        if entry is None or not isinstance(stored, str):
            # The same work for an unknown user, so timing does not tell names apart.
            check_password(password, self._dummy_hash())
            ok = False
        else:
            ok = check_password(password, stored)
        if not ok or entry is None:
            with self._lock:
                for key in keys:
                    self._failures.setdefault(key, []).append(self.clock())
            return None
        session = secrets.token_urlsafe(32)
        principal = Principal(name, str(entry["role"]), "session", secrets.token_urlsafe(24))
        with self._lock:
            self._sessions[token_digest(session)] = (principal, self.clock() + SESSION_S)
            for key in keys:
                self._failures.pop(key, None)
        return session, principal

    def _dummy_hash(self) -> str:
        if self._dummy is None:
            self._dummy = hash_password(secrets.token_hex(8))
        return self._dummy

    def by_session(self, session: str) -> Principal | None:
        digest = token_digest(session)
        now = self.clock()
        with self._lock:
            found = self._sessions.get(digest)
            if found is None:
                return None
            principal, expires = found
            if expires < now:
                del self._sessions[digest]
                return None
        # A user removed (or whose role changed) since the login is logged out.
        entry = self._table().get(principal.name)
        if entry is None or entry.get("role") != principal.role:
            self.logout(session)
            return None
        return principal

    def logout(self, session: str) -> None:
        with self._lock:
            self._sessions.pop(token_digest(session), None)

    def has_role(self, role: str) -> bool:
        return any(entry.get("role") == role for entry in self._table().values())

