"""The placement corpus of issue #27: every template of ``templates.py`` in Claude Code's places.

Values are drawn at random on every run (``--seed`` repeats a run); the templates are split
dev/test by ``sha256(template id)``, fixed before the redactor was changed. Each template goes
into two of the 17 placements (one that fits its group, one by rotation), so a run has about
330 cases. ``transcript_lines`` writes them as a Claude Code transcript (JSONL entries);
``error_payloads`` as PostToolUseFailure hook inputs.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import string
import uuid
from dataclasses import dataclass

from templates import COMMANDS, CONFIGS, PROSE, UNLABELLED, UNLABELLED_SHAPE

PLACEMENTS = ("prompt", "answer", "code_block", "thinking", "bash_input", "bash_output", "read_result",
              "write", "edit", "multiedit", "notebookedit", "mcp_input", "bang_bash", "slash_args",
              "task_prompt", "webfetch_url", "tool_error")
NATURAL = {"command": "bash_input", "config": "read_result", "prose": "prompt", "unlabelled": "answer"}
ALNUM = string.ascii_letters + string.digits
SYMBOLS = "!#%*_-.@+="


@dataclass
class Case:
    id: str
    group: str
    template: str
    placement: str
    split: str
    text: str
    secret: str
    family: str = ""  # a generated dev family (generated.py); "" for the original corpus


def split_of(template_id: str) -> str:
    return "dev" if hashlib.sha256(template_id.encode()).digest()[0] % 2 == 0 else "test"


class Draw:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def chars(self, alphabet: str, n: int) -> str:
        while True:
            out = "".join(self.rng.choice(alphabet) for _ in range(n))
            if any(c.isdigit() for c in out) and any(c.isupper() for c in out) and any(c.islower() for c in out):
                return out

    def password(self) -> str:
        """What people use: random alphanumerics, or with a symbol or two inside (never first)."""
        n = self.rng.randint(11, 18)
        body = self.chars(ALNUM, n)
        for _ in range(self.rng.choice((0, 1, 1, 2))):
            i = self.rng.randint(1, len(body) - 1)
            body = body[:i] + self.rng.choice(SYMBOLS) + body[i:]
        return body

    def key(self, shape: str) -> str:
        if shape == "alnum32":
            return self.chars(ALNUM, 32)
        if shape == "alnum40":
            return self.chars(ALNUM, 40)
        if shape == "fernet":  # a Fernet key that starts with - or _ (the shape judged "not random" before)
            while True:
                key = base64.urlsafe_b64encode(self.rng.randbytes(32)).decode()
                if key[0] in "-_":
                    return key
        if shape == "ssh_body":  # an OpenSSH private key body, its BEGIN/END lines dropped
            blob = b"openssh-key-v1\0\0\0\0\x04none\0\0\0\x04none\0\0\0\0\0\0\0\x01\0\0\0\x33" + self.rng.randbytes(360)
            text = base64.b64encode(blob).decode()
            return "\n".join(text[i:i + 70] for i in range(0, len(text), 70))
        raise ValueError(shape)


def _templates() -> list[tuple[str, str, str]]:
    out = [("command", k, v) for k, v in COMMANDS.items()]
    out += [("config", k, v) for k, v in CONFIGS.items()]
    out += [("prose", k, v) for k, v in PROSE.items()]
    out += [("unlabelled", k, v) for k, v in UNLABELLED.items()]
    return out


def build(seed: int | None = None) -> tuple[int, list[Case]]:
    seed = seed if seed is not None else int.from_bytes(os.urandom(4), "big")
    rng = random.Random(seed)
    draw = Draw(rng)
    cases: list[Case] = []
    for n, (group, tid, template) in enumerate(_templates()):
        extra = 6 if group == "unlabelled" else 1  # few templates, each drawn in more places
        rotated = [PLACEMENTS[(n * 7 + i * 3) % len(PLACEMENTS)] for i in range(extra)]
        for placement in dict.fromkeys([NATURAL[group], *rotated]):
            secret = draw.key(UNLABELLED_SHAPE[tid]) if group == "unlabelled" else draw.password()
            fill = {"S": secret}
            if "{B}" in template:
                fill["B"] = secret = base64.b64encode(f"ci-bot:{secret}".encode()).decode()
            cases.append(Case(f"{group}:{tid}@{placement}", group, tid, placement, split_of(f"{group}:{tid}"),
                              template.format(**fill), secret))
    cases += _generated(draw)
    return seed, cases


def _generated(draw: Draw) -> list[Case]:
    """Session 9's generated dev cases (``generated.py``), drawn after the original corpus so its cases and
    the test half are the same for a seed as before."""
    from generated import TEXT_PLACES, templates

    out: list[Case] = []
    for n, (family, group, natural, tid, template) in enumerate(templates()):
        rotated = [TEXT_PLACES[(n * 5 + i * 7) % len(TEXT_PLACES)] for i in range(2)]
        for placement in dict.fromkeys([natural, *rotated]):
            secret = draw.password()
            fill = {"S": secret}
            if "{D}" in template:
                secret = draw.password().rstrip(SYMBOLS) + "." + "".join(draw.rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(2))
                fill = {"D": secret}
            out.append(Case(f"gen:{family}:{tid}@{placement}", group, tid, placement, "dev",
                            template.format(**fill), secret, family))
    return out


def numbered(text: str) -> str:
    """A Read tool result: ``cat -n`` style line numbers."""
    return "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(text.split("\n"), 1))


# --- as a Claude Code transcript ------------------------------------------------------------------

class Transcript:
    def __init__(self, session_id: str, cwd: str) -> None:
        self.session_id, self.cwd = session_id, cwd
        self.lines: list[dict] = []
        self.parent: str | None = None
        self.minute = 0

    def entry(self, kind: str, message: dict, **extra) -> str:
        uid = str(uuid.uuid4())
        self.minute += 1
        self.lines.append({"type": kind, "uuid": uid, "parentUuid": self.parent, "isSidechain": False,
                           "sessionId": self.session_id, "cwd": self.cwd, "version": "2.1.100",
                           "timestamp": f"2026-11-20T{10 + self.minute // 60:02d}:{self.minute % 60:02d}:00.000Z",
                           "message": message, **extra})
        self.parent = uid
        return uid

    def user(self, content) -> str:
        return self.entry("user", {"role": "user", "content": content})

    def assistant(self, blocks: list[dict]) -> str:
        return self.entry("assistant", {"id": "msg_" + uuid.uuid4().hex[:10], "role": "assistant", "content": blocks})

    def tool(self, name: str, tool_input: dict, result: str, is_error: bool = False) -> None:
        tid = "toolu_" + uuid.uuid4().hex[:20]
        self.assistant([{"type": "tool_use", "id": tid, "name": name, "input": tool_input}])
        self.entry("user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid, "content": result, "is_error": is_error}]},
            toolUseResult={"stdout": result})

    def jsonl(self) -> str:
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in self.lines)


def place(t: Transcript, case: Case) -> None:  # noqa: C901 -- one branch per placement, on purpose
    """Write one case as a turn: a prompt that starts the turn, then the case in its placement."""
    text, p = case.text, case.placement
    if p == "prompt":
        t.user(f"please look at this:\n{text}")
    elif p == "bang_bash":
        t.user(f"<bash-input>{text}</bash-input>")
        t.user("<bash-stdout>ok</bash-stdout><bash-stderr></bash-stderr>")
    elif p == "slash_args":
        t.user(f"<command-message>deploy is running…</command-message>\n<command-name>/deploy</command-name>\n"
               f"<command-args>{text}</command-args>")
    else:
        t.user(f"next step ({case.template})")
    if p == "answer":
        t.assistant([{"type": "text", "text": f"Done. I used this:\n{text}"}])
    elif p == "code_block":
        t.assistant([{"type": "text", "text": f"Here is what I ran:\n```\n{text}\n```\nIt worked."}])
    elif p == "thinking":
        t.assistant([{"type": "thinking", "thinking": f"The user gave {text} earlier, so I should use it.",
                      "signature": "sig"}, {"type": "text", "text": "Let me continue."}])
    elif p == "bash_input":
        t.tool("Bash", {"command": text, "description": "run it"}, "ok")
    elif p == "bash_output":
        t.tool("Bash", {"command": "cat deploy/notes.txt"}, text)
    elif p == "read_result":
        t.tool("Read", {"file_path": "/work/project/conf/app.conf"}, numbered(text))
    elif p == "write":
        t.tool("Write", {"file_path": "/work/project/conf/app.conf", "content": text}, "File created successfully")
    elif p == "edit":
        t.tool("Edit", {"file_path": "/work/project/conf/app.conf", "old_string": "x", "new_string": text}, "ok")
    elif p == "multiedit":
        t.tool("MultiEdit", {"file_path": "/work/project/conf/app.conf",
                             "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "x", "new_string": text}]},
               "ok")
    elif p == "notebookedit":
        t.tool("NotebookEdit", {"notebook_path": "/work/project/nb.ipynb", "cell_id": "c1", "new_source": text}, "ok")
    elif p == "mcp_input":
        t.tool("mcp__ops__run", {"query": text, "target": "staging"}, "done")
    elif p == "task_prompt":
        t.tool("Task", {"description": "set it up", "prompt": f"Configure the service with this:\n{text}",
                        "subagent_type": "general-purpose"}, "configured")
    elif p == "webfetch_url":
        url_safe = all(c.isalnum() or c in "-_.~" for c in case.secret)
        url = f"https://files.example.com/share/{case.secret}" if url_safe else "https://files.example.com/share"
        t.tool("WebFetch", {"url": url, "prompt": f"Check whether this works: {text}"}, "200 OK")
    elif p == "tool_error":
        t.tool("Bash", {"command": "./deploy.sh"}, f"Error: exit 1\n{text}\nfailed", is_error=True)
    t.assistant([{"type": "text", "text": "Ok."}])


def transcript_lines(cases: list[Case], session_id: str, cwd: str) -> str:
    t = Transcript(session_id, cwd)
    for case in cases:
        place(t, case)
    return t.jsonl()


def error_payload(case: Case, session_id: str, cwd: str, transcript_path: str) -> str:
    """The failure hook's input: the case as a failing Bash command's error text (and its command)."""
    command = case.text if case.group == "command" else "./deploy.sh"
    return json.dumps({"session_id": session_id, "cwd": cwd, "hook_event_name": "PostToolUseFailure",
                       "tool_name": "Bash", "tool_input": {"command": command},
                       "error": f"Command failed with exit code 1\n{case.text}", "transcript_path": transcript_path})
