"""Nothing memdown writes or prints can drive a terminal (issue 25, finding 5).

Every C0 and C1 control, DEL and each kind of escape sequence (CSI, OSC ended by BEL and by ST, DCS,
the 8-bit CSI ``\\x9b``, a lone ESC, ``ESC c``) is fed through each writer and each printer:

- writers: every text writer of the file layer (``tests/test_file_access.py`` keeps every other write
  out of memdown), a test that fails when ``fsutil`` gains a writer this file does not feed, and a real
  Stop hook whose prompt and answer carry the payload: no file memdown wrote holds a raw control;
- printers: ``memdown.entry.main`` wraps stdout and stderr before any command runs (checked for the click
  application and the daemon fast path), nothing in memdown writes around that wrapper, and the real
  CLI (search, expand, transcript, stats, verify, reflect list, an error naming a file, the fast path
  answering from a daemon; text and JSON; a pipe and a terminal) prints every control escaped.
"""
from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from attack_corpus import fake_daemon
from conftest import run_memdown
from memdown import controls, fsutil, paths
from transcript_factory import TranscriptBuilder, hook_payload

# Every single control a terminal may act on, and every sequence kind.
CONTROLS = [chr(c) for c in [*range(0x00, 0x09), *range(0x0b, 0x20), 0x7f, *range(0x80, 0xa0)]]
SEQUENCES = {
    "csi-clear": "\x1b[2J\x1b[H",
    "csi-cursor-query": "\x1b[6n",
    "osc52-bel": "\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07",
    "osc-title-st": "\x1b]0;pwned\x1b\\",
    "dcs": "\x1bP1$r0m\x1b\\",
    "csi-8bit": "\x9b31m",
    "osc-8bit": "\x9d0;title\x9c",
    "lone-esc": "lone \x1b end",
    "reset": "\x1bc",
    "charset": "\x1b(0",
}
PAYLOAD = "start " + " ".join(SEQUENCES.values()) + " " + "".join(CONTROLS) + " end"
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def raw_controls(text: str, *, crlf: bool = False) -> list[str]:
    """The control characters in ``text`` a terminal would act on (``crlf``: a CR before a newline is fine)."""
    if crlf:
        text = text.replace("\r\n", "\n")
    return sorted({f"U+{ord(c):04X}" for c in RAW.findall(text)})


# --- the two functions ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [*CONTROLS, *SEQUENCES.values(), PAYLOAD], ids=lambda t: repr(t)[:24])
def test_strip_and_printable_leave_no_control(text: str) -> None:
    assert raw_controls(controls.strip(f"a{text}b")) == []
    shown = controls.printable(f"a{text}b")
    assert raw_controls(shown) == [] and "\\u00" in shown  # visible, not silently gone


def test_whole_sequences_go_and_ordinary_text_stays() -> None:
    assert controls.strip("x\x1b]52;c;ZXZpbA==\x07y\x1b[31mz\x9b2Jw") == "xyzw"  # payloads too, not just the ESC
    assert controls.strip("tab\tline\r\nnext") == "tab\tline\r\nnext"
    assert controls.strip("over\rwrite") == "overwrite"
    assert controls.strip("an open \x1b]0;title\nand the rest") == "an open 0;title\nand the rest"  # bounded
    plain = "日本語 ä — ordinary text\twith tabs\n"
    assert controls.strip(plain) is plain and controls.printable(plain) is plain
    # JSON printed through it stays JSON with the same data (json.dumps leaves C1 and DEL raw).
    data = {"text": "a\x9b2J\x7f\x1b[0m\\\x85"}
    assert json.loads(controls.printable(json.dumps(data, ensure_ascii=False))) == data


def test_many_introducers_without_a_terminator() -> None:
    """Each string sequence's payload stops at the next control character, so a scan never runs past the next
    introducer (linear); every introducer still goes."""
    for unit in ("\x1b]", "\x1b[", "\x9d", "\x1bP", "\x1b]0;t"):
        big = (unit + "é") * 100_000
        assert raw_controls(controls.strip(big)) == [] and controls.strip(big).count("é") == 100_000


# --- writers --------------------------------------------------------------------------------------------

def _edit_whole(path: Path, text: str) -> None:
    fsutil.edit_text(path, lambda old: (old + text, None))


def _edit_append(path: Path, text: str) -> None:
    fsutil.edit_text(path, lambda old: (fsutil.Append(text), None))


TEXT_WRITERS = {
    "atomic_write_text": lambda path, text: fsutil.atomic_write_text(path, text),
    "append_line": lambda path, text: fsutil.append_line(path, text),
    "locked_append": lambda path, text: fsutil.locked_append(path, text),
    "append_unlocked": lambda path, text: fsutil.append_unlocked(path, text),
    "edit_text": _edit_whole,
    "edit_text-append": _edit_append,
}
# Bytes writers store what they are given: a gzip copy of the client's transcript (the archive), ASCII JSON
# (jobs, approvals), a backup of a file as it was. Text reaches them encoded by the caller.
BYTES_WRITERS = {"atomic_write_bytes", "append_bytes"}
# Everything else fsutil exports reads, locks, checks or encodes (edit_locked is what edit_text runs).
NOT_WRITERS = {"Append", "DEFAULT_READ_LIMIT", "EDIT_ATTEMPTS", "QUIET_NS", "SETTLE_SECONDS", "TAIL_CHECK_BYTES",
               "RefusedFileError", "Seen", "edit_locked", "still", "anchor_of", "check_folders", "clean_json",
               "clean_text", "encode_text", "file_lock", "file_lock_for", "is_plain_file", "list_files", "lstat",
               "make_dirs", "notice", "open_file", "open_stream", "read_bytes", "read_text", "set_notice_sink",
               "try_lock", "unlink"}


def test_every_file_layer_export_is_classified() -> None:
    """A new writer in fsutil fails here until this file feeds it the payload."""
    named = {name.split("-")[0] for name in TEXT_WRITERS} | BYTES_WRITERS | NOT_WRITERS
    assert set(fsutil.__all__) == named


@pytest.mark.parametrize("writer", sorted(TEXT_WRITERS))
def test_every_text_writer_removes_controls(writer: str, memory_root: Path) -> None:
    path = memory_root / "memory" / "2026-11-21.md"
    fsutil.make_dirs(path.parent)
    TEXT_WRITERS[writer](path, "# 2026-11-21\n\n")
    TEXT_WRITERS[writer](path, f"- {PAYLOAD}\n")
    text = path.read_bytes().decode("utf-8")
    assert raw_controls(text, crlf=True) == [] and "start" in text and "end" in text


def _memdown_files(*roots: Path) -> dict[Path, str]:
    """Every text file under ``roots`` (the LanceDB folder, gzip archives and other binaries left out)."""
    found: dict[Path, str] = {}
    for root in roots:
        for path in root.rglob("*") if root.is_dir() else []:
            if path.is_file() and not path.is_symlink() and path.suffix not in (".gz", ".lance", ".arrow", ".idx"):
                try:
                    found[path] = path.read_bytes().decode("utf-8")
                except UnicodeDecodeError:
                    continue
    return found


@pytest.mark.integration
def test_a_stop_hook_stores_no_control(tmp_path: Path, memory_root: Path, isolate_paths: Path) -> None:
    """A pasted prompt and an answer full of escapes: the day file, signals, ledgers and logs hold none."""
    assert run_memdown("init").returncode == 0
    b = TranscriptBuilder()
    b.prompt(f"No, that's wrong: always use pnpm instead of npm. {PAYLOAD}")
    b.tool("Bash", {"command": f"npm install {SEQUENCES['osc52-bel']}"}, f"failed {PAYLOAD}", is_error=True)
    b.reply(f"Switched to pnpm. {PAYLOAD}")
    transcript = b.write(paths.claude_home() / "projects" / "-work-project" / f"{b.session_id}.jsonl")
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin", "MEMDOWN_HOOK_SYNC": "1"}
    hook = subprocess.run([sys.executable, "-m", "memdown", "hook", "Stop"], capture_output=True, text=True,
                          input=hook_payload("Stop", b, transcript, isolate_paths), timeout=180,
                          env={**os.environ, **env})
    assert hook.returncode == 0, hook.stderr
    files = _memdown_files(memory_root, Path(os.environ["MEMDOWN_HOME"]))
    day = [text for path, text in files.items() if path.parent.name == "memory" and path.suffix == ".md"]
    assert day and "pnpm" in day[0]
    dirty = {str(path.relative_to(tmp_path)): raw_controls(text, crlf=True) for path, text in files.items()
             if raw_controls(text, crlf=True)}
    assert dirty == {}


# --- printers -------------------------------------------------------------------------------------------

def test_every_command_runs_behind_the_wrapper(monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry point wraps stdout and stderr before the click application or the fast path runs, so a
    command added later prints through it too."""
    from memdown import entry
    from memdown.cli import app, fastpath

    seen: list[tuple[str, bool, bool]] = []

    def probe(name: str):
        def record(*_args: object) -> int:
            seen.append((name, isinstance(sys.stdout, controls.InertStream),
                         isinstance(sys.stderr, controls.InertStream)))
            raise SystemExit(0)
        return record

    monkeypatch.setattr(app, "main", probe("click"))
    monkeypatch.setattr(fastpath, "run", probe("fastpath"))
    monkeypatch.setattr(sys, "stdout", sys.stdout)  # restored after the test: main() wraps them
    monkeypatch.setattr(sys, "stderr", sys.stderr)
    for argv in (["search", "x"], ["reflect", "list"], ["a-command-added-later"]):
        monkeypatch.setattr(sys, "argv", ["memdown", *argv])
        with pytest.raises(SystemExit):
            entry.main()
    assert seen == [("fastpath", True, True), ("click", True, True), ("click", True, True)]
    assert controls.PROTOCOL_COMMANDS == {"mcp"}  # JSON-RPC to a program (the SDK needs the real stdout buffer)


# Writing to the process's streams around sys.stdout/sys.stderr (their buffers, the original objects, fds 1
# and 2) would skip the wrapper. Only controls.py names them.
_AROUND = re.compile(r"sys\.__std(?:out|err)__|std(?:out|err)\.buffer|os\.write\(\s*[12]\s*,|"
                     r"open\(\s*[12]\s*[,)]|/dev/tty|std(?:out|err)=None")


def test_nothing_prints_around_the_wrapper() -> None:
    package = Path(controls.__file__).parent
    found = [f"{path.relative_to(package)}:{n}" for path in sorted(package.rglob("*.py")) if path.name != "controls.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if _AROUND.search(line)]
    assert found == []


def _hostile_memory(memory_root: Path) -> None:
    """A day file a hostile commit wrote (not through memdown), and a file whose name holds an escape."""
    memory = memory_root / "memory"
    entries = "".join(f"### 10:{n:02d}\n\n- deploy note {name}: {text}\n\n" for n, (name, text) in enumerate(SEQUENCES.items()))
    no_nul = PAYLOAD.replace("\x00", "")  # a NUL makes the indexer skip the file as binary (and say so)
    (memory / "2026-11-21.md").write_text(f"# 2026-11-21\n\n## Session 10:00\n\n{entries}### 11:00\n\n- deploy {no_nul}\n")
    (memory / "deploy-\x1b]0;t\x07-\x9b2J.md").write_text("# notes\n\n- deploy notes in an odd file\n")


def _check(result: subprocess.CompletedProcess, what: str) -> str:
    out = result.stdout + result.stderr
    assert raw_controls(out) == [], (what, result.returncode, out[:400])
    return out


@pytest.mark.integration
def test_every_printer_escapes_controls(memory_root: Path) -> None:
    assert run_memdown("init").returncode == 0
    _hostile_memory(memory_root)
    _check(run_memdown("index"), "index")
    search = _check(run_memdown("search", "deploy", "-k", "20"), "search")
    assert "\\u001b]52;c;" in search and "deploy-\\u001b]0;t\\u0007-\\u009b2J.md" in search  # shown, visibly
    hits = json.loads(_check(run_memdown("search", "deploy", "-k", "20", "--json"), "search --json"))
    assert "\\u001b]52;c;" in json.dumps(hits)  # JSON: the same data (json.dumps writes ESC back as \u001b)
    for hit in hits[:3]:
        _check(run_memdown("expand", hit["id"]), "expand")
        _check(run_memdown("expand", hit["id"], "--json"), "expand --json")
    for command in (["stats"], ["stats", "--json"], ["verify"], ["reflect", "list"], ["search", "deploy", "--fence"]):
        _check(run_memdown(*command), " ".join(command))

    b = TranscriptBuilder()
    b.prompt(f"Paste: {PAYLOAD}")
    b.tool("Bash", {"command": f"echo {SEQUENCES['csi-clear']}"}, PAYLOAD)
    b.reply(f"Answer {PAYLOAD}")
    path = b.write(paths.claude_home() / "projects" / "-work-project" / f"{b.session_id}.jsonl")
    for args in ([str(path)], [b.session_id, "--turn", "last"], [b.session_id, "--turn", "last", "--json"]):
        _check(run_memdown("transcript", *args), f"transcript {args}")
    refused = run_memdown("transcript", f"/tmp/evil\x1b]0;t\x07\x9b2J.jsonl")  # an error quoting a file name
    assert refused.returncode != 0 and "\\u001b]0;t" in _check(refused, "error")


def test_the_fast_path_escapes_a_daemons_answer(memory_root: Path) -> None:
    assert run_memdown("init").returncode == 0
    hits = [{"id": f"{n:012x}", "score": 0.5, "kind": "summary", "source": f"memory/{name}\x1b[2J.md",
             "start_line": 1, "end_line": 1, "heading": f"2026-11-21 > {text}", "date": "2026-11-21",
             "session": "", "turn": "", "text": text, "notes": [], "window": None}
            for n, (name, text) in enumerate({**SEQUENCES, "all": PAYLOAD}.items())]
    sock_path = paths.socket_path(memory_root)
    sock_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    server = fake_daemon(sock_path, hits)
    try:
        results = [run_memdown("search", "deploy"), run_memdown("search", "deploy", "--json")]
    finally:
        server.close()
    assert "[1] 000000000000" in _check(results[0], "fast path")
    assert [h["text"] for h in json.loads(_check(results[1], "fast path --json"))] == [h["text"] for h in hits]


@pytest.mark.integration
def test_a_terminal_gets_them_escaped_too(memory_root: Path) -> None:
    assert run_memdown("init").returncode == 0
    _hostile_memory(memory_root)
    assert run_memdown("index").returncode == 0
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "memdown", "search", "deploy", "-k", "20"], stdout=slave,
                            stderr=subprocess.PIPE, env=os.environ.copy())
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=120)
    os.close(master)
    shown = b"".join(chunks).decode("utf-8", "replace")
    assert proc.returncode == 0 and "\\u001b]52;c;" in shown
    assert raw_controls(shown, crlf=True) == []  # the terminal's own line discipline turns \n into \r\n
