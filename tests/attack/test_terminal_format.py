"""Nothing memdown prints can reorder or hide what a terminal shows (session 8 attack).

A committed day file can hold Unicode format characters: a right-to-left override (U+202E) makes a
terminal lay out ``rm -rf ~ # \\u202e`` backwards (Trojan Source, CVE-2021-42574), an isolate or an
embedding moves text across a line, zero-width spaces, word joiners, tag characters and the soft hyphen
hide it. The gated commands print their lines through ``fence.clean`` at a terminal, but the recall
commands' plain view (``search``, ``expand``, ``transcript`` with ``--no-fence`` or at a person's
terminal) printed them raw. ``controls.printable`` (the wrapper in front of every command's stdout and
stderr) now shows every format character of the running Python's Unicode tables escaped, as it shows
control characters; the zero-width (non-)joiners stay (scripts and emoji need them, they move nothing).

Red without the change: ``_SHOWN`` back to ``[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f]`` (all three tests).
"""
from __future__ import annotations

import json
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from conftest import run_memdown
from memdown import controls

KEPT = {"\u200c", "\u200d"}  # zero-width non-joiner and joiner: Persian, Indic, emoji sequences
FORMAT = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf" and chr(c) not in KEPT]
REORDERING = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
HIDING = "\u200b\u2060\u00ad\ufeff\U000e0041\u2028\u2029"


def raw_format(text: str) -> list[str]:
    return sorted({f"U+{ord(c):04X}" for c in text if c in FORMAT or c in "\u2028\u2029"})


def test_every_format_character_is_printed_escaped() -> None:
    assert len(FORMAT) > 150  # Unicode 15 has 163 Cf code points
    missed = [f"U+{ord(c):04X}" for c in FORMAT if c in controls.printable(f"a{c}b")]
    assert missed == []
    for joiner in KEPT:  # what people's scripts and emoji need is left alone
        assert controls.printable(f"a{joiner}b") == f"a{joiner}b"


def test_json_printed_through_it_keeps_its_data() -> None:
    data = {"text": "".join(FORMAT) + "\u2028\u2029 plain 日本語 👨\u200d👩\u200d👧"}
    shown = controls.printable(json.dumps(data, ensure_ascii=False))
    assert raw_format(shown) == [] and json.loads(shown) == data


@pytest.mark.integration
def test_recall_commands_print_no_reordering_or_hiding_character(memory_root: Path) -> None:
    assert run_memdown("init").returncode == 0
    hostile = f"Fixed the deploy with alembic upgrade head {REORDERING} and {HIDING} done."
    (memory_root / "memory" / "2026-11-20.md").write_text(
        f"# 2026-11-20\n\n## Session 10:00\n\n### 10:00 deploy fix\n\n- {hostile}\n", encoding="utf-8")
    assert run_memdown("index").returncode == 0
    outputs = {}
    for args in (["search", "deploy", "--no-fence"], ["search", "deploy", "--no-fence", "--json"]):
        outputs[" ".join(args)] = run_memdown(*args)
    hits = json.loads(outputs["search deploy --no-fence --json"].stdout)
    assert hits
    outputs["expand"] = run_memdown("expand", hits[0]["id"], "--no-fence")
    for what, result in outputs.items():
        assert isinstance(result, subprocess.CompletedProcess) and result.returncode == 0, (what, result.stderr)
        assert raw_format(result.stdout + result.stderr) == [], what
        assert "\\u202e" in result.stdout, what  # shown, visibly
