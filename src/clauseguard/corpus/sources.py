"""Where the data comes from: `--corpus demo|PATH`, `--store PATH`, or the persistent store at home.

A `--corpus` corpus is always alone in its own store, cached by fingerprint and never mixed with
another; the persistent store is used only without `--corpus`, and the bundled demo stands in for
it while it holds no document. Opening to read never creates the persistent store file.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from clauseguard.corpus.loader import DEMO, load_demo, load_path
from clauseguard.corpus.model import Corpus, empty_corpus
from clauseguard.corpus.store import CorpusStore, SqliteStore
from clauseguard.corpus.store_url import STORE_URL_ENV, configured_store_url, open_store_url, redact_url
from clauseguard.errors import CorpusError, Problem, RequestError

log = logging.getLogger("clauseguard.sources")
Origin = Literal["demo", "path", "home", "demo-while-empty"]
HOME_ENV = "CLAUSEGUARD_HOME"
STORE_FILE = "store.sqlite"
CACHE_DIR = "cache"
EMPTY_FINGERPRINT = empty_corpus().fingerprint()


@dataclass(frozen=True)
class Opened:
    """The store a command reads, the corpus it holds, and where it came from (for humans and logs)."""

    store: CorpusStore
    corpus: Corpus
    origin: Origin
    description: str


def home_dir() -> Path:
    """`CLAUSEGUARD_HOME`, else `$XDG_DATA_HOME/clauseguard`, else `~/.local/share/clauseguard`."""
    home = os.environ.get(HOME_ENV)
    if home:
        return Path(home).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg and Path(xdg).is_absolute():  # the XDG spec says to ignore a relative value
        return Path(xdg) / "clauseguard"
    return Path.home() / ".local" / "share" / "clauseguard"


def persistent_store_path(store_option: str | None) -> Path:
    return Path(store_option).expanduser() if store_option else home_dir() / STORE_FILE


def _short(fingerprint: str) -> str:
    return fingerprint.removeprefix("sha256:")[:12]


def _build_atomically(target: Path, corpus: Corpus, source: str) -> None:
    """Write a store holding `corpus` alone at `target`; readers see no file or a whole one."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".building", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        with SqliteStore(tmp) as store:
            store.add(corpus, source=source)
        tmp.chmod(0o644)  # mkstemp makes it private; a store is ordinary data
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _recorded_fingerprint(path: Path) -> str | None:
    """The fingerprint a store recorded when it was written (its `meta` row), read without rebuilding the
    corpus; None for a file that is not a readable store (the caller then checks it the slow way)."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    return str(row[0]) if row else None


def _store_for(corpus: Corpus, store_option: str | None, source: str) -> tuple[SqliteStore, Path]:
    """The store holding exactly `corpus`: the fingerprint cache, or the `--store` file given."""
    fingerprint = corpus.fingerprint()
    explicit = store_option is not None
    target = (
        persistent_store_path(store_option)
        if explicit
        else home_dir() / CACHE_DIR / f"{fingerprint.removeprefix('sha256:')}.sqlite"
    )
    if target.exists():
        try:
            if not explicit and _recorded_fingerprint(target) == fingerprint:
                return SqliteStore(target), target  # the cache holds its name: nothing to rebuild or re-read
            store = SqliteStore(target)
            held = store.fingerprint()
        except CorpusError as exc:
            if explicit:  # a user's own store is never rebuilt behind their back
                raise
            log.warning("clauseguard: the cached store %s could not be read (%s); it is rebuilt from the %s",
                        target, exc, source)
            target.unlink(missing_ok=True)
            _build_atomically(target, corpus, source)
            return SqliteStore(target), target
        if held == fingerprint:
            return store, target
        if explicit and held == EMPTY_FINGERPRINT:
            store.add(corpus, source=source)  # a new, empty store file given with --store: fill it
            return store, target
        store.close()
        if explicit:
            raise CorpusError(
                [
                    Problem(
                        str(target),
                        "",
                        f"this store holds another corpus (fingerprint {held}) than the {source} "
                        f"({fingerprint}); a --corpus store holds that corpus alone. Give --store a new "
                        "file, or leave --store out to use the cache",
                    )
                ]
            )
        # A cache file whose content is not its name cannot come from this code; rebuild it.
    _build_atomically(target, corpus, source)
    return SqliteStore(target), target


def _demo_opened(store_option: str | None, origin: Origin, why: str = "") -> Opened:
    corpus = load_demo()
    store, where = _store_for(corpus, store_option if origin == "demo" else None, "bundled demo corpus")
    return Opened(
        store,
        corpus,
        origin,
        f"the bundled demo corpus (fingerprint {_short(corpus.fingerprint())}, store {where}){why}",
    )


def open_corpus(corpus_option: str | None, store_option: str | None, store_url: str | None = None) -> Opened:
    """The corpus a command reads, exactly as the CLI contract's "Where the data comes from" says.

    `--corpus demo`: the bundled demo; `--corpus PATH`: that corpus alone (strictly validated;
    CorpusError otherwise), in a store cached by its fingerprint or in the `--store` file given;
    no `--corpus`: the persistent store (`--store-url` / `CLAUSEGUARD_STORE_URL`, else the SQLite
    file) when it holds any document, else the bundled demo.
    """
    if corpus_option == DEMO:
        return _demo_opened(store_option, "demo")
    if corpus_option is not None:
        corpus = load_path(corpus_option)
        source = f"corpus at {corpus_option}"
        store, where = _store_for(corpus, store_option, source)
        return Opened(
            store,
            corpus,
            "path",
            f"the {source} (fingerprint {_short(corpus.fingerprint())}, store {where})",
        )
    url = _url_of(store_option, store_url)
    path = persistent_store_path(store_option)
    location = redact_url(url) if url else str(path)
    if url is not None or path.exists():
        home_store = open_store_url(url) if url is not None else SqliteStore(path)
        if not home_store.is_empty():
            return _home_opened(home_store, home_store.corpus())
        home_store.close()
    return _demo_opened(
        None,
        "demo-while-empty",
        f"; the store at {location} holds no document yet (`clauseguard ingest` adds to it)",
    )


def _url_of(store_option: str | None, store_url: str | None) -> str | None:
    url = configured_store_url(store_url)
    if url is not None and store_option is not None:
        raise RequestError("--store", "give either --store PATH or a store URL (--store-url / "
                           f"{STORE_URL_ENV}), not both")
    return url


def _home_opened(store: CorpusStore, corpus: Corpus) -> Opened:
    count = len(corpus.documents)
    return Opened(
        store, corpus, "home",
        f"the store at {store.location} ({count} document{'s' if count != 1 else ''}, "
        f"fingerprint {_short(corpus.fingerprint())})",
    )


def refreshed(opened: Opened, fingerprint: str) -> Opened | None:
    """The persistent store re-read when another process appended to it since `fingerprint`, else None.

    One cheap read (the fingerprint the last append wrote) per call: what every instance of a shared
    store does before each request, so an ingest through one is seen by all on their next request."""
    if opened.origin != "home":
        return None
    held = opened.store.stored_fingerprint()
    if held is None or held == fingerprint:
        return None
    corpus = opened.store.corpus()
    log.warning("clauseguard: the store at %s changed (fingerprint %s -> %s); answering from the new corpus",
                opened.store.location, _short(fingerprint), _short(corpus.fingerprint()))
    return _home_opened(opened.store, corpus)


def open_snapshot(corpus: Corpus, description: str) -> Opened:
    """A corpus kept elsewhere (e.g. the audit log's snapshot), opened alone in its fingerprint cache."""
    store, where = _store_for(corpus, None, description)
    return Opened(store, corpus, "path", f"{description} (fingerprint {_short(corpus.fingerprint())}, store {where})")


def open_persistent_store(store_option: str | None, store_url: str | None = None) -> CorpusStore:
    """The persistent store for commands that write (ingest): a store URL, `--store PATH`, else the home store."""
    url = _url_of(store_option, store_url)
    if url is not None:
        return open_store_url(url)
    path = persistent_store_path(store_option)
    path.parent.mkdir(parents=True, exist_ok=True)
    return SqliteStore(path)
