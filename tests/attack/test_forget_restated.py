"""Deleted means deleted, for what a user restated (session 8 attack on signals/restated.py).

A repetition signal quotes every prompt that restated the preference (``restated_as``) and counts them
(``restated``), but it is anchored at the first one only. ``memdown forget --session`` of a later prompt's
session removed that prompt from ``state/prompts.jsonl`` and left its words in the signal, and ``reflect
list`` went on printing them ('restated in 3 prompts: … "<the forgotten words>"'), with the count of
prompts that no longer exist; the next mining did not correct it (the group under ``MIN_PROMPTS`` is
no longer found, so nothing updates the signal).
"""
from __future__ import annotations

import json

import pytest

from conftest import run_memdown
from memdown.config import load_config
from memdown.services.capture.signal_mining import mine_session
from memdown.signals import restated, store
from transcript_factory import TranscriptBuilder

SESSIONS = [
    ["analisa o fluxo de pagamento e me diz o que falta, sem código ainda"],
    ["Vamos revisar o módulo de relatórios. Sem código ainda por favor!"],
    ["quero entender como o cache funciona; sem codigo ainda"],
    ["e a tela de cadastro? sem código ainda"],
]
FORGOTTEN = "Sem código ainda por favor"


def _mine(root, tmp_path, sessions: list[list[str]], first: int) -> None:
    """Each session as the Stop hook leaves it: a day entry per turn (anchored) and its mining."""
    day = root / "memory" / "2026-11-20.md"
    for n, prompts in enumerate(sessions, first):
        tb = TranscriptBuilder(session_id=f"pt-{n}")
        entries = [f"## Session 10:{n:02d}\n"]
        for prompt in prompts:
            turn = tb.prompt(prompt)
            tb.tool("Read", {"file_path": "src/app.py"}, "ok")
            tb.reply("Entendido.")
            entries.append(f"### 10:{n:02d} {prompt[:30]}\n<!-- session:pt-{n} turn:{turn} -->\n\n- {prompt}\n")
        text = day.read_text(encoding="utf-8") if day.exists() else "# 2026-11-20\n\n"
        day.write_text(text + "\n".join(entries) + "\n", encoding="utf-8")
        mine_session(root, tb.write(tmp_path / f"pt-{n}.jsonl"), f"pt-{n}", config=load_config(root))


def _review() -> dict:
    proc = run_memdown("reflect", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _forget_session(session: str) -> None:
    proc = run_memdown("forget", "--session", session, "--yes")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.integration
@pytest.mark.parametrize("sessions", [3, 4], ids=["below-the-threshold", "still-restated"])
def test_a_forgotten_restatement_leaves_the_signal(memory_root, isolate_paths, tmp_path, sessions):
    memory_root.mkdir(parents=True, exist_ok=True)
    assert run_memdown("init").returncode == 0
    _mine(memory_root, tmp_path, SESSIONS[:sessions], 0)
    before = [c for c in _review()["candidates"] if c.get("restated")]
    assert before and FORGOTTEN in before[0]["quotes"]

    _forget_session("pt-1")
    after = [c for c in _review()["candidates"] if c.get("restated")]
    text = run_memdown("reflect", "list").stdout
    left = [s for s in store.load(memory_root) if s.pattern == restated.PATTERN]
    assert FORGOTTEN not in text and not any(FORGOTTEN in q for c in after for q in c["quotes"])
    assert not any(FORGOTTEN in s.extra.get("restated_as", "") for s in left)
    if sessions == 3:   # two prompts left: no longer a preference restated three times
        assert after == []
    else:
        assert [c["restated"] for c in after] == [3]
    # the next mining does not bring it back
    _mine(memory_root, tmp_path, [["como está o deploy?"]], 9)
    assert FORGOTTEN not in run_memdown("reflect", "list").stdout


@pytest.mark.integration
def test_forgetting_one_turn_keeps_the_sessions_other_prompts(memory_root, isolate_paths, tmp_path):
    """Forgetting one unrelated turn of a session dropped every kept prompt of that session (the turn's
    session was passed as a whole forgotten session), so the preference restated in its other prompt
    fell under three and left the queue: a memory lost by forgetting something else."""
    memory_root.mkdir(parents=True, exist_ok=True)
    assert run_memdown("init").returncode == 0
    sessions = [SESSIONS[0], [SESSIONS[1][0], "qual a diferença entre as duas abordagens de cache?"], SESSIONS[2]]
    _mine(memory_root, tmp_path, sessions, 0)
    assert [c["restated"] for c in _review()["candidates"] if c.get("restated")] == [3]
    unrelated = next(json.loads(line)["turn"] for line in restated.prompts_file(memory_root).read_text().splitlines()
                     if "diferença" in line)
    proc = run_memdown("forget", unrelated, "--yes")
    assert proc.returncode == 0, proc.stderr
    kept = restated.prompts_file(memory_root).read_text()
    assert "diferença" not in kept and FORGOTTEN in kept
    assert [c["restated"] for c in _review()["candidates"] if c.get("restated")] == [3]


@pytest.mark.integration
def test_a_dismissed_preference_stays_dismissed_without_the_forgotten_words(memory_root, isolate_paths, tmp_path):
    """Dropping and re-filing a dismissed preference would bring it back to the queue: its decision stays,
    only the forgotten prompt's words leave it."""
    memory_root.mkdir(parents=True, exist_ok=True)
    assert run_memdown("init").returncode == 0
    _mine(memory_root, tmp_path, SESSIONS, 0)
    sig = next(s for s in store.load(memory_root) if s.pattern == restated.PATTERN)
    store.update(memory_root, {sig.id: {"status": "dismissed", "decision": "user"}})   # `reflect dismiss`, by hand
    _forget_session("pt-1")
    assert not [c for c in _review()["candidates"] if c.get("restated")]
    left = [s for s in store.load(memory_root) if s.pattern == restated.PATTERN]
    assert [(s.id, s.status) for s in left] == [(sig.id, "dismissed")]
    assert FORGOTTEN not in left[0].extra.get("restated_as", "") and left[0].extra["restated"] == "3"
    assert FORGOTTEN not in "".join(p.read_text() for p in (memory_root / "signals").glob("*.md"))


@pytest.mark.integration
def test_forget_by_text_keeps_a_dismissed_preference_dismissed(memory_root, isolate_paths, tmp_path):
    """forget --text dropped any signal whose block quoted the phrase, a dismissed restated preference quoting
    it only in restated_as too: its decision went and the prompts left filed it again as new."""
    memory_root.mkdir(parents=True, exist_ok=True)
    assert run_memdown("init").returncode == 0
    _mine(memory_root, tmp_path, SESSIONS, 0)
    sig = next(s for s in store.load(memory_root) if s.pattern == restated.PATTERN)
    store.update(memory_root, {sig.id: {"status": "dismissed", "decision": "user"}})
    proc = run_memdown("forget", "--text", "ainda por favor", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert not [c for c in _review()["candidates"] if c.get("restated")]
    left = [s for s in store.load(memory_root) if s.pattern == restated.PATTERN]
    assert [(s.id, s.status) for s in left] == [(sig.id, "dismissed")]
    assert "por favor" not in "".join(p.read_text() for p in (memory_root / "signals").glob("*.md"))
