"""Transcripts written for the entries benchmark (our own text, Claude Code's shape).

Each builder returns JSONL lines; turn prompt uuids are fixed so labels.json can
name them. Shapes follow real 2.1.x transcripts: API errors are assistant
entries with ``isApiErrorMessage`` and model ``<synthetic>``; ``!cmd`` is a user
entry ``<bash-input>…</bash-input>`` followed by ``<bash-stdout>…``; local slash
commands are ``<command-name>`` entries followed by ``<local-command-stdout>``.
"""
from __future__ import annotations

import json
from pathlib import Path


class Script:
    def __init__(self, session: str) -> None:
        self.session = session
        self.lines: list[dict] = []
        self.parent: str | None = None
        self.n = 0

    def _entry(self, kind: str, message: dict, uuid: str | None = None, **extra) -> str:
        self.n += 1
        uid = uuid or f"{self.session}-e{self.n}"
        self.lines.append({
            "type": kind, "uuid": uid, "parentUuid": self.parent, "isSidechain": False,
            "sessionId": self.session, "cwd": "/home/dev/shop", "version": "2.1.120",
            "timestamp": f"2026-11-20T09:{self.n % 60:02d}:00.000Z", "message": message, **extra,
        })
        self.parent = uid
        return uid

    def prompt(self, uuid: str, text: str) -> None:
        self._entry("user", {"role": "user", "content": text}, uuid=uuid)

    def meta(self, text: str) -> None:
        self._entry("user", {"role": "user", "content": text}, isMeta=True)

    def reply(self, text: str) -> None:
        self._entry("assistant", {"id": f"msg-{self.n}", "role": "assistant", "model": "claude-sonnet-4-5",
                                  "content": [{"type": "text", "text": text}]})

    def api_error(self, text: str) -> None:
        self._entry("assistant", {"id": f"err-{self.n}", "role": "assistant", "model": "<synthetic>",
                                  "content": [{"type": "text", "text": text}]}, isApiErrorMessage=True)

    def tool(self, name: str, tool_input: dict, result: str, *, error: bool = False) -> None:
        tid = f"toolu_{self.session}_{self.n}"
        self._entry("assistant", {"id": f"msg-{self.n}", "role": "assistant", "model": "claude-sonnet-4-5",
                                  "content": [{"type": "tool_use", "id": tid, "name": name, "input": tool_input}]})
        self._entry("user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid, "content": result, "is_error": error}]},
            toolUseResult={"stdout": result})

    def user_raw(self, text: str) -> None:
        self._entry("user", {"role": "user", "content": text})

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines), encoding="utf-8")
        return path


def retry_after_502() -> Script:
    s = Script("syn-retry")
    s.prompt("syn-retry-t1", "Add cursor pagination to the /api/users endpoint")
    s.api_error("API Error: 502 Bad Gateway · upstream connect error")
    s.prompt("syn-retry-t2", "retry")
    s.reply("Let me look at the endpoint first.")
    s.tool("Read", {"file_path": "/home/dev/shop/api/users.py"}, "def list_users(): ...")
    s.tool("Edit", {"file_path": "/home/dev/shop/api/users.py", "old_string": "a", "new_string": "b"}, "ok")
    s.tool("Bash", {"command": "pytest tests/test_users.py -q"}, "4 passed")
    s.reply("Added cursor pagination to `list_users` in api/users.py: `?cursor=` takes the last id, "
            "pages hold 50 rows. tests/test_users.py passes.")
    return s


def preamble_build_fix() -> Script:
    s = Script("syn-build")
    s.prompt("syn-build-t1", "The build is broken again, fix it")
    s.reply("Let me try a more direct approach:")
    s.tool("Bash", {"command": "npm run build"},
           "Exit code 2\nsrc/config.ts(14,3): error TS2322: Type 'string' is not assignable to type 'number'.",
           error=True)
    s.reply("Now I understand. Let me check the config:")
    s.tool("Read", {"file_path": "/home/dev/shop/src/config.ts"}, "timeout: process.env.TIMEOUT")
    s.tool("Edit", {"file_path": "/home/dev/shop/src/config.ts", "old_string": "x", "new_string": "y"}, "ok")
    s.tool("Bash", {"command": "npm run build"}, "built in 4.2s")
    s.reply("Fixed the build: `timeout` in src/config.ts was read from the environment as a string; "
            "it is now parsed with Number(). `npm run build` passes.")
    return s


def client_only() -> Script:
    s = Script("syn-client")
    s.prompt("syn-client-t1", "<bash-input>git status</bash-input>")
    s.user_raw("<bash-stdout>On branch main\nnothing to commit</bash-stdout><bash-stderr></bash-stderr>")
    s.prompt("syn-client-t2", "<command-name>/model</command-name>\n<command-message>model</command-message>\n"
                              "<command-args></command-args>")
    s.user_raw("<local-command-stdout>Set model to opus</local-command-stdout>")
    s.prompt("syn-client-t3", "<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n"
                              "<command-args>auth/session.py</command-args>")
    s.meta("Review the given file for bugs and risky patterns.")
    s.tool("Read", {"file_path": "/home/dev/shop/auth/session.py"}, "def refresh(): ...")
    s.reply("Review of auth/session.py: the token refresh races when two requests expire together; "
            "guard `refresh()` with a lock. No other issues.")
    return s


def recall() -> Script:
    s = Script("syn-recall")
    s.prompt("syn-recall-t1", "what did we decide about the cache eviction policy?")
    s.tool("Skill", {"skill": "memdown:memory-recall", "args": "cache eviction policy decision"},
           "Skill memdown:memory-recall completed (forked execution). Result: On 2026-11-18 the team chose LRU "
           "eviction with a 512 MB cap (source: .memdown/memory/2026-11-18.md:12-16, session 7c1e0b2a).")
    s.reply("We decided on LRU eviction with a 512 MB cap (.memdown/memory/2026-11-18.md:12-16).")
    s.prompt("syn-recall-t2", "remind me how we handle retries in the uploader")
    s.tool("Bash", {"command": 'memdown search "uploader retries" --json -k 5'},
           json.dumps([{"id": "a1b2c3d4e5f6a7b8c9d0", "source": "memory/2026-11-19.md", "start_line": 8,
                        "end_line": 12, "text": "- Decided: exponential backoff with jitter, max 5 tries"}]))
    s.tool("Bash", {"command": "memdown expand a1b2c3d4e5f6a7b8c9d0"},
           "memory/2026-11-19.md:8-12\n- Decided: exponential backoff with jitter, max 5 tries")
    s.reply("The uploader retries with exponential backoff with jitter, max 5 tries (memory/2026-11-19.md:8-12).")
    return s


def decision() -> Script:
    s = Script("syn-decision")
    s.prompt("syn-decision-t1", "Should the job queue use SQLite or Postgres?")
    s.reply("Let me check how the workers are deployed.")
    s.tool("Read", {"file_path": "/home/dev/shop/deploy/compose.yml"}, "services: web, worker")
    s.reply("Decision: keep the job queue in SQLite with WAL mode. Everything runs on one host, so Postgres "
            "would add a service to operate for no gain; revisit if workers move to a second machine.")
    s.prompt("syn-decision-t2", "the worker crashes on start")
    s.tool("Bash", {"command": "python -m shop.worker"},
           "Traceback (most recent call last):\nModuleNotFoundError: No module named 'yaml'", error=True)
    s.tool("Bash", {"command": "pip install pyyaml"}, "Successfully installed PyYAML-6.0.2")
    s.tool("Edit", {"file_path": "/home/dev/shop/pyproject.toml", "old_string": "a", "new_string": "b"}, "ok")
    s.tool("Bash", {"command": "python -m shop.worker --check"}, "worker ok")
    s.reply("The worker imported `yaml` without depending on it. Added pyyaml to pyproject.toml dependencies; "
            "the worker starts.")
    return s


def interrupted() -> Script:
    s = Script("syn-int")
    s.prompt("syn-int-t1", "Write an alembic migrate step adding an index on orders.customer_id")
    s.user_raw("[Request interrupted by user]")
    s.prompt("syn-int-t2", "continue")
    s.tool("Write", {"file_path": "/home/dev/shop/alembic/versions/0042_add_index.py", "content": "..."}, "ok")
    s.tool("Bash", {"command": "alembic upgrade head"}, "Running upgrade 0041 -> 0042")
    s.reply("Added alembic/versions/0042_add_index.py (index ix_orders_customer_id) and applied it.")
    return s


SCRIPTS = {
    "retry_after_502": retry_after_502,
    "preamble_build_fix": preamble_build_fix,
    "client_only": client_only,
    "recall": recall,
    "decision": decision,
    "interrupted": interrupted,
}


def write_all(folder: Path) -> dict[str, Path]:
    return {name: build().write(folder / f"{build().session}.jsonl") for name, build in SCRIPTS.items()}
