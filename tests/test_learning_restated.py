"""Repetition is memory, end to end (issue 30 item 4): capture → candidate → top of `reflect list` with the
count and the quotes → promote keeps the user's language. Real subprocesses of the CLI, real mining."""
from __future__ import annotations

import json
import os
import stat

import pytest

from conftest import run_memdown
from memdown.config import load_config
from memdown.services.capture.signal_mining import mine_session
from memdown.signals import restated, store
from memdown.store import forgetting
from transcript_factory import TranscriptBuilder

# The shape of the Portuguese user of issue 30: the same preferences ride along with every request, in
# different sessions, with and without accents, among prompts that say nothing standing.
PORTUGUESE_SESSIONS = [
    ["analisa o fluxo de pagamento e me diz o que falta, sem código ainda",
     "ok, agora o instalador. precisão cirúrgica, sem quebrar etapas anteriores"],
    ["Vamos revisar o módulo de relatórios. Sem código ainda!",
     "corrige o bug do login com precisão cirúrgica, sem quebrar etapas anteriores"],
    ["quero entender como o cache funciona; sem codigo ainda",
     "qual a diferença entre as duas abordagens?"],
]
# Another script: a Japanese user who asks each time to be asked before a commit.
JAPANESE_SESSIONS = [["ログイン画面のバグを直して。コミットする前に必ず確認して"],
                     ["テストを追加してください。コミットする前に必ず確認して"],
                     ["READMEを更新して、コミットする前に必ず確認してね"]]
# One filler turn before the last prompt: the quote is mined from a real turn shape (tool call, reply).


def _mine_sessions(root, tmp_path, sessions, prefix) -> list:
    root.mkdir(parents=True, exist_ok=True)
    out = []
    for n, prompts in enumerate(sessions):
        tb = TranscriptBuilder(session_id=f"{prefix}-{n}")
        for prompt in prompts:
            tb.prompt(prompt)
            tb.tool("Read", {"file_path": "src/app.py"}, "ok")
            tb.reply("Entendido.")
        path = tb.write(tmp_path / f"{prefix}-{n}.jsonl")
        out += mine_session(root, path, f"{prefix}-{n}", config=load_config(root))
    return out


def _translating_claude(tmp_path, monkeypatch) -> None:
    """A `claude` on PATH that phrases every rule in English, as a model asked for "a rule" may well do."""
    folder = tmp_path / "fakebin"
    folder.mkdir(exist_ok=True)
    script = folder / "claude"
    script.write_text("#!/bin/sh\ncat > /dev/null\necho 'Do not write code yet.'\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


def _pnpm_in_sessions(root, tmp_path, count: int) -> None:
    """A strong ordinary candidate: the same correction in more sessions than the restated preference."""
    for n in range(count):
        tb = TranscriptBuilder(session_id=f"en-{n}")
        tb.prompt("install the deps")
        tb.tool("Bash", {"command": "npm install"}, "added 120 packages")
        tb.reply("Installed with npm.")
        tb.prompt("no, use pnpm not npm")
        mine_session(root, tb.write(tmp_path / f"en-{n}.jsonl"), f"en-{n}", config=load_config(root))


def _json(proc) -> dict:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_restated_preference_becomes_one_signal_that_grows(memory_root, tmp_path):
    mined = _mine_sessions(memory_root, tmp_path, PORTUGUESE_SESSIONS[:2], "pt")
    assert not [s for s in mined if s.pattern == restated.PATTERN]          # twice is not yet a preference
    mined = _mine_sessions(memory_root, tmp_path, PORTUGUESE_SESSIONS[2:], "pt3")
    found = [s for s in mined if s.pattern == restated.PATTERN]
    assert [(s.type, s.text) for s in found] == [("convention", "sem código ainda")]
    assert restated.restated(found[0]) == (3, ["sem código ainda", "Sem código ainda", "sem codigo ainda"])
    # the user says it a fourth time: the same signal's count grows, no second signal
    _mine_sessions(memory_root, tmp_path, [["e a tela de cadastro? sem código ainda"]], "pt4")
    kept = [s for s in store.load(memory_root) if s.pattern == restated.PATTERN]
    assert len(kept) == 1 and restated.restated(kept[0])[0] == 4


def test_prompts_kept_for_repetition_are_private_redacted_and_forgettable(memory_root, tmp_path):
    _mine_sessions(memory_root, tmp_path, [["deploy with token ghp_" + "a" * 36 + " please, sem código ainda"]], "sec")
    kept = restated.prompts_file(memory_root)
    assert kept.stat().st_mode & 0o777 == 0o600
    assert "ghp_" + "a" * 36 not in kept.read_text()
    _mine_sessions(memory_root, tmp_path, PORTUGUESE_SESSIONS[:1], "pt")
    assert "fluxo de pagamento" in kept.read_text()
    forgetting.note(memory_root, {}, {"pt-0"})                   # memdown forget --session pt-0
    _mine_sessions(memory_root, tmp_path, PORTUGUESE_SESSIONS[1:2], "pt1")
    assert "fluxo de pagamento" not in kept.read_text() and "módulo de relatórios" in kept.read_text()


@pytest.mark.integration
def test_portuguese_restated_preference_is_first_in_the_queue_and_promoted_in_portuguese(memory_root, isolate_paths,
                                                                                          tmp_path, monkeypatch):
    _mine_sessions(memory_root, tmp_path, PORTUGUESE_SESSIONS, "pt")
    _pnpm_in_sessions(memory_root, tmp_path, 4)
    _translating_claude(tmp_path, monkeypatch)

    review = _json(run_memdown("reflect", "list", "--json"))
    code = review["candidates"][0]
    assert (code["text"], code["restated"], code["category"]) == ("Sem código ainda.", 3, "Preferences")
    assert code["quotes"] == ["sem código ainda", "Sem código ainda", "sem codigo ainda"]
    pnpm = next(c for c in review["candidates"] if c["text"] == "Use pnpm not npm.")
    assert pnpm["confidence"] == 3 and pnpm["sessions"] == 4 and pnpm["restated"] == 0   # stronger, still after it

    text = run_memdown("reflect", "list").stdout
    assert 'restated in 3 prompts: "sem código ainda" · "Sem código ainda" · "sem codigo ainda"' in text
    assert text.index("Sem código ainda.") < text.index("Use pnpm not npm.")

    result = _json(run_memdown("reflect", "promote", code["id"], "--to", "project", "--json"))
    claude = (isolate_paths / "CLAUDE.md").read_text()
    assert f"- Sem código ainda. <!-- memdown:{result['learning']}" in claude   # the user's words, not a translation
    assert "Do not write code yet" not in claude and result["rule"] == "Sem código ainda."

    # undo puts it all back (item 5): the CLAUDE.md memdown created goes, the candidate is reviewable again
    assert run_memdown("reflect", "undo", result["learning"]).returncode == 0
    assert not (isolate_paths / "CLAUDE.md").exists()
    again = _json(run_memdown("reflect", "list", "--json"))["candidates"][0]
    assert (again["text"], again["restated"], again["quotes"]) == ("Sem código ainda.", 3, code["quotes"])


@pytest.mark.integration
def test_japanese_restated_preference_keeps_its_script(memory_root, isolate_paths, tmp_path, monkeypatch):
    _mine_sessions(memory_root, tmp_path, JAPANESE_SESSIONS, "ja")
    _translating_claude(tmp_path, monkeypatch)
    review = _json(run_memdown("reflect", "list", "--json"))
    first = review["candidates"][0]
    assert first["restated"] == 3 and first["text"] == "コミットする前に必ず確認して。"
    result = _json(run_memdown("reflect", "promote", first["id"], "--to", "project", "--json"))
    assert f"- コミットする前に必ず確認して。 <!-- memdown:{result['learning']}" in (isolate_paths / "CLAUDE.md").read_text()
