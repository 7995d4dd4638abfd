"""Builds the conversation benchmark's committed files from their sources.

    python bench/conversations/build.py          # rewrite synthetic/*.jsonl and questions.jsonl
    python bench/conversations/build.py --check  # exit 1 if the committed files are out of date

Sources (written by hand, before any tuning):
- ``scripts/*.txt``: our own multi-session conversations, one project per file, in a small line
  format (below). Each session becomes a Claude Code-shaped transcript ``synthetic/<project>-<session>.jsonl``
  with deterministic uuids, so it goes through memdown's own capture path like a real one.
- ``questions_real.tsv``: questions on the real transcripts in ``../shared/transcripts`` (file and turn
  uuid only; their text is never copied here).

Script format, one item per line (blank lines and ``#`` comments ignored)::

    @project ledgerly /home/maya/src/ledgerly     project name and cwd
    @session s01 2026-02-03T09:12                 a new session (UTC start time)
    > user prompt                                 a new turn
    $ command => output                           a Bash tool call (``=>!`` marks a failed call)
    ~ path/to/file                                an Edit of that file
    < assistant text                              an assistant message
    ? TYPE | question                             a question whose gold evidence is this turn
    ? TYPE #qid | question                        ... that may also be gold on later turns
    ?+ qid                                        this turn is gold evidence for question qid too
    + 25                                          minutes elapsed before the next turn (default 6)

Questions are split dev/test deterministically: within each type, ordered by sha1 of their id,
alternating dev, test.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
NS = uuid.UUID("6f1e0d57-5b8e-4c1e-9a57-0b3c2d1e4f60")
TYPES = ("fact", "why/decision", "temporal", "revised-fact", "error-fix", "multi-turn")
VERSION = "2.1.100"


def _uid(*parts: str) -> str:
    return str(uuid.uuid5(NS, "/".join(parts)))


class _Session:
    def __init__(self, project: str, cwd: str, name: str, start: datetime) -> None:
        self.project, self.cwd, self.name = project, cwd, name
        self.file = f"synthetic/{project}-{name}.jsonl"
        self.session_id = _uid(project, name)
        self.clock = start
        self.lines: list[dict] = []
        self.parent: str | None = None
        self.turn_uuid: str | None = None
        self.step = 0

    def _entry(self, kind: str, message: dict, **extra) -> str:
        self.step += 1
        entry_uuid = _uid(self.project, self.name, str(self.step))
        self.clock += timedelta(seconds=20)
        self.lines.append({
            "type": kind, "uuid": entry_uuid, "parentUuid": self.parent, "isSidechain": False,
            "sessionId": self.session_id, "cwd": self.cwd, "version": VERSION, "gitBranch": "main",
            "timestamp": self.clock.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "message": message, **extra,
        })
        self.parent = entry_uuid
        return entry_uuid

    def prompt(self, text: str) -> str:
        self.turn_uuid = self._entry("user", {"role": "user", "content": text})
        return self.turn_uuid

    def _tool(self, name: str, tool_input: dict, result: str, is_error: bool) -> None:
        tool_id = "toolu_" + _uid(self.project, self.name, str(self.step), "tool").replace("-", "")[:24]
        self._entry("assistant", {"id": "msg_" + tool_id[6:16], "role": "assistant", "model": "claude-sonnet-4-5",
                                  "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}]})
        self._entry("user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_id, "content": result, "is_error": is_error}]},
            toolUseResult={"stdout": result} if not is_error else f"Error: {result}")

    def bash(self, command: str, result: str, is_error: bool) -> None:
        self._tool("Bash", {"command": command, "description": command[:60]}, result, is_error)

    def edit(self, path: str) -> None:
        full = path if path.startswith("/") else f"{self.cwd}/{path}"
        self._tool("Edit", {"file_path": full, "old_string": "…", "new_string": "…"},
                   f"The file {full} has been updated.", False)

    def reply(self, text: str) -> None:
        msg_id = "msg_" + _uid(self.project, self.name, str(self.step), "reply").replace("-", "")[:16]
        self._entry("assistant", {"id": msg_id, "role": "assistant", "model": "claude-sonnet-4-5",
                                  "content": [{"type": "text", "text": text}]})


def parse_script(path: Path, questions: dict[str, dict]) -> list[_Session]:
    sessions: list[_Session] = []
    project = cwd = ""
    current: _Session | None = None
    gap = 6
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{path.name}:{number}"
        tag, _, rest = line.partition(" ")
        rest = rest.strip()
        if tag == "@project":
            project, cwd = rest.split(None, 1)
        elif tag == "@session":
            name, start = rest.split()
            current = _Session(project, cwd, name, datetime.fromisoformat(start).replace(tzinfo=timezone.utc))
            sessions.append(current)
        elif current is None:
            raise SystemExit(f"{where}: item before any @session")
        elif tag == ">":
            if current.lines:
                current.clock += timedelta(minutes=gap)
            gap = 6
            current.prompt(rest)
        elif tag == "+":
            gap = int(rest)
        elif tag == "$":
            command, sep, result = rest.partition(" =>")
            failed = result.startswith("!")
            current.bash(command.strip(), result.lstrip("!").strip() if sep else "", failed)
        elif tag == "~":
            current.edit(rest)
        elif tag == "<":
            current.reply(rest)
        elif tag in ("?", "?+"):
            if current.turn_uuid is None:
                raise SystemExit(f"{where}: question before any turn")
            gold = {"transcript": current.file, "turn": current.turn_uuid}
            if tag == "?+":
                rest = rest if rest.startswith(project) else f"{project}-{rest}"
                if rest not in questions:
                    raise SystemExit(f"{where}: unknown question id {rest}")
                questions[rest]["gold"].append(gold)
                continue
            head, _, text = rest.partition("|")
            words = head.split()
            qtype = words[0]
            if qtype not in TYPES:
                raise SystemExit(f"{where}: unknown question type {qtype}")
            qid = words[1].lstrip("#") if len(words) > 1 else f"{project}-{len([q for q in questions if q.startswith(project + '-')]) + 1:02d}"
            qid = qid if qid.startswith(project) else f"{project}-{qid}"
            if qid in questions:
                raise SystemExit(f"{where}: duplicate question id {qid}")
            questions[qid] = {"id": qid, "type": qtype, "question": text.strip(), "source": "synthetic", "gold": [gold]}
        else:
            raise SystemExit(f"{where}: unknown line {line[:40]!r}")
    return sessions


def read_real_questions(path: Path) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        qid, qtype, text, transcript, turns = raw.split("\t")
        if qtype not in TYPES:
            raise SystemExit(f"{path.name}: {qid}: unknown type {qtype}")
        out[qid] = {"id": qid, "type": qtype, "question": text, "source": "real",
                    "gold": [{"transcript": transcript, "turn": t.strip()} for t in turns.split(",")]}
    return out


def assign_splits(questions: list[dict]) -> None:
    for qtype in TYPES:
        group = sorted((q for q in questions if q["type"] == qtype), key=lambda q: hashlib.sha1(q["id"].encode()).hexdigest())
        for n, q in enumerate(group):
            q["split"] = "dev" if n % 2 == 0 else "test"


def build() -> dict[Path, str]:
    """Every generated file's path and content."""
    questions: dict[str, dict] = read_real_questions(HERE / "questions_real.tsv")
    outputs: dict[Path, str] = {}
    for script in sorted((HERE / "scripts").glob("*.txt")):
        for session in parse_script(script, questions):
            outputs[HERE / session.file] = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in session.lines)
    rows = list(questions.values())
    assign_splits(rows)
    outputs[HERE / "questions.jsonl"] = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in rows)
    return outputs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    outputs = build()
    stale = [p for p, text in outputs.items() if not p.is_file() or p.read_text(encoding="utf-8") != text]
    known = set(outputs)
    extra = [p for p in (HERE / "synthetic").glob("*.jsonl") if p not in known]
    if args.check:
        for p in stale + extra:
            print(f"out of date: {p.relative_to(HERE)}", file=sys.stderr)
        return 1 if stale or extra else 0
    (HERE / "synthetic").mkdir(exist_ok=True)
    for p in extra:
        p.unlink()
    for p in stale:
        p.write_text(outputs[p], encoding="utf-8")
    print(f"wrote {len(stale)} file(s), removed {len(extra)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
