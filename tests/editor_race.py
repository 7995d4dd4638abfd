"""A person's editor and git, racing real Stop hooks (shared by tests/attack and bench/bench_lost_updates.py).

``Editor`` saves a day file every ``every`` seconds the way editors do: reload
from disk, type for a moment, save. ``inplace`` truncates the file and writes
it again (vim with ``backupcopy=yes``, many IDEs); ``rename`` writes a temp
file and renames it over (vim's default, VS Code, JetBrains "safe write").
Each save adds one unique note, so a lost human save is a missing note.

``Recording`` is a set of sessions whose turns are captured by real
``python -m memdown hook Stop`` processes with detached workers, fired one
after the other so their appends spread over the editor's saves.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

from capture_stress import recorded, wait_settled
from transcript_factory import TranscriptBuilder


class Editor(threading.Thread):
    def __init__(self, path: Path, style: str, *, every: float = 0.1, typing: float = 0.02) -> None:
        super().__init__(daemon=True)
        assert style in ("inplace", "rename")
        self.path, self.style, self.every, self.typing = Path(path), style, every, typing
        self.saved: list[str] = []  # notes whose save completed
        self.halt = threading.Event()
        self.tag = uuid.uuid4().hex[:6]

    def run(self) -> None:
        n = 0
        while not self.halt.is_set():
            try:
                text = self.path.read_bytes()
            except FileNotFoundError:
                time.sleep(0.01)
                continue
            time.sleep(self.typing)  # the person types: the buffer goes stale meanwhile
            n += 1
            note = f"human note {self.tag}-{n}"
            lines = text.split(b"\n")
            at = 1 if n % 2 and len(lines) > 2 else len(lines)  # near the top, or at the end
            lines[at:at] = [b"", note.encode(), b""]
            self._save(b"\n".join(lines))
            self.saved.append(note)
            self.halt.wait(self.every)

    def _save(self, data: bytes) -> None:
        if self.style == "inplace":
            with open(self.path, "r+b") as handle:
                handle.truncate(0)
                handle.flush()
                time.sleep(0.002)  # an editor writes its buffer in pieces
                half = len(data) // 2
                handle.write(data[:half])
                handle.flush()
                handle.write(data[half:])
        else:
            tmp = self.path.with_name(f".{self.path.name}.{self.tag}~")
            tmp.write_bytes(data)
            os.replace(tmp, self.path)

    def stop(self) -> None:
        self.halt.set()
        self.join(timeout=10)

    def lost_notes(self) -> list[str]:
        text = self.path.read_text(encoding="utf-8", errors="replace")
        return [note for note in self.saved if note + "\n" not in text]


def hook_env(project: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDOWN_")}
    env.update(MEMDOWN_DIR=str(project / ".memdown"), MEMDOWN_HOME=str(home / "memdown-home"), HOME=str(home),
               MEMDOWN_WATCH_ENABLED="0", MEMDOWN_ARCHIVE_ENABLED="0", LANCEDB_LOG="error",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin")  # no `claude`: extractive
    return env


class Recording:
    """``sessions`` transcripts recorded into ``project`` by real Stop hooks."""

    def __init__(self, tmp: Path, project: Path, sessions: int, *, name: str = "race",
                 extra_env: dict[str, str] | None = None) -> None:
        self.tmp, self.project = Path(tmp), Path(project)
        self.root = self.project / ".memdown"
        self.env = {**hook_env(self.project, self.tmp / f"home-{name}"), **(extra_env or {})}
        self.builders = [TranscriptBuilder(session_id=f"{name}-{uuid.uuid4().hex[:8]}-{n:02d}", cwd=str(project))
                         for n in range(sessions)]
        self.procs: list[subprocess.Popen] = []

    def _transcript(self, b: TranscriptBuilder) -> Path:
        return self.tmp / "transcripts" / f"{b.session_id}.jsonl"

    def _payload(self, b: TranscriptBuilder, n: int) -> str:
        return json.dumps({"session_id": b.session_id, "transcript_path": str(self._transcript(b)),
                           "cwd": str(self.project), "hook_event_name": "Stop", "stop_hook_active": False,
                           "last_assistant_message": f"Done with turn {n}."})

    def add_turn(self, index: int) -> str:
        b = self.builders[index]
        n = len(b.turn_uuids)
        b.prompt(f"{b.session_id} turn {n}: make the importer retry on HTTP 503")
        b.tool("Bash", {"command": f"pytest tests/test_import_{index}.py -q"}, "1 passed")
        b.reply(f"Done with turn {n} of {b.session_id}.")
        b.write(self._transcript(b))
        return self._payload(b, n)

    def fire(self, index: int, *, sync: bool = False) -> subprocess.Popen:
        """One new turn of session ``index`` and its real Stop hook (detached worker unless ``sync``)."""
        payload = self.add_turn(index)
        env = {**self.env, "MEMDOWN_HOOK_SYNC": "1"} if sync else self.env
        proc = subprocess.Popen([sys.executable, "-m", "memdown", "hook", "Stop"], env=env, cwd=self.project,
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
        assert proc.stdin is not None
        proc.stdin.write(payload)
        proc.stdin.close()
        self.procs.append(proc)
        return proc

    def fire_rounds(self, rounds: int, *, gap: float = 0.05) -> None:
        """Every session gets ``rounds`` more turns, each with its Stop hook, ``gap`` seconds apart."""
        for _ in range(rounds):
            for index in range(len(self.builders)):
                self.fire(index)
                time.sleep(gap)

    def expected(self) -> set[tuple[str, str]]:
        return {(b.session_id, u) for b in self.builders for u in b.turn_uuids}

    def settle(self, timeout: float = 60.0) -> None:
        for proc in self.procs:
            proc.wait(timeout=timeout)
        wait_settled(self.root, self.expected(), time.monotonic() + timeout)

    def lost(self) -> set[tuple[str, str]]:
        return self.expected() - set(recorded(self.root))

    def duplicates(self) -> int:
        found = recorded(self.root)
        return len(found) - len(set(found))


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, env=env,
                          check=check, timeout=60)


class Loop(threading.Thread):
    """Runs ``step`` again and again (a person's git habit) until stopped; counts the runs."""

    def __init__(self, step, every: float = 0.1) -> None:
        super().__init__(daemon=True)
        self.step, self.every, self.runs = step, every, 0
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.is_set():
            self.step()
            self.runs += 1
            self.halt.wait(self.every)

    def stop(self) -> None:
        self.halt.set()
        self.join(timeout=30)


def teammate_clone(tmp: Path, project: Path, day: Path, name: str = "teammate"):
    """A bare remote for ``project`` and a teammate's clone of it that adds notes to ``day``.

    Returns ``(commit_note, pushed, notes)``: one step that writes a note on the same day, commits and
    pushes it (pulling first when the push is refused); the notes that reached the remote; all notes written.
    """
    remote = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", str(remote))
    git(project, "remote", "add", "origin", str(remote))
    git(project, "push", "-q", "origin", "main")
    other = tmp / name
    git(tmp, "clone", "-q", "-b", "main", str(remote), str(other))
    other_day = other / day.relative_to(project)
    notes: list[str] = []

    def commit_note() -> None:
        notes.append(f"teammate note {len(notes)}")
        lines = other_day.read_text().split("\n")
        lines[1:1] = ["", notes[-1]]
        other_day.write_text("\n".join(lines))
        git(other, "commit", "-qam", notes[-1])
        if git(other, "push", "-q", "origin", "main", check=False).returncode:
            git(other, "pull", "-q", "--no-rebase", "--no-edit", check=False)
            git(other, "push", "-q", "origin", "main", check=False)

    def pushed() -> list[str]:
        log = set(git(other, "log", "--format=%s", "origin/main").stdout.split("\n"))
        return [n for n in notes if n in log]

    return commit_note, pushed, notes
