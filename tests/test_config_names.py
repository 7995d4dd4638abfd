"""Renamed config keys keep working with a one-line notice; one chunking default; env switches read once."""
from __future__ import annotations

from pathlib import Path

from conftest import REPO_ROOT
from memdown import config as config_module
from memdown.config import DEFAULTS, load_config, set_value


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_an_old_config_file_still_works_with_one_notice(memory_root: Path, capsys):
    config_module._noticed.clear()
    _write(memory_root / "config.toml", "[capture]\nenabled = false\nsemantic_timeout = 30\n"
                                        "[search]\nfusion_depth = 25\n")
    config = load_config(memory_root)
    assert config["mining.enabled"] is False and config["mining.semantic_timeout"] == 30
    assert config["search.candidate_depth"] == 25
    assert config.sources["mining.enabled"] == str(memory_root / "config.toml")
    load_config(memory_root)  # loaded again in the same process: no second notice
    notices = [line for line in capsys.readouterr().err.splitlines() if line]
    assert len(notices) == 3, notices
    assert any("capture.enabled is now mining.enabled" in line for line in notices)
    assert any("search.fusion_depth is now search.candidate_depth" in line for line in notices)


def test_the_new_name_wins_over_the_old_one_in_the_same_file(memory_root: Path):
    for text in ("[capture]\nenabled = false\n[mining]\nenabled = true\n",
                 "[mining]\nenabled = true\n[capture]\nenabled = false\n"):
        _write(memory_root / "config.toml", text)
        assert load_config(memory_root)["mining.enabled"] is True, text


def test_old_environment_names_still_work(memory_root: Path, monkeypatch):
    monkeypatch.setenv("MEMDOWN_CAPTURE_ENABLED", "false")
    monkeypatch.setenv("MEMDOWN_SEARCH_FUSION_DEPTH", "7")
    config = load_config(memory_root)
    assert config["mining.enabled"] is False and config["search.candidate_depth"] == 7
    monkeypatch.setenv("MEMDOWN_MINING_ENABLED", "true")  # the new name wins
    assert load_config(memory_root)["mining.enabled"] is True


def test_config_get_by_an_old_name_answers_with_a_notice(memory_root: Path, capsys):
    config_module._noticed.clear()
    assert load_config(memory_root).get("search.fusion_depth") == 10
    assert "search.fusion_depth is now search.candidate_depth" in capsys.readouterr().err


def test_config_set_with_an_old_name_writes_the_new_one(memory_root: Path):
    memory_root.mkdir(parents=True)
    _write(memory_root / "config.toml", "[capture]\nenabled = false\n")
    target = set_value("capture.enabled", "true", root=memory_root)
    text = target.read_text()
    assert "[mining]" in text and "capture" not in text
    assert load_config(memory_root)["mining.enabled"] is True
    assert load_config(memory_root).get("capture.enabled") is True  # reading by the old name works too


def test_mining_off_by_the_old_key_stops_failure_signals(memory_root: Path):
    from memdown.learning.fixes import record_failure

    memory_root.mkdir(parents=True)
    _write(memory_root / "config.toml", "[capture]\nenabled = false\n")
    assert record_failure(memory_root, load_config(memory_root), session_id="s", tool_name="Bash",
                          tool_input={"command": "make"}, error="boom") is None


def test_chunk_defaults_live_in_config_and_the_index_uses_them():
    from memdown.services.upkeep.indexing import chunk_options
    from memdown.store.chunker import ChunkOptions

    assert ChunkOptions().max_chars == DEFAULTS["chunking"]["max_chars"] == 250
    assert ChunkOptions().context_chars == DEFAULTS["chunking"]["context_chars"]
    assert chunk_options(load_config(None)) == ChunkOptions()
    assert "~250 characters" in (REPO_ROOT / "README.md").read_text()


def test_hook_sync_has_one_reader():
    """MEMDOWN_HOOK_SYNC and MEMDOWN_DISABLE are read in memdown/config.py only."""
    for path in (REPO_ROOT / "memdown").rglob("*.py"):
        if path.name == "config.py":
            continue
        text = path.read_text()
        for name in ("MEMDOWN_HOOK_SYNC", "MEMDOWN_DISABLE"):
            assert f'environ.get("{name}")' not in text and f"environ.get('{name}')" not in text, (path, name)



def test_mining_stops_on_every_memdown_disable_word(memory_root: Path, tmp_path: Path, monkeypatch):
    """`MEMDOWN_DISABLE=yes` stops mining as it stops the shim (Python used to need exactly "1")."""
    from memdown.signals.mining import mine_session
    from test_signals_mining import session_with_corrections
    from transcript_factory import TranscriptBuilder

    tb = TranscriptBuilder(session_id="sess-d")
    session_with_corrections(tb)
    path = tb.write(tmp_path / "sess-d.jsonl")
    for word in ("yes", "TRUE", "1"):
        monkeypatch.setenv("MEMDOWN_DISABLE", word)
        assert mine_session(memory_root, path, "sess-d", config=load_config(memory_root)) == [], word
    monkeypatch.setenv("MEMDOWN_DISABLE", "0")
    assert mine_session(memory_root, path, "sess-d", config=load_config(memory_root))  # "0" is not off
