"""The Python examples of docs/journal.md run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "journal.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def test_the_journal_page_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    examples = BLOCK.findall(PAGE.read_text(encoding="utf-8"))
    assert examples
    monkeypatch.chdir(tmp_path)
    (tmp_path / "var").mkdir()
    for code in examples:
        namespace: dict[str, object] = {}
        exec(compile(code, str(PAGE), "exec"), namespace)
    # The replay example rebuilt a table from the (new, empty) journal.
    assert namespace["count"] == 0
