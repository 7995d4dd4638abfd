"""Compiling approved learnings into guards (``shellguard`` checks them in the PreToolUse hook).

A learning that names a command or a file becomes a guard when the person at
this machine approves it (``memdown reflect promote``)::

    "Use pnpm, not npm."                      forbid npm (→ pnpm), npx (→ pnpm dlx)        deny
    "Never run `git push --force` on main."   forbid git push --force / -f                deny
    "Run tests with `uv run pytest`."         require pytest to run under `uv run`         ask
    "Prefer `rg` over `grep`."                forbid grep (→ rg)                           ask
    "Never edit `package-lock.json` by hand." Edit/Write of that file                      deny

Deny when the person stated a prohibition ("not", "never", "don't", "instead
of"): the agent gets the rule and the suggestion back and tries again. Ask
when the rule is a preference or only says how something is done ("prefer",
"avoid", "run X with Y"): there are fair exceptions, so the person decides.

The compiled file lives under ``paths.memdown_home()`` (per user, never
committed) and is rewritten atomically; a committed but unapproved learning
never reaches it. Commands are recognised only in backticks or from a list of
well-known tools, so "use tabs, not spaces" compiles to nothing.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import re
import shlex
from pathlib import Path

from .. import fsutil, paths, shellcmd, shellguard
from ..fsutil import atomic_write_text, file_lock

KNOWN_TOOLS = frozenset("""
npm npx pnpm pnpx yarn bun bunx node deno tsc tsx eslint prettier jest vitest webpack vite next turbo nx lerna
pip pip3 pipx uv uvx poetry pipenv conda mamba python python3 pytest tox nox black ruff flake8 mypy pylint isort
django-admin git gh hub docker docker-compose podman kubectl helm terraform ansible vagrant make cmake ninja bazel
cargo rustc rustup go gofmt mvn gradle gradlew java javac dotnet swift xcodebuild pod fastlane gem bundle rake rails
composer php brew apt apt-get yum dnf pacman snap curl wget ssh scp rsync sed awk rm mv cp chmod chown kill pkill
killall find grep rg fd ls cat tar unzip zip psql mysql sqlite3 redis-cli mongo mongosh aws gcloud az firebase
vercel netlify heroku flyctl wrangler alembic prisma sequelize knex flask uvicorn gunicorn celery supervisorctl
systemctl service crontab tmux screen vim nano code jq yq openssl
""".split())
# A package manager's own runner: the guard on one also covers the other.
RUNNER_OF = {"npm": ["npx"], "pnpm": ["pnpm", "dlx"], "yarn": ["yarn", "dlx"], "bun": ["bunx"], "uv": ["uvx"]}
# Tools that do the same job: "always use pnpm" asks before npm, yarn or bun.
FAMILIES = (("npm", "pnpm", "yarn", "bun"), ("pip", "poetry", "pipenv", "uv"))
_ONLY = re.compile(r"^(?:always\s+|only\s+)?use\s+(?P<good>`[^`]+`|\S+)(?P<rest>(?:\s+\S+)*)\s*$", re.I)
_ONLY_BUT = re.compile(r"\b(?:not|never|except|unless|when|if|with|instead|rather|than|over|or|and\s+not)\b", re.I)
# Options with a short alias the rule may not spell.
FLAG_ALIASES = {"--force": "-f", "--recursive": "-r", "--no-verify": "-n", "--all": "-a", "--yes": "-y"}

_SPAN = re.compile(r"`([^`\n]+)`")
_ASK = re.compile(r"\b(prefer|preferably|rather than|avoid|try (?:not )?to|usually|ideally|if possible|when possible)\b",
                  re.I)
_PAIR = re.compile(r"\b(?:use|run|call|prefer|pick|choose|want)\s+(?P<good>.+?)\s*(?:,\s*|\s+|;\s*)(?:and\s+|but\s+)?"
                   r"(?:not|never|instead of|rather than|over|no)\s+(?P<bad>.+)", re.I)
_INSTEAD = re.compile(r"(?P<good>.+?)\s+(?:instead of|rather than)\s+(?P<bad>.+)", re.I)
_NOT_BUT = re.compile(r"\bnot\s+(?P<bad>.+?),?\s+but\s+(?P<good>.+)", re.I)
_NEVER = re.compile(r"\b(?:never|don'?t|do not|must not|mustn'?t|should not|shouldn'?t|stop|avoid|no more|no)\s+"
                    r"(?:ever\s+)?(?:(?:use|using|run|running|call|calling|invoke|execute|executing|type|do)\b)?\s*(?P<bad>.+)",
                    re.I)
_USE_AFTER = re.compile(r"\buse\s+(?P<good>.+?)(?:\s+instead\b|$)", re.I)
_REQUIRE = re.compile(r"\b(?:run|execute|invoke|start)\s+(?:the\s+)?(?:\w+\s+){0,3}?(?:with|via|using|through)\s+"
                      r"(?P<how>`[^`]+`)|\b(?:always\s+)?use\s+(?P<how2>`[^`]+`)\s+(?:to|for)\b", re.I)
_EDIT = re.compile(r"\b(?:never|don'?t|do not|must not|should not|avoid|no)\s+(?:\w+\s+)?(?:edit|editing|modify|"
                   r"modifying|change|changing|touch|touching|write to|writing to|overwrite|overwriting|"
                   r"hand-edit)\s+(?P<path>.+)", re.I)
_WHERE = re.compile(r"\b(?:on|in|inside|under|from)\s+(?:the\s+)?(?P<where>`[^`]+`|[\w./-]+)"
                    r"(?:\s+(?P<kind>folder|directory|dir|path|tree|namespace|cluster|environment|env|database|db|"
                    r"server))?", re.I)
_LEAD_VERB = re.compile(r"^(?:calling|running|using|invoking|executing|typing)\s+", re.I)
GIT_VERBS = frozenset({"commit", "push", "rebase", "merge", "checkout", "reset", "stash", "cherry-pick"})
_WORD = re.compile(r"[A-Za-z0-9_.+/@:=-]+$")
_STOP_WORDS = frozenset("for to when on in the a an with because unless if as and or but by from at it this that "
                        "please instead anymore here there again directly ever".split())


def guards_home() -> Path:
    return paths.memdown_home()


def _words(span: str) -> list[str]:
    """A command's words; [] when it starts with a wrapper such as sudo (the hook looks through those,
    so a guard on "sudo pip install" would forbid every "pip install")."""
    try:
        words = shlex.split(span)
    except ValueError:
        return []
    words = words[next((i for i, w in enumerate(words) if not shellcmd.is_assignment(w)), len(words)):]
    return [] if words and words[0] in shellcmd.WRAPPERS else words


def command_of(fragment: str) -> list[str]:
    """The command a phrase names ("npm", "`git push --force` on main", "commit with --no-verify"), or []."""
    fragment = _LEAD_VERB.sub("", fragment.strip())
    span = _SPAN.search(fragment)
    if span and span.start() <= 2:
        return _words(span.group(1))
    words: list[str] = []
    raw_words = fragment.split()
    for k, raw in enumerate(raw_words):
        word = raw.strip(".,;:!?()\"'`")
        if word.lower() in ("with", "using") and words and k + 1 < len(raw_words) and \
                raw_words[k + 1].lstrip("`").startswith("-"):
            continue  # "commit with --no-verify": the flag belongs to the command
        if not word or word.lower() in _STOP_WORDS or not _WORD.match(word):
            break
        words.append(word)
        if len(words) == 4 or raw[-1] in ".,;:!?)":
            break
    if words and words[0] in GIT_VERBS:
        words = ["git", *words]
    if not words or words[0] not in KNOWN_TOOLS:
        return []
    return words if all(w.startswith("-") or w.islower() for w in words) else words[:1]


def scope_of(fragment: str) -> str:
    """The folder a phrase narrows a command to ("… on the data folder" → "data"), or ''."""
    found = _WHERE.search(fragment)
    if not found:
        return ""
    where = found["where"].strip("`'\"")
    return where if found["kind"] or "/" in where else ""


def _forbid(bad: list[str], good: list[str], where: str = "") -> list[dict]:
    out = [{"argv": bad, "instead": good}]
    for flag, short in FLAG_ALIASES.items():
        if flag in bad:
            out.append({"argv": [short if w == flag else w for w in bad], "instead": []})
    if where:
        for item in out:
            item["within"] = where
    if len(bad) == 1 and len(RUNNER_OF.get(bad[0], ())) == 1:  # npx, bunx, uvx: their own programs
        runner = RUNNER_OF[bad[0]]
        out.append({"argv": runner[:1], "instead": RUNNER_OF.get(good[0], []) if len(good) == 1 else []})
    return out


def _first_sentence_with(text: str, pattern: re.Pattern) -> re.Match | None:
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        found = pattern.search(sentence.rstrip(".!?"))
        if found:
            return found
    return None


def compile_rule(text: str) -> dict | None:
    """The guard a rule's text asks for (forbid / require / paths and a decision), or None.

    Compiled from the text as the context gate judges it (``fence.normalized``: invisible characters
    removed, NFKC, marks and look-alike letters folded), so a soft hyphen or a zero-width space inside
    `git pu\u00adsh` cannot make a guard that promote reports as "deny" and that stops nothing."""
    from ..fence import normalized

    text = " ".join(normalized(text).split())
    decision = "ask" if _ASK.search(text) else "deny"
    for pattern in (_PAIR, _NOT_BUT, _INSTEAD):
        found = _first_sentence_with(text, pattern)
        if found:
            bad, good = command_of(found["bad"]), command_of(found["good"])
            if bad and bad != good:
                return {"decision": decision, "forbid": _forbid(bad, good)}
    found = _first_sentence_with(text, _EDIT)
    if found:
        target = _path_of(found["path"])
        if target:
            return {"decision": decision, "paths": [target]}
    found = _first_sentence_with(text, _NEVER)
    if found:
        bad = command_of(found["bad"])
        if bad:
            use = _USE_AFTER.search(found["bad"]) or _first_sentence_with(text[found.end():], _USE_AFTER)
            forbid = _forbid(bad, command_of(use["good"]) if use else [], scope_of(found["bad"]))
            return {"decision": decision, "forbid": forbid}
    found = _first_sentence_with(text, _ONLY)
    if found and not _ONLY_BUT.search(found["rest"]):
        good = command_of(found["good"])
        family = next((f for f in FAMILIES if good[:1] and good[0] in f), ())
        if family:
            others = [[tool] for tool in family if tool != good[0]]
            return {"decision": "ask", "forbid": [item for bad in others for item in _forbid(bad, good[:1])]}
    found = _first_sentence_with(text, _REQUIRE)
    if found:
        how = _words((found["how"] or found["how2"]).strip("`"))
        chain = [(c, w) for c, w in shellcmd.views(how)]
        if len(chain) > 1:
            runners, argv = chain[-1]
            return {"decision": "ask", "require": [{"program": os.path.basename(argv[0]), "via": runners[0]}]}
    return None


def _path_of(fragment: str) -> str:
    """The file or folder a phrase names: a backtick span, else the first path-looking word of its first six."""
    span = _SPAN.search(fragment)
    found = [span.group(1).strip()] if span else [w.strip("\"'()").rstrip(".,;:!?") for w in fragment.split()[:6]]
    for word in found:
        if word and " " not in word and ("/" in word or re.search(r"\.[A-Za-z0-9]{1,8}$", word)
                                         or any(c in word for c in "*?")):
            return word.removeprefix("./")
    return ""


# --- the compiled file ---------------------------------------------------------------

def _read() -> list[dict]:
    return shellguard.load(str(guards_home()))


def _write(guards: list[dict]) -> None:
    home = guards_home()
    fsutil.make_dirs(home, mode=0o700)
    data = {"format": shellguard.FORMAT, "guards": guards}
    atomic_write_text(Path(shellguard.guard_path(str(home))), json.dumps(data, ensure_ascii=False, indent=1) + "\n",
                      mode=paths.PRIVATE_FILE_MODE)


def _lock() -> Path:
    return guards_home() / ".guards.lock"


def add(root: Path | None, learning_id: str, token: str, rule: str, files: list[str] | None = None) -> dict | None:
    """Compile ``rule`` (just approved on this machine) into a guard; ``root`` None means everywhere. ``files``:
    the instruction files the rule was written to (``still_written`` looks for it there)."""
    from ..fence import clean

    rule = " ".join(clean(rule).split())  # the text shown back (hook reasons, `reflect guards`): no hidden characters
    spec = compile_rule(rule)
    if spec is None:
        return None
    guard = {"id": learning_id, "token": token, "root": os.path.realpath(root) if root is not None else "",
             "rule": rule, "approved": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d"), **spec}
    if files:
        guard["files"] = [os.path.abspath(f) for f in files]
    with file_lock(_lock(), timeout=30):
        kept = [g for g in _read() if not (g.get("id") == learning_id and g.get("token") == token
                                           and g.get("root") == guard["root"])]
        _write(kept + [guard])
    return guard


def describe(guard: dict) -> str:
    """What a guard checks, as promote prints it (compiled from the normalized rule text)."""
    shown = [" ".join(rule.get("argv") or []) + (f" (in {rule['within']})" if rule.get("within") else "")
             for rule in guard.get("forbid") or ()]
    shown += [f"{rule.get('program')} outside {rule.get('via')}" for rule in guard.get("require") or ()]
    shown += [f"writes to {path}" for path in guard.get("paths") or ()]
    return "; ".join(s for s in shown if s)


def remove(learning_id: str, token: str = "") -> int:
    """Drop the guards of this learning (all promotions of it when ``token`` is empty); how many went."""
    with file_lock(_lock(), timeout=30):
        guards = _read()
        kept = [g for g in guards if not (g.get("id") == learning_id and (not token or g.get("token") == token))]
        if len(kept) != len(guards):
            _write(kept)
    return len(guards) - len(kept)


def listed(root: Path | None = None) -> list[dict]:
    """Every guard on this machine, or those that apply under ``root``."""
    where = os.path.realpath(root) if root is not None else None
    return [g for g in _read() if where is None or shellguard.applies(g, where)]

