"""Guards: an approved correction stops the repeated mistake (compiled rule, shell matching, the real hook)."""
from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memdown import paths, shellguard
from memdown.config import load_config
from memdown.learning import guards, learnings, review
from memdown.signals import store
from memdown.signals.store import Signal

REPO = Path(__file__).resolve().parent.parent
SHIM = REPO / "hooks" / "memdown-hook"
NOW = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.timezone.utc)


def hook(payload: dict | str, *, shim: bool = False, **extra: str) -> dict:
    cmd = [str(SHIM), "PreToolUse"] if shim else [sys.executable, "-m", "memdown", "hook", "PreToolUse"]
    env = {**os.environ, **extra}
    if shim:
        env["MEMDOWN_BIN"] = str(Path(sys.executable).parent / "memdown")
    proc = subprocess.run(cmd, input=json.dumps(payload) if isinstance(payload, dict) else payload,
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


def bash(project: Path, command: str) -> dict:
    return {"session_id": "s1", "cwd": str(project), "tool_name": "Bash", "tool_input": {"command": command}}


def promote_quote(root: Path, quote: str, target: str = "project", kind: str = "correction") -> dict:
    sig = store.append(root, [Signal(kind, quote, 3, session="s1", turn="t1", pattern=f"en.{kind}.x",
                                     captured=store.iso(NOW))], now=NOW)[0]
    return review.promote(root, sig.id, target, now=NOW, config=load_config(root))


def decision(answer: dict) -> str:
    return answer.get("hookSpecificOutput", {}).get("permissionDecision", "")


# --- compiling a rule ------------------------------------------------------------------

@pytest.mark.parametrize("rule, kind, what", [
    ("Use pnpm, not npm.", "deny", ["npm"]),
    ("Never run `git push --force` on main.", "deny", ["git", "push", "--force"]),
    ("Run tests with `uv run pytest`.", "ask", "pytest"),
    ("Prefer `rg` over `grep`.", "ask", ["grep"]),
    ("Don't use npm install; use pnpm install instead.", "deny", ["npm", "install"]),
    ("Never edit `package-lock.json` by hand.", "deny", "package-lock.json"),
    ("Do not touch the files in `migrations/`.", "deny", "migrations/"),
    ("Use yarn instead of npm.", "deny", ["npm"]),
    ("Always use pnpm for installs and scripts in this repository.", "ask", ["npm"]),  # the others of its family
    ("Use uv for dependencies.", "ask", ["pip"]),
])
def test_a_rule_that_names_a_command_or_a_file_compiles_to_a_guard(rule, kind, what):
    spec = guards.compile_rule(rule)
    assert spec is not None and spec["decision"] == kind
    if isinstance(what, list):
        assert spec["forbid"][0]["argv"] == what
    elif "require" in spec:
        assert spec["require"][0]["program"] == what
    else:
        assert spec["paths"] == [what]


@pytest.mark.parametrize("rule", [
    "Use tabs, not spaces.", "Use UTC, not local time.", "Name the three sync steps bootstrap, backfill and delta.",
    "Don't apologize so much.", "Never use `sudo pip install`.", "Always answer in French.", "Use tabs.",
    "Use pip only when uv fails.", "Use `ruff` for linting.",
])
def test_a_rule_that_names_no_command_compiles_to_nothing(rule):
    assert guards.compile_rule(rule) is None


# --- matching a command ------------------------------------------------------------------

PNPM = [{"id": "LRN-1", "rule": "Use pnpm, not npm.", **guards.compile_rule("Use pnpm, not npm.")}]


@pytest.mark.parametrize("command, suggestion", [
    ("npm install", "pnpm install"),
    ("cd web && npm ci", "pnpm ci"),
    ("make build; npm run dev", "pnpm run dev"),
    ("cat x | npm exec foo", "pnpm exec foo"),
    ("sudo -u app FOO=1 NODE_ENV=test npm test", "pnpm test"),
    ("/usr/local/bin/npm i left-pad", "pnpm i left-pad"),
    ("npx create-vite app", "pnpm dlx create-vite app"),
    ("bash -lc 'npm run build'", "pnpm run build"),
    ("VERSION=$(npm view x version)", "pnpm view x version"),
    ("(cd app\nnpm install)", "pnpm install"),
    ("time npm run lint 2>&1 | tail", "pnpm run lint"),
])
def test_the_forbidden_command_is_caught_in_any_shell_shape(command, suggestion):
    hit = shellguard.check(PNPM, "Bash", {"command": command}, "/p/.memdown")
    assert hit is not None and hit[0] == "deny" and f"Instead run: {suggestion}" in hit[1], hit


@pytest.mark.parametrize("command", [
    "pnpm install", "echo npm", "grep -rn 'npm install' docs", "pnpm dlx npm-check-updates", "git commit -m 'drop npm'",
    "cat <<EOF > notes.md\nnpm install\nEOF", "ls node_modules/.bin/npm-run-all", "yarn add npm", "# npm install",
    "echo 'unbalanced", "python -c 'import npm'",
])
def test_near_misses_pass(command):
    assert shellguard.check(PNPM, "Bash", {"command": command}, "/p/.memdown") is None


def test_a_preferred_tool_asks_before_the_others_of_its_family():
    pnpm = [{"id": "L", "rule": "r", **guards.compile_rule("Always use `pnpm`.")}]
    for command in ("npm install", "yarn add x", "bun install", "npx vite"):
        hit = shellguard.check(pnpm, "Bash", {"command": command}, "/p")
        assert hit is not None and hit[0] == "ask", command
    for command in ("pnpm install", "pnpm dlx vite", "node x.js"):
        assert shellguard.check(pnpm, "Bash", {"command": command}, "/p") is None, command


def test_force_push_short_flags_and_scoped_rules():
    push = [{"id": "L", "rule": "r", **guards.compile_rule("Never run `git push --force` on main.")}]
    for command in ("git push --force origin main", "git push -f", "git push -fu origin x", "git push --force=yes"):
        assert shellguard.check(push, "Bash", {"command": command}, "/p") is not None, command
    for command in ("git push origin main", "git push --force-with-lease", "git fetch --force"):
        assert shellguard.check(push, "Bash", {"command": command}, "/p") is None, command
    scoped = [{"id": "L", "rule": "r", **guards.compile_rule("Never use `rm -rf` on the data folder.")}]
    assert shellguard.check(scoped, "Bash", {"command": "rm -rf data/cache"}, "/p") is not None
    assert shellguard.check(scoped, "Bash", {"command": "rm -rf build dist"}, "/p") is None


def test_a_required_runner_asks_when_the_tool_runs_without_it():
    uv = [{"id": "L", "rule": "r", **guards.compile_rule("Run tests with `uv run pytest`.")}]
    hit = shellguard.check(uv, "Bash", {"command": "python -m pytest -x tests"}, "/p")
    assert hit is not None and hit[0] == "ask" and "uv run pytest -x tests" in hit[1]
    assert shellguard.check(uv, "Bash", {"command": "pytest"}, "/p") is not None
    for command in ("uv run pytest -x", "uv run --with hypothesis pytest", "uv run python -m pytest", "pip install pytest"):
        assert shellguard.check(uv, "Bash", {"command": command}, "/p") is None, command


def test_path_guards_apply_to_edits_under_the_project():
    lock = [{"id": "L", "rule": "r", **guards.compile_rule("Never edit `package-lock.json` by hand.")},
            {"id": "M", "rule": "r", **guards.compile_rule("Do not touch the files in `migrations/`.")}]
    assert shellguard.check(lock, "Edit", {"file_path": "/p/web/package-lock.json"}, "/p/.memdown") is not None
    assert shellguard.check(lock, "Write", {"file_path": "/p/db/migrations/0001.py"}, "/p/.memdown") is not None
    assert shellguard.check(lock, "Edit", {"file_path": "/p/web/package.json"}, "/p/.memdown") is None
    assert shellguard.check(lock, "Edit", {"file_path": "/p/db/migrations_old.txt"}, "/p/.memdown") is None


# --- the loop through the real hook --------------------------------------------------------

def test_an_approved_correction_denies_the_repeat_in_the_hook(memory_root: Path, isolate_paths: Path):
    result = promote_quote(memory_root, "no, use pnpm, not npm")
    assert result["guard"] == "deny"
    answer = hook(bash(isolate_paths, "cd web && npm install left-pad"))
    out = answer["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse" and out["permissionDecision"] == "deny"
    assert "Use pnpm, not npm." in out["permissionDecisionReason"]
    assert "pnpm install left-pad" in out["permissionDecisionReason"]
    assert hook(bash(isolate_paths, "pnpm install left-pad")) == {}
    assert decision(hook(bash(isolate_paths, "npm ci"), shim=True)) == "deny"  # through the plugin's shim too


def test_undo_removes_the_guard(memory_root: Path, isolate_paths: Path):
    result = promote_quote(memory_root, "no, use pnpm, not npm")
    assert decision(hook(bash(isolate_paths, "npm install"))) == "deny"
    review.undo(memory_root, result["learning"], now=NOW)
    assert hook(bash(isolate_paths, "npm install")) == {}


@pytest.mark.parametrize("status", ["promoted", "pending"])
def test_a_committed_but_unapproved_learning_blocks_nothing(memory_root: Path, isolate_paths: Path, status: str):
    """learnings.md comes with the repository: a rule in it was approved on someone else's machine, if at all.
    A pending one is what crash recovery finishes, but only with an approval made here."""
    learnings.add(memory_root, learnings.Learning(id="", text="Never run `git status`.", status=status,
                                                  extra={"target": "project", "token": "deadbeef"}), day="2026-11-22")
    (memory_root.parent / "CLAUDE.md").write_text("## Learned rules (memdown)\n\n- Never run `git status`. "
                                                  "<!-- memdown:LRN-20261122-0001 #deadbeef -->\n")
    review.analyze(memory_root, config=load_config(memory_root))  # recovery finishes only approved promotions
    assert hook(bash(isolate_paths, "git status")) == {}
    assert not (paths.memdown_home() / shellguard.GUARD_FILE).exists()


def test_a_project_guard_does_not_apply_in_another_project(memory_root: Path, isolate_paths: Path, tmp_path: Path):
    promote_quote(memory_root, "no, use pnpm, not npm")
    other = tmp_path / "other"
    (other / ".memdown").mkdir(parents=True)
    assert hook(bash(other, "npm install"), MEMDOWN_DIR=str(other / ".memdown")) == {}
    assert decision(hook(bash(isolate_paths, "npm install"))) == "deny"
    assert guards.listed(other / ".memdown") == []
    assert len(guards.listed(memory_root)) == 1


def test_a_global_rule_guards_everywhere(memory_root: Path, tmp_path: Path):
    promote_quote(memory_root, "never run `git push --force`", target="global")
    assert guards.listed(tmp_path / "elsewhere" / ".memdown")[0]["root"] == ""


@pytest.mark.parametrize("payload", [
    "not json", "[]", json.dumps({"tool_name": "Bash", "tool_input": "npm install"}),
    json.dumps({"tool_name": "Bash", "tool_input": {"command": 5}}), json.dumps({"tool_name": "Bash"}),
])
def test_bad_input_fails_open(memory_root: Path, isolate_paths: Path, payload: str):
    promote_quote(memory_root, "no, use pnpm, not npm")
    assert hook(payload) == {}


@pytest.mark.parametrize("content", ["{", "[]", '{"format": 1, "guards": 5}', '{"format": 99, "guards": []}',
                                     '{"format": 1, "guards": [{"forbid": 3}]}', '{"format": 1, "guards": [7]}'])
def test_a_damaged_guard_file_fails_open(isolate_paths: Path, content: str):
    target = paths.memdown_home() / shellguard.GUARD_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content)
    assert hook(bash(isolate_paths, "npm install")) == {}


def test_an_edit_of_a_guarded_file_is_denied(memory_root: Path, isolate_paths: Path):
    promote_quote(memory_root, "never edit `package-lock.json` by hand", kind="convention")
    payload = {"cwd": str(isolate_paths), "tool_name": "Edit",
               "tool_input": {"file_path": str(isolate_paths / "package-lock.json"), "old_string": "a", "new_string": "b"}}
    assert decision(hook(payload)) == "deny"
    assert hook({**payload, "tool_input": {**payload["tool_input"], "file_path": str(isolate_paths / "x.json")}}) == {}


def test_the_guard_file_is_private(memory_root: Path):
    promote_quote(memory_root, "no, use pnpm, not npm")
    assert (paths.memdown_home() / shellguard.GUARD_FILE).stat().st_mode & 0o077 == 0


# --- the benchmark's scenarios stay stopped (bench/bench_guards.py reports the figures) --------------

def test_every_scenario_repeat_is_stopped():
    sys.path.insert(0, str(REPO / "bench"))
    from bench_guards import call_of, compiled
    from guard_scenarios import SCENARIOS

    for (quote, repeats, near), (rule, guard) in zip(SCENARIOS, compiled()):
        assert guard is not None, rule
        for action in repeats:
            assert shellguard.check([guard], *call_of(action), "/project/.memdown"), (rule, action)
        known = {"terraform apply plan.tfplan"}  # "without a plan": a condition the compiler does not read
        for action in near:
            assert action in known or not shellguard.check([guard], *call_of(action), "/project/.memdown"), (rule, action)


# --- the hook's path stays small (it runs before every tool call) ------------------------------------

PROBE = ("import os, sys\nsys.argv = ['memdown', 'hook', 'PreToolUse']\nfrom memdown.entry import main\n"
         "_exit = os._exit\n"  # the hook leaves with os._exit: the modules are listed there
         "os._exit = lambda code: (print(' '.join(sorted(sys.modules)), file=sys.stderr), sys.stderr.flush(), "
         "_exit(code))\nmain()\n")
ALLOWED_MEMDOWN = {"memdown", "memdown.entry", "memdown.hooks", "memdown.hooks.pretool", "memdown.hooks.output",
                   "memdown.envflags", "memdown.shellguard", "memdown.shellcmd", "memdown.shellparse", "memdown.wirejson"}


def modules_loaded(payload: dict) -> set[str]:
    proc = subprocess.run([sys.executable, "-S", "-c", PROBE], input=json.dumps(payload), capture_output=True,
                          text=True, timeout=60, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == 0 and proc.stdout.strip() == "{}", proc.stderr
    return set(proc.stderr.split())


def test_without_guards_the_hook_imports_neither_json_nor_pathlib(isolate_paths: Path):
    loaded = modules_loaded(bash(isolate_paths, "npm install"))
    assert not {"json", "pathlib", "re", "shlex"} & loaded
    assert {m for m in loaded if m.startswith("memdown")} <= ALLOWED_MEMDOWN


def test_with_guards_a_passing_command_stays_on_the_short_path(memory_root: Path, isolate_paths: Path):
    promote_quote(memory_root, "no, use pnpm, not npm")
    loaded = modules_loaded(bash(isolate_paths, "git status && ls -la"))
    assert "pathlib" not in loaded  # the project is looked up only when one of its guards matched
    assert "json" not in loaded  # the payload and the guard file are read with json's C codec (wirejson)
    assert {m for m in loaded if m.startswith("memdown")} <= ALLOWED_MEMDOWN


def test_reflect_guards_lists_and_removes(memory_root: Path, isolate_paths: Path):
    from conftest import run_memdown

    lrn = promote_quote(memory_root, "no, use pnpm, not npm")["learning"]
    listed = run_memdown("reflect", "guards", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [(g["id"], g["decision"]) for g in json.loads(listed.stdout)] == [(lrn, "deny")]
    removed = run_memdown("reflect", "guards", "--remove", lrn)
    assert removed.returncode == 0 and f"removed 1 guard(s) of {lrn}" in removed.stdout
    assert hook(bash(isolate_paths, "npm install")) == {}
    assert f"memdown:{lrn}" in (memory_root.parent / "CLAUDE.md").read_text()  # the rule itself stays


def _shim_guards(payload: dict, tmp_path: Path, **env: str) -> tuple[dict, bool]:
    """The shim as hooks.json runs it for Bash/Edit/Write; (answer, whether memdown was started)."""
    marker = tmp_path / "started"
    fake = tmp_path / "fake-memdown"
    fake.write_text(f"#!/bin/sh\ntouch '{marker}'\nexec '{Path(sys.executable).parent / 'memdown'}' \"$@\"\n")
    fake.chmod(0o755)
    proc = subprocess.run([str(SHIM), "PreToolUse", "guards"], input=json.dumps(payload), capture_output=True,
                          text=True, timeout=60, env={**os.environ, "MEMDOWN_BIN": str(fake), **env})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), marker.exists()


def test_without_a_guard_file_the_shim_answers_without_python(isolate_paths: Path, tmp_path: Path):
    answer, started = _shim_guards(bash(isolate_paths, "npm install"), tmp_path)
    assert answer == {} and not started


@pytest.mark.parametrize("spell", ["plain", "tilde", "xdg"])
def test_with_a_guard_file_the_shim_finds_it_however_the_home_is_spelled(memory_root: Path, isolate_paths: Path,
                                                                         tmp_path: Path, spell: str):
    promote_quote(memory_root, "no, use pnpm, not npm")
    home = paths.memdown_home()
    env = {"plain": {}, "tilde": {"MEMDOWN_HOME": "~/" + str(home.relative_to(Path.home()))},
           "xdg": {"MEMDOWN_HOME": "", "XDG_DATA_HOME": str(home.parent)}}[spell]
    assert home.parent.name == "share" and home.name == "memdown"  # conftest's layout, which "xdg" relies on
    answer, started = _shim_guards(bash(isolate_paths, "npm install"), tmp_path, **env)
    assert started and decision(answer) == "deny"


def test_no_false_stop_on_the_real_transcripts_commands(shared_transcripts: Path):
    """Every command the 25 scenario guards stop really runs the program its rule names (bashlex, an
    independent bash parser, decides); at least 500 real commands are checked."""
    pytest.importorskip("bashlex")
    sys.path.insert(0, str(REPO / "bench"))
    from bench_guards import compiled, invoked, real_commands, rule_applies

    # command guards only: bashlex knows what runs, not which files a command writes (the path guards'
    # stops on these commands, 3 today, are listed and judged by bench/guards/run_shapes.py)
    active = [g for _, g in compiled() if g and not g.get("paths")]
    commands = real_commands(shared_transcripts)
    assert len(commands) >= 500
    false = []
    for command in commands:
        hits = [g for g in active if shellguard.check([g], "Bash", {"command": command}, "/project/.memdown")]
        truth = invoked(command) if hits else None
        if hits and truth is not None and not all(rule_applies(g, truth) for g in hits):
            false.append(command[:80])
    assert false == []


@pytest.mark.parametrize("hidden", ["\u00ad", "\u200b", "\u2060", "\u034f"])
def test_a_committed_signal_hiding_characters_in_its_command_promotes_a_guard_that_stops_it(memory_root, hidden):
    """#25 item 3: a soft hyphen / zero-width space / word joiner / CGJ in the signal's command made promote
    print the clean rule and "guard: deny" while `git push --force` passed."""
    result = promote_quote(memory_root, f"never run `git pu{hidden}sh --for{hidden}ce`", target="global")
    assert result.get("guard") == "deny" and "git push --force" in result.get("guard_checks", ""), result
    active = shellguard.load(str(guards.guards_home()))
    assert len(active) == 1 and hidden not in active[0]["rule"]
    assert shellguard.check(active, "Bash", {"command": "git push --force origin main"}, "/p/.memdown") is not None


@pytest.mark.parametrize("command", ["source <(fzf --zsh)", "diff <(ls a) >(sort)", "cat <(", "x >( y"])
def test_the_lexer_moves_on_at_a_process_substitution(command: str) -> None:
    # `source <(fzf --zsh)` looped forever yielding empty words (PreToolUse, archive and redaction hung)
    import itertools

    from memdown.shellparse import tokens

    assert len(list(itertools.islice(tokens(command), 50))) < 10


@pytest.mark.parametrize("words", [
    [], [""], ["pnpm", "install"], ["a b", "it's", "$HOME", "x;y", "`id`", "naïve", "a\nb", "-rf", "@scope/pkg@1.2"],
    ["%+=:,./-_", "*", "?", "~", "!", "#", "{a,b}", "'", '"', "\\", "\t", "é", "ß", "𝔘", "x\x00y", "K"],
    [chr(c) for c in range(0, 0x250)],
])
def test_the_suggested_command_is_quoted_as_shlex_quotes_it(words: list[str]):
    """``shellparse.join`` is ``shlex.join`` without importing shlex (and re) on the guard hook's path."""
    import shlex

    from memdown.shellparse import join, quote

    assert join(words) == shlex.join(words)
    assert [quote(word) for word in words] == [shlex.quote(word) for word in words]
