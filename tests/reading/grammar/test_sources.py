"""Every entry of the grammar's data is used by a blind dev source: none is justified by nothing.

An entry used by two house styles is a rule of the one grammar; an entry used by one style only is
that style's dialect (sqlglot's model), and the count of such entries is printed, so it is watched.
"""

from __future__ import annotations

import pytest

from clauseguard.reading.grammar import sources


@pytest.mark.slow
def test_every_grammar_entry_has_a_dev_source() -> None:
    try:
        rows = sources.report()
    except FileNotFoundError as exc:  # pragma: no cover - run from an installed package
        pytest.skip(f"the blind suites are not beside the package: {exc}")
    unsupported = [f"{r['file']}:{r['path']}: {r['pattern']!r}" for r in rows if not r["sources"]]
    dialect = [r for r in rows if len(r["sources"]) == 1]
    print(f"\n{len(rows)} grammar entries: {len(rows) - len(dialect)} used by two styles or more, "
          f"{len(dialect)} dialect entries of one style")
    assert not unsupported, "entries no blind source uses:\n" + "\n".join(unsupported)
