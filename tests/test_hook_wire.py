"""What the hook fast path uses instead of json, re and pathlib gives the same answers as they do.

``wirejson`` (json's own C codec without ``import json``), ``pathstr`` (the memory root as a string),
``lazyre.IGNORECASE``, ``controls._plain``'s pattern-free check, and the capture hook's order: its answer is
out (and, in a hook process, its stdout let go) before the detached worker is started.
"""
from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memdown import controls, lazyre, pathstr, wirejson

REPO = Path(__file__).resolve().parent.parent

TEXTS = ['{"a": 1}', ' [1, 2.5, -3e10, "x\\u00e9\\ud83d", null, true, false, NaN, -Infinity, Infinity] ', '"s"', "1",
         "{}", '\t{"k": {"n": [{}]}}\r\n', '{"a": 1} x', "", "   ", "\ufeff{}", '{"a": "\x01"}', "[1,]", '{"a" 1}', "01",
         "1.0e", '"\\ud800"', '{"a":1,"a":2}', "[" * 50 + "]" * 50, '{"big": 123456789012345678901234567890}',
         '{"f": 1.5e300, "g": -0.0}', "nul", '"unterminated', '{"a": 1}\n\n']
BYTES = [b'{"a": 1}', b'\xef\xbb\xbf{"a": 1}', '{"a": "é"}'.encode("utf-16"), '{"a": "é"}'.encode("utf-16-le"),
         '{"a": "é"}'.encode("utf-16-be"), '{"a": "é"}'.encode("utf-32"), b"1", b"", b"\xff", b'"\xed\xa0\x80"',
         b'{"a": "\xc3\xa9"}', b"[1]\x00", b"12"]


def _outcome(call, value):
    try:
        return ("ok", repr(call(value)))
    except Exception as exc:  # the same error type and message as json's
        return ("error", type(exc).__name__, str(exc))


@pytest.mark.parametrize("text", TEXTS + BYTES)
def test_loads_is_jsons_loads(text) -> None:
    assert _outcome(wirejson.loads, text) == _outcome(json.loads, text)


def test_loads_matches_json_on_random_documents() -> None:
    rng = random.Random(7)
    alphabet = ' \t\r\n{}[]":,0123456789.eE+-truefalsnNIfiy\\u"aé\x00\x1f'
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert _outcome(wirejson.loads, text) == _outcome(json.loads, text), text


def test_loads_raises_jsons_errors_in_a_process_that_never_imported_json() -> None:
    """The hooks' case: ``_json``'s scanner reports an error inside a string (unterminated, a bad escape, a
    control character) through ``json.decoder``, and only when that module is loaded; without it the scanner
    raised SystemError, which readers that catch ValueError (a torn job file, a damaged guards.json) let through."""
    rng = random.Random(11)
    alphabet = ' {}[]":,0123.eE-tru\\u"aé\x01'
    for text in ('{"a": "unterminated', '{"a": "bad \\q"}', '{"a": "ctl \x01"}', '["\\u12"]', b'{"a": "torn'):
        _fresh_matches_json([text])  # each first in its process: json's fallback would load json.decoder
    _fresh_matches_json(TEXTS + ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10))) for _ in range(400)])


def _fresh_matches_json(texts: list[str | bytes]) -> None:
    """``wirejson.loads`` of each text in a new ``python -I -S`` gives what ``json.loads`` gives here."""
    code = ("import sys\n"
            f"sys.path.insert(0, {str(REPO)!r})\n"
            "from memdown import wirejson\n"
            "texts = eval(sys.stdin.read())\n"
            "def outcome(text):\n"
            "    try:\n"
            "        return ('ok', repr(wirejson.loads(text)))\n"
            "    except Exception as exc:\n"
            "        return ('error', type(exc).__name__, str(exc))\n"
            "print(repr([outcome(t) for t in texts]))\n")
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", code], input=repr(texts), capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    fresh = eval(proc.stdout)  # noqa: S307  (our own repr of a list of tuples of str)
    assert [(t, o) for t, o in zip(texts, fresh) if o != _outcome(json.loads, t)] == []


VALUES = [{"a": 1, "b": [1.5, float("nan"), float("inf"), float("-inf"), -0.0, 10 ** 30, None, True, False],
           "é": "💥\x00\u2028\ud800", "k": ("t", 1)}, "x", 1, None, [], {1: 2, 2.5: 3, None: 4, True: 5},
          {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                  "permissionDecisionReason": "memdown: “Never run `git push --force`.”"}}]


@pytest.mark.parametrize("ensure_ascii", [True, False])
@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_dumps_is_jsons_dumps(value, ensure_ascii: bool) -> None:
    assert wirejson.dumps(value, ensure_ascii=ensure_ascii) == json.dumps(value, ensure_ascii=ensure_ascii)


@pytest.mark.parametrize("value", [{"a": object()}, {(1, 2): 3}, {"a": {1, 2}}])
def test_dumps_refuses_what_json_refuses(value) -> None:
    assert _outcome(wirejson.dumps, value) == _outcome(json.dumps, value)
    circular: list = []
    circular.append(circular)
    assert _outcome(wirejson.dumps, circular) == _outcome(json.dumps, circular)


def test_the_hook_modules_need_neither_json_nor_re_for_it() -> None:
    code = ("import sys\n"
            f"sys.path.insert(0, {str(REPO)!r})\n"
            "from memdown import wirejson, pathstr\n"
            "wirejson.dumps(wirejson.loads(b'{\"a\": [1, 2.5, \"x\"]}'))\n"
            "print(sorted({'json', 're', 'enum', 'pathlib'} & set(sys.modules)))\n")
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "[]", proc.stderr


def test_lazyre_ignorecase_is_res() -> None:
    assert lazyre.IGNORECASE == re.IGNORECASE


def test_plain_text_check_agrees_with_the_pattern() -> None:
    """``controls._plain`` skips the pattern for printable text with tabs and newlines: the same verdict."""
    rng = random.Random(3)
    pieces = ["a", " ", "\t", "\n", "\r", "\r\n", "\x1b[31m", "\x00", "\x7f", "\x9b", "é", "\u202e", "\u200b", "\ufeff",
              "\u2028", "💥", "\xa0"]
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))
        assert controls._plain(text) == (not controls._SHOWN.search(text)), repr(text)


# --- the memory root as a string ---------------------------------------------------------------------------

def _reference_root(start: Path) -> Path:
    """What paths.project_root did with pathlib (the walk up to the nearest .git)."""
    here = start.resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").is_dir():
            return folder
    return here


def test_pathstr_finds_the_project_as_pathlib_did(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMDOWN_DIR", raising=False)
    repo = tmp_path / "repo"
    deep = repo / "src" / "pkg"
    deep.mkdir(parents=True)
    (repo / ".git").mkdir()
    (tmp_path / "loose").mkdir()
    (tmp_path / "link").symlink_to(deep)
    for start in (deep, repo, tmp_path / "loose", tmp_path / "link"):
        assert pathstr.project_root(start) == str(_reference_root(start))
        assert pathstr.memory_root(start=start) == str(_reference_root(start) / ".memdown")
    monkeypatch.chdir(deep)
    assert pathstr.project_root() == str(repo.resolve())


def test_pathstr_asks_git_for_a_linked_worktree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMDOWN_DIR", raising=False)
    main = tmp_path / "main"
    main.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(main)], check=True)
    subprocess.run([*git, "-C", str(main), "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    subprocess.run([*git, "-C", str(main), "worktree", "add", "-q", str(tmp_path / "wt")], check=True)
    assert pathstr.project_root(tmp_path / "wt") == str(main.resolve())


def test_a_named_root_is_resolved_and_remembered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("MEMDOWN_DIR", "  ~/alias/./  ")
    assert pathstr.memory_root() == str(real) and str(real) in pathstr.NAMED_ROOTS
    assert pathstr.memory_root(tmp_path / "alias") == str(real)


# --- a capture hook's worker starts after its answer -------------------------------------------------------

def test_the_stop_hooks_worker_starts_after_its_answer(isolate_paths: Path, memory_root: Path,
                                                       monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from memdown.hooks import runner

    transcript = isolate_paths / "t.jsonl"
    transcript.write_text("")
    seen: list[str] = []
    monkeypatch.setattr("memdown.services.capture.detached.start_worker",
                        lambda root: seen.append(capsys.readouterr().out))
    monkeypatch.setattr("sys.stdin", _Stdin(json.dumps({"session_id": "s", "transcript_path": str(transcript),
                                                        "cwd": str(isolate_paths), "hook_event_name": "Stop"})))
    assert runner.main(["Stop"]) == 0
    assert seen == ["{}\n"]  # the whole answer was written before the worker was started


class _Stdin:
    def __init__(self, text: str) -> None:
        import io

        self.buffer = io.BytesIO(text.encode())

    def isatty(self) -> bool:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc/self/fd")
def test_a_hook_process_leaves_the_work_after_its_answer_to_a_detached_child(tmp_path: Path) -> None:
    """The hook exits at once; a child in its own session, with /dev/null for stdio, runs the rest (and logs
    what failed)."""
    root = tmp_path / ".memdown"
    root.mkdir()
    seen = tmp_path / "seen.txt"
    code = ("import os, sys\n"
            f"sys.path.insert(0, {str(REPO)!r})\n"
            "from memdown.hooks import runner\n"
            "sys.stdout.write('{}\\n'); sys.stdout.flush()\n"
            "hook = (os.getpid(), os.getsid(0))\n"
            "def first():\n"
            "    fds = [os.readlink(f'/proc/self/fd/{n}') for n in (0, 1, 2)]\n"
            f"    open({str(seen)!r} + '.part', 'w').write(repr((fds, os.getpid() != hook[0], os.getsid(0) != hook[1])))\n"
            f"    os.rename({str(seen)!r} + '.part', {str(seen)!r})\n"
            "def broken(): raise OSError('no python')\n"
            f"runner._after_answer([broken, first], {str(root)!r}, 'Stop', True)\n"
            "sys.stderr.write('hook returned\\n')\n")
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout == "{}\n" and proc.stderr.count("hook returned") == 1, proc.stderr  # the child wrote nothing
    deadline = time.monotonic() + 30
    while not seen.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert seen.read_text() == repr((["/dev/null"] * 3, True, True))  # another process, its own session
    assert "Stop not done after the answer: OSError: no python" in (root / "logs" / "hooks.log").read_text()


def test_a_message_to_redact_is_written_after_the_answer(isolate_paths: Path, memory_root: Path) -> None:
    """Until the work left for after the answer runs, the job is its recovery file (ids only, no text)."""
    from memdown.services.capture import jobs

    transcript = isolate_paths / "t.jsonl"
    transcript.write_text("")
    secret = "ghp_" + "Zq9" * 12
    later: list = []
    final = jobs.enqueue_file(memory_root, "stop", {"session_id": "s", "transcript_path": str(transcript),
                                                    "last_assistant_message": f"Done; the token was {secret}"}, later)
    folder = Path(final).parent
    assert [p.suffix for p in folder.iterdir()] == [".tmp"] and secret not in next(folder.iterdir()).read_text()
    for run in later:
        run()
    assert [p.name for p in folder.iterdir()] == [Path(final).name]
    text = Path(final).read_text()
    assert "Done; the token was" in text and secret not in text


# --- UserPromptSubmit: recall cues, the opt-out marker and the root without re or pathlib ----------------------

# The recall cue pattern as it was written before the prompt hook stopped importing re (session.RECALL_CUES).
_OLD_CUES = re.compile(
    r"\b(remember|last time|before|previous(ly)?|earlier|again|we did|did we|why did|how did we|"
    r"decided|decision|yesterday|last week|history|same (error|bug|issue)|used to|recurring|"
    r"wie letztes mal|schon mal|früher|la (última|ultima) vez|antes)\b", re.IGNORECASE)
_OLD_SKIP = re.compile(re.escape("<memdown:skip>"), re.IGNORECASE)
# Pieces a prompt is made of: cue words in any letter case, cut short or glued, what \b sees on either side,
# and the characters re's IGNORECASE pairs with ASCII letters (Kelvin sign, long s, dotted and dotless i).
_PIECES = ["remember", "Last Time", "BEFORE", "previously", "previou", "earlier", "Again", "we did", "did  we",
           "WHY DID", "how did we", "decided", "decisions", "yesterday", "last week", "History", "same error",
           "same bug", "same Issue", "used to", "recurring", "wie letztes mal", "schon mal", "früher", "FRÜHER",
           "la última vez", "La Ultima vez", "antes", "<memdown:skip>", "<MemDown:Skip>", "<memdown:sk", "ip>",
           " ", "", "_", "1", "a", "x", "é", "-", "\n", "'", ".", "\u212a", "\u017f", "\u0130", "\u0131", "mber",
           "reme", "s", "k", "i", "<", ">", ":", "\t", "🙂", "ß", "ﬀ"]


def _prompts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 7))) for _ in range(count)]


def test_recall_cues_are_found_as_the_pattern_found_them() -> None:
    from memdown.services.recall.prompt import RECALL_CUE_PHRASES, has_recall_cue

    assert all(p == p.lower() and p[0].isalpha() and p[-1].isalpha() for p in RECALL_CUE_PHRASES)  # \b fits them
    texts = _prompts(20_000, 7) + ["remember", "x remember", "remembered", "_before", "before_", "1before",
                                   "pre-before!", "ANTES", "antesala", "la última vez", "la ultima vez"]
    differ = [t for t in texts if has_recall_cue(t) != bool(_OLD_CUES.search(t))]
    assert differ == []
    assert sum(bool(_OLD_CUES.search(t)) for t in texts) > 3_000  # both sides drawn often
    assert sum(t.isascii() for t in texts) > 3_000  # the path without re, often


def test_the_opt_out_marker_is_found_as_the_pattern_found_it() -> None:
    from memdown.optout import should_skip

    texts = _prompts(20_000, 8)
    assert [t for t in texts if should_skip(t) != bool(_OLD_SKIP.search(t))] == []
    assert sum(should_skip(t) for t in texts) > 1_000


def test_pathstr_file_tests_and_config_files_are_pathlib_s(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memdown import paths

    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_text("")
    (tmp_path / "link").symlink_to(tmp_path / "f")
    (tmp_path / "dangling").symlink_to(tmp_path / "absent")
    for name in ("d", "f", "link", "dangling", "absent", "f/under-a-file", "x\x00y"):
        path = tmp_path / name if "\x00" not in name else str(tmp_path) + "/" + name
        assert (pathstr.exists(path), pathstr.is_dir(path), pathstr.is_file(path)) == (
            Path(path).exists(), Path(path).is_dir(), Path(path).is_file()), name
    for env in ({}, {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}, {"XDG_CONFIG_HOME": "~/xdg"},
                {"MEMDOWN_CONFIG": "~/m.toml"}, {"MEMDOWN_CONFIG": str(tmp_path / "m.toml"), "XDG_CONFIG_HOME": "/x"}):
        for name in ("MEMDOWN_CONFIG", "XDG_CONFIG_HOME"):
            monkeypatch.delenv(name, raising=False)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        expected = Path(env["MEMDOWN_CONFIG"]).expanduser() if "MEMDOWN_CONFIG" in env else (
            (Path(env["XDG_CONFIG_HOME"]).expanduser() if "XDG_CONFIG_HOME" in env else Path.home() / ".config")
            / "memdown" / "config.toml")
        assert pathstr.global_config_file() == str(expected) and paths.global_config_file() == expected, env
    root = tmp_path / ".memdown"
    (root / "memory").mkdir(parents=True)
    for name in ("2026-06-02.md", "2026-06-10.md", "notes.txt", "x.md"):
        (root / "memory" / name).write_text("")
    (root / "memory" / "folder.md").mkdir()
    assert pathstr.daily_files(str(root)) == [str(p) for p in paths.daily_files(root)] == [
        str(root / "memory" / n) for n in ("x.md", "2026-06-10.md", "2026-06-02.md")]
    assert pathstr.session_state_file(str(root), "prompted", "a/b c:9") == str(root / "state" / "prompted" / "abc9")


def test_the_root_is_shown_relative_to_the_session_s_folder_as_pathlib_showed_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memdown.hooks.events import shown_as

    (tmp_path / "p" / ".memdown").mkdir(parents=True)
    (tmp_path / "p2").mkdir()
    for here, root in ((tmp_path / "p", tmp_path / "p" / ".memdown"), (tmp_path / "p", tmp_path / "p"),
                       (tmp_path / "p2", tmp_path / "p" / ".memdown"), (tmp_path, tmp_path / "p" / ".memdown"),
                       (tmp_path / "p" / ".memdown", tmp_path / "p"), (Path("/"), tmp_path / "p")):
        monkeypatch.chdir(here)
        try:
            expected = str(root.relative_to(Path.cwd()))
        except ValueError:
            expected = str(root)
        assert shown_as(str(root)) == expected == shown_as(root), (here, root)
