"""A repository's committed configuration is data, not control.

A clone's ``.memdown/config.toml`` cannot switch memdown off (unknown or invalid keys are ignored with
one notice), cannot choose what runs or what it costs (models, semantic mining) without an approval
made on this machine, and cannot put an option into an argv. The merge driver only merges memory
files. Real CLI, real hook subprocesses, real git.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_memdown
from memdown.config import load_config

ENTRY = "# 2099-02-01\n\n## Session 10:00\n\n### 10:00\n\n- Fixed the flaky login test by pinning the clock.\n"


def _project(memory_root: Path, config: str) -> Path:
    (memory_root / "memory").mkdir(parents=True, exist_ok=True)
    (memory_root / "memory" / "2099-02-01.md").write_text(ENTRY)
    (memory_root / "config.toml").write_text(config)
    return memory_root


def _hook(event: str, payload: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memdown", "hook", event], input=json.dumps(payload),
                          capture_output=True, text=True, timeout=120, env={**os.environ, "MEMDOWN_HOOK_SYNC": "1"})


# --- unknown and invalid keys: one notice, memdown keeps working -------------------------

@pytest.mark.parametrize("config", [
    "[hooks]\nshiny_new_option = true\n",                      # a key from a newer memdown
    "[totally_new_section]\nx = 1\n",                        # a section nobody knows
    "[search]\nk = \"lots\"\n",                              # a wrong type
    "hooks = 3\n",                                             # a section that is not a table
    "[search]\nk = 5\nmode = \"hybrid\"\n[hooks]\ndigest_entries = \"six\"\n",  # good keys beside a bad one
])
def test_a_bad_committed_key_does_not_switch_memdown_off(memory_root: Path, isolate_paths: Path, config: str) -> None:
    _project(memory_root, config)
    found = run_memdown("search", "flaky login clock")
    assert found.returncode == 0, found.stderr
    assert "pinning the clock" in found.stdout
    notices = [line for line in found.stderr.splitlines() if "config.toml" in line]
    assert len(notices) == 1 and "ignored" in notices[0], found.stderr
    out = _hook("SessionStart", {"session_id": "s1", "cwd": str(isolate_paths), "hook_event_name": "SessionStart"})
    assert out.returncode == 0
    assert "pinning the clock" in json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    if "k = 5" in config:
        assert load_config(memory_root)["search.k"] == 5  # the good keys beside it still count


# --- keys that choose what runs or costs money --------------------------------------------

@pytest.mark.parametrize("key,value", [
    ("summarizer.model", "--dangerously-skip-permissions"),
    ("mining.semantic_model", "-p"),
    ("summarizer.model", "opus\n--dangerously-skip-permissions"),
])
def test_an_option_never_becomes_a_model_name(memory_root: Path, key: str, value: str) -> None:
    section, name = key.split(".")
    _project(memory_root, f"[{section}]\n{name} = {json.dumps(value)}\n")
    assert load_config(memory_root)[key] == "haiku"
    approve = run_memdown("config", "approve", key)
    assert approve.returncode != 0  # not even an approval makes an option a model
    assert load_config(memory_root)[key] == "haiku"
    from memdown.config import claude_argv
    from memdown.errors import ConfigError

    assert claude_argv("claude", load_config(memory_root)[key]) == ["claude", "-p", "--model", "haiku"]
    with pytest.raises(ConfigError):
        claude_argv("claude", value)  # the one place memdown builds that argv refuses it too


@pytest.mark.parametrize("config,key,default,wanted", [
    ("[summarizer]\nmodel = \"opus\"\n", "summarizer.model", "haiku", "opus"),
    ("[mining]\nsemantic = true\nsemantic_model = \"sonnet\"\n", "mining.semantic", False, True),
    ("[embedding]\nmodel = \"BAAI/bge-large-en-v1.5\"\n", "embedding.model", None, "BAAI/bge-large-en-v1.5"),
])
def test_a_costly_choice_needs_an_approval_on_this_machine(memory_root: Path, config: str, key: str, default,
                                                           wanted) -> None:
    _project(memory_root, config)
    before = load_config(memory_root)[key]
    assert before != wanted and (default is None or before == default)
    status = run_memdown("search", "flaky")
    assert status.returncode == 0
    assert f"memdown config approve {key}" in status.stderr  # says how to approve
    # an approval planted in the repository counts for nothing
    (memory_root / "state").mkdir(exist_ok=True)
    (memory_root / "state" / "config-approvals.jsonl").write_text(json.dumps({"key": "0" * 64}) + "\n")
    assert load_config(memory_root)[key] == before
    approve = run_memdown("config", "approve", key)
    assert approve.returncode == 0, approve.stderr
    assert load_config(memory_root)[key] == wanted
    # a changed value needs a new approval
    (memory_root / "config.toml").write_text(config.replace("opus", "opus-4").replace("sonnet", "opus")
                                             .replace("large", "small"))
    assert load_config(memory_root)[key] == before or key == "mining.semantic"
    assert not list(memory_root.rglob("*approv*")) or (memory_root / "state" / "config-approvals.jsonl").read_text() \
        .count("\n") == 1  # nothing memdown wrote in the repository


# --- the merge driver merges memory, nothing else ------------------------------------------

def _git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@x"})


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_merge_driver_refuses_code_files(memory_root: Path, isolate_paths: Path) -> None:
    repo = isolate_paths
    assert _git(repo, "init", "-q", "-b", "main").returncode == 0
    assert run_memdown("init").returncode == 0
    attrs = (memory_root / ".gitattributes").read_text()
    assert all(line.startswith("#") or not line.strip() or not line.startswith("*") for line in attrs.splitlines())
    (repo / ".gitattributes").write_text("* merge=memdown\n")  # a hostile or careless commit
    (repo / "auth.py").write_text("CHECK_AUTH = None\n")
    _git(repo, "add", "-A")
    assert _git(repo, "commit", "-qm", "base").returncode == 0
    _git(repo, "checkout", "-qb", "other")
    (repo / "auth.py").write_text("CHECK_AUTH = False\n")
    _git(repo, "commit", "-qam", "off")
    _git(repo, "checkout", "-q", "main")
    (repo / "auth.py").write_text("CHECK_AUTH = True\n")
    _git(repo, "commit", "-qam", "on")
    merged = _git(repo, "merge", "other", "-m", "merge")
    assert merged.returncode != 0, "a conflicting code change must not merge silently"
    text = (repo / "auth.py").read_text()
    assert "<<<<<<<" in text and "CHECK_AUTH = True" in text and "CHECK_AUTH = False" in text


def test_merge_file_refuses_a_path_outside_memdown(tmp_path: Path) -> None:
    for name, text in (("base", "A = 1\n"), ("ours", "A = 2\n"), ("theirs", "A = 3\n")):
        (tmp_path / name).write_text(text)
    proc = run_memdown("merge-file", str(tmp_path / "base"), str(tmp_path / "ours"), str(tmp_path / "theirs"),
                       "src/app.py")
    assert proc.returncode != 0
    assert (tmp_path / "ours").read_text() != "A = 2\nA = 3\n"
    (tmp_path / "ours").write_text("# 2099\n\n### 10:00\n\n- mine\n")
    (tmp_path / "theirs").write_text("# 2099\n\n### 11:00\n\n- theirs\n")
    (tmp_path / "base").write_text("# 2099\n")
    inside = run_memdown("merge-file", str(tmp_path / "base"), str(tmp_path / "ours"), str(tmp_path / "theirs"),
                         ".memdown/memory/2099-01-01.md")
    assert inside.returncode == 0, inside.stderr
    assert "- mine" in (tmp_path / "ours").read_text() and "- theirs" in (tmp_path / "ours").read_text()
