"""The Claude Code plugin packaging: manifests, hooks.json, skills, the hook shim.

The shim runs as a real subprocess with a hand-built PATH, so what it finds
is exactly what each test puts there; the pip bootstrap is never really run
(python3 is a stub that records its arguments).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import frontmatter
import pytest

REPO = Path(__file__).resolve().parent.parent
SHIM = REPO / "hooks" / "memdown-hook"

# Hook events Claude Code knows (docs, v2.1.x).
KNOWN_EVENTS = {
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "Notification",
    "UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop", "PreCompact",
    "SessionStart", "SessionEnd",
}
EXPECTED_TIMEOUTS = {
    "SessionStart": 15, "UserPromptSubmit": 10, "Stop": 30, "PreCompact": 30,
    "PostToolUseFailure": 10, "SessionEnd": 1, "PreToolUse": 10,
}
# SessionStart sources of the real client (2.1.328): startup, resume, clear, compact, fork.
EXPECTED_MATCHERS = {"SessionStart": "startup|resume|clear|compact|fork", "PreCompact": "manual|auto",
                     "PreToolUse": "Skill"}
# Events with a second group: (matcher, the shim's extra argument). Guards answer without Python
# when there is no guard file (see hooks/memdown-hook).
EXTRA_GROUPS = {"PreToolUse": ("Bash|Edit|Write|MultiEdit|NotebookEdit", "guards")}
SKILLS = ["memory-recall", "memory-status", "reflect", "reflect-toggle"]

INSTALLING = "memdown: installing in the background; memory starts next session"
NOT_INSTALLED = "memdown is not installed: pip install memdown (see README)"


def load_json(rel: str) -> dict:
    return json.loads((REPO / rel).read_text(encoding="utf-8"))


# --- manifests -----------------------------------------------------------------

def test_plugin_json() -> None:
    plugin = load_json(".claude-plugin/plugin.json")
    assert plugin["name"] == "memdown"
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", plugin["name"])  # kebab-case
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert plugin["version"] == "0.1.0" == pyproject["project"]["version"]
    assert isinstance(plugin["description"], str) and plugin["description"].strip()
    assert plugin["author"] == {"name": "memdown"}
    assert plugin["license"] == "MIT"
    assert plugin["keywords"] and all(isinstance(k, str) for k in plugin["keywords"])


def test_marketplace_json() -> None:
    market = load_json(".claude-plugin/marketplace.json")
    assert market["name"] == "memdown"
    assert market["owner"]["name"] == "memdown"
    assert len(market["plugins"]) == 1
    entry = market["plugins"][0]
    assert entry["name"] == load_json(".claude-plugin/plugin.json")["name"]
    assert entry["source"] == "./"
    assert entry["description"].strip()
    assert market["description"].strip()  # `claude plugin validate` warns without it
    # Component folders sit at the plugin root, never inside .claude-plugin/.
    assert sorted(p.name for p in (REPO / ".claude-plugin").iterdir()) == [
        "icon.png", "marketplace.json", "plugin.json",
    ]


def test_icon_is_a_square_png_the_validator_accepts() -> None:
    import struct

    data = (REPO / ".claude-plugin" / "icon.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert width == height and 512 <= width <= 2048 and len(data) < 2 << 20


# --- hooks.json ------------------------------------------------------------------

_COMMAND = re.compile(r'^"\$\{CLAUDE_PLUGIN_ROOT\}/(?P<path>[^"]+)" (?P<event>[A-Za-z]+)(?: (?P<extra>[a-z]+))?$')


def test_hooks_json_events_and_commands() -> None:
    hooks = load_json("hooks/hooks.json")["hooks"]
    assert set(hooks) == set(EXPECTED_TIMEOUTS)
    for event, groups in hooks.items():
        assert event in KNOWN_EVENTS, event
        expected = [(EXPECTED_MATCHERS.get(event), None)] + ([EXTRA_GROUPS[event]] if event in EXTRA_GROUPS else [])
        assert len(groups) == len(expected)
        for group, (matcher, extra) in zip(groups, expected):
            assert group.get("matcher") == matcher, event
            assert len(group["hooks"]) == 1
            hook = group["hooks"][0]
            assert hook["type"] == "command"
            assert hook["timeout"] == EXPECTED_TIMEOUTS[event]
            m = _COMMAND.match(hook["command"])
            assert m, hook["command"]
            assert m["event"] == event and m["extra"] == extra
        target = REPO / m["path"]
        assert target == SHIM
        assert target.is_file() and os.access(target, os.X_OK)


def test_shim_is_a_posix_shell_script() -> None:
    text = SHIM.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/sh\n")
    subprocess.run(["sh", "-n", str(SHIM)], check=True)


# --- skills ------------------------------------------------------------------------

@pytest.mark.parametrize("name", SKILLS)
def test_skill_frontmatter(name: str) -> None:
    path = REPO / "skills" / name / "SKILL.md"
    post = frontmatter.load(path)
    assert post.metadata["name"] == name
    description = post.metadata["description"]
    assert isinstance(description, str) and 20 < len(description) < 1024
    assert post.content.strip()
    assert "Bash(memdown" in post.metadata.get("allowed-tools", "")


def test_memory_recall_skill() -> None:
    post = frontmatter.load(REPO / "skills" / "memory-recall" / "SKILL.md")
    assert post.metadata["context"] == "fork"
    assert post.metadata.get("argument-hint")
    assert "disable-model-invocation" not in post.metadata  # the model may invoke it
    tools = {t.strip() for t in post.metadata["allowed-tools"].split(",")}
    assert tools == {"Bash(memdown search:*)", "Bash(memdown expand:*)", "Bash(memdown transcript:*)",
                     "Bash(memdown stats:*)", "Read", "Grep", "Glob"}  # reading commands only (tests/test_agent_safe.py)
    body = post.content
    assert "$ARGUMENTS" in body
    for needle in (
        'memdown search "', "--json", "-k 10", "--kind", "--since", "--concept",
        "memdown expand", "memdown transcript", "--turn", "--context 1", ".memdown/memory/",
    ):
        assert needle in body, needle
    assert "NOT" in post.metadata["description"]  # says when not to use it


def test_user_triggered_skills() -> None:
    for name in ("memory-status", "reflect"):
        post = frontmatter.load(REPO / "skills" / name / "SKILL.md")
        assert post.metadata["disable-model-invocation"] is True
    status = frontmatter.load(REPO / "skills" / "memory-status" / "SKILL.md").content
    assert "memdown stats" in status and "memdown reflect list" in status
    reflect = frontmatter.load(REPO / "skills" / "reflect" / "SKILL.md").content
    for needle in (
        "memdown reflect list --json", "memdown reflect promote", "--to",
        "memdown reflect dismiss", "memdown reflect undo", "memdown mining on",
        "memdown mining off", "strongest first", "skip all", "CLAUDE.md", ".claude/CLAUDE.md",
        "~/.claude/CLAUDE.md", "improvements",
    ):
        assert needle in reflect, needle


# --- the shim as a subprocess ---------------------------------------------------------

def make_bin(tmp_path: Path, name: str = "bin", tools: tuple[str, ...] = ()) -> Path:
    """A PATH folder holding only symlinks to ``tools`` (those that exist here)."""
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    for tool in tools:
        real = shutil.which(tool)
        if real:
            (folder / tool).symlink_to(real)
    return folder


def fake_memdown(folder: Path, label: str = "path") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "memdown"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        f"print(json.dumps({{'who': {label!r}, 'args': sys.argv[1:], 'stdin': sys.stdin.read()}}))\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script


def run_shim(event: str, path: list[Path], *, stdin: str = "", **env: str) -> subprocess.CompletedProcess:
    full_env = {"PATH": os.pathsep.join(str(p) for p in path), "HOME": os.environ["HOME"], **env}
    return subprocess.run(
        [str(SHIM), event], input=stdin, env=full_env, capture_output=True, text=True, timeout=30
    )


def stdout_json(proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_disabled_prints_empty_object(tmp_path: Path) -> None:
    fake_memdown(tmp_path / "bin")
    for event in EXPECTED_TIMEOUTS:
        proc = run_shim(event, [tmp_path / "bin"], stdin='{"x": 1}', MEMDOWN_DISABLE="1")
        assert proc.returncode == 0
        assert proc.stdout.strip() == "{}"


def test_not_installed_without_plugin_data(tmp_path: Path) -> None:
    empty = make_bin(tmp_path)
    start = run_shim("SessionStart", [empty], stdin='{"source": "startup"}')
    assert stdout_json(start) == {"systemMessage": NOT_INSTALLED}
    for event in ("Stop", "UserPromptSubmit", "PreCompact", "PostToolUseFailure", "SessionEnd"):
        assert stdout_json(run_shim(event, [empty], stdin="{}")) == {}


def test_passes_event_and_stdin_to_memdown_on_path(tmp_path: Path) -> None:
    folder = tmp_path / "bin"
    fake_memdown(folder)
    payload = json.dumps({"session_id": "s1", "hook_event_name": "Stop", "note": "ünïcode\nline"})
    out = stdout_json(run_shim("Stop", [folder], stdin=payload))
    assert out == {"who": "path", "args": ["hook", "Stop"], "stdin": payload}
    out = stdout_json(run_shim("SessionStart", [folder], stdin=""))
    assert out["args"] == ["hook", "SessionStart"]


def test_memdown_bin_wins(tmp_path: Path) -> None:
    fake_memdown(tmp_path / "bin")
    explicit = fake_memdown(tmp_path / "explicit", label="explicit")
    out = stdout_json(run_shim("Stop", [tmp_path / "bin"], stdin="{}", MEMDOWN_BIN=str(explicit)))
    assert out["who"] == "explicit" and out["args"] == ["hook", "Stop"]


def test_bad_memdown_bin_falls_back(tmp_path: Path) -> None:
    fake_memdown(tmp_path / "bin")
    proc = run_shim("Stop", [tmp_path / "bin"], stdin="{}", MEMDOWN_BIN=str(tmp_path / "missing"))
    assert stdout_json(proc)["who"] == "path"
    assert "MEMDOWN_BIN" in proc.stderr


def test_plugin_venv_before_path(tmp_path: Path) -> None:
    data = tmp_path / "data"
    venv_bin = data / "venv" / "bin"
    fake_memdown(venv_bin, label="venv")
    (venv_bin / "python").symlink_to(sys.executable)
    fake_memdown(tmp_path / "bin")
    out = stdout_json(run_shim("Stop", [tmp_path / "bin"], stdin="{}", CLAUDE_PLUGIN_DATA=str(data)))
    assert out["who"] == "venv"
    # A venv whose interpreter vanished is skipped.
    (venv_bin / "python").unlink()
    (venv_bin / "python").symlink_to(tmp_path / "gone" / "python3")
    out = stdout_json(run_shim("Stop", [tmp_path / "bin"], stdin="{}", CLAUDE_PLUGIN_DATA=str(data)))
    assert out["who"] == "path"


BOOTSTRAP_TOOLS = ("mkdir", "rm", "cat", "find", "setsid", "nohup", "date", "dirname")


def stub_python3(folder: Path, record: Path) -> None:
    """A python3 that records its arguments and installs nothing."""
    stub = folder / "python3"
    stub.write_text(f'#!/bin/sh\necho "$*" >> "{record}"\nexit 0\n', encoding="utf-8")
    stub.chmod(0o755)


def wait_for_unlock(lock: Path, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while lock.exists():
        assert time.monotonic() < deadline, "bootstrap never released its lock"
        time.sleep(0.05)


def test_bootstrap_on_session_start(tmp_path: Path) -> None:
    folder = make_bin(tmp_path, tools=BOOTSTRAP_TOOLS)
    record = tmp_path / "python3-calls.txt"
    stub_python3(folder, record)
    data = tmp_path / "plugin-data"
    env = {"CLAUDE_PLUGIN_DATA": str(data), "CLAUDE_PLUGIN_ROOT": str(REPO)}

    # Other events never bootstrap.
    assert stdout_json(run_shim("Stop", [folder], stdin="{}", **env)) == {}
    assert not data.exists()

    start = run_shim("SessionStart", [folder], stdin="{}", **env)
    assert stdout_json(start) == {"systemMessage": INSTALLING}
    assert data.is_dir()
    lock = data / "bootstrap.lock"
    wait_for_unlock(lock)
    calls = record.read_text(encoding="utf-8").splitlines()
    assert calls == [f"-m venv --clear {data / 'venv'}"]
    assert (data / "bootstrap.log").is_file()
    # The stub made no pip, so the install failed and says so next time.
    assert (data / "bootstrap.failed").exists()
    assert "FAILED" in (data / "bootstrap.log").read_text(encoding="utf-8")
    again = stdout_json(run_shim("SessionStart", [folder], stdin="{}", **env))
    assert "failed" in again["systemMessage"]
    wait_for_unlock(lock)
    assert len(record.read_text(encoding="utf-8").splitlines()) == 2


def test_bootstrap_is_detached(tmp_path: Path) -> None:
    """The hook returns at once; the slow install holds none of its pipes."""
    folder = make_bin(tmp_path, tools=BOOTSTRAP_TOOLS + ("sleep",))
    record = tmp_path / "python3-calls.txt"
    stub = folder / "python3"
    stub.write_text(f'#!/bin/sh\nsleep 3\necho "$*" >> "{record}"\nexit 1\n', encoding="utf-8")
    stub.chmod(0o755)
    data = tmp_path / "plugin-data"
    proc = run_shim("SessionStart", [folder], stdin="{}", CLAUDE_PLUGIN_DATA=str(data))
    assert not record.exists()  # the hook answered before the (3 s) install got anywhere
    assert stdout_json(proc) == {"systemMessage": INSTALLING}
    assert (data / "bootstrap.lock").is_dir()
    wait_for_unlock(data / "bootstrap.lock")
    assert record.read_text(encoding="utf-8").startswith("-m venv")


def test_bootstrap_runs_once_at_a_time(tmp_path: Path) -> None:
    folder = make_bin(tmp_path, tools=BOOTSTRAP_TOOLS)
    record = tmp_path / "python3-calls.txt"
    stub_python3(folder, record)
    data = tmp_path / "plugin-data"
    lock = data / "bootstrap.lock"
    lock.mkdir(parents=True)
    (lock / "pid").write_text(str(os.getpid()))  # a live process holds it
    env = {"CLAUDE_PLUGIN_DATA": str(data), "CLAUDE_PLUGIN_ROOT": str(REPO)}
    assert stdout_json(run_shim("SessionStart", [folder], stdin="{}", **env)) == {
        "systemMessage": INSTALLING
    }
    time.sleep(0.3)
    assert not record.exists()
    assert lock.is_dir()


def test_stale_bootstrap_lock_is_taken_over(tmp_path: Path) -> None:
    folder = make_bin(tmp_path, tools=BOOTSTRAP_TOOLS)
    record = tmp_path / "python3-calls.txt"
    stub_python3(folder, record)
    data = tmp_path / "plugin-data"
    lock = data / "bootstrap.lock"
    lock.mkdir(parents=True)
    dead = subprocess.Popen(["true"])
    dead.wait()
    (lock / "pid").write_text(str(dead.pid))
    env = {"CLAUDE_PLUGIN_DATA": str(data), "CLAUDE_PLUGIN_ROOT": str(REPO)}
    assert stdout_json(run_shim("SessionStart", [folder], stdin="{}", **env)) == {
        "systemMessage": INSTALLING
    }
    wait_for_unlock(lock)
    assert record.read_text(encoding="utf-8").startswith("-m venv")


def test_no_python_means_not_installed(tmp_path: Path) -> None:
    folder = make_bin(tmp_path, tools=BOOTSTRAP_TOOLS)  # no python3 at all
    data = tmp_path / "plugin-data"
    proc = run_shim("SessionStart", [folder], stdin="{}", CLAUDE_PLUGIN_DATA=str(data))
    assert stdout_json(proc) == {"systemMessage": NOT_INSTALLED}
    assert not (data / "bootstrap.lock").exists()


def _plugin_venv(tmp_path: Path, version: str, installed: str | None) -> tuple[Path, Path, Path]:
    """A plugin folder at ``version`` and a plugin venv whose pip only records its arguments."""
    root = tmp_path / "plugin"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "memdown", "version": version}))
    data = tmp_path / "plugin-data"
    venv_bin = data / "venv" / "bin"
    fake_memdown(venv_bin, label="venv")
    (venv_bin / "python").symlink_to(sys.executable)
    record = tmp_path / "pip-calls.txt"
    pip = venv_bin / "pip"
    pip.write_text(f'#!/bin/sh\necho "$*" >> "{record}"\n', encoding="utf-8")
    pip.chmod(0o755)
    if installed is not None:
        (data / "venv" / ".plugin-version").write_text(installed + "\n")
    return root, data, record


def test_plugin_update_upgrades_the_venv_in_the_background(tmp_path: Path) -> None:
    root, data, record = _plugin_venv(tmp_path, "0.2.0", installed="0.1.0")
    folder = make_bin(tmp_path, tools=BOOTSTRAP_TOOLS + ("sed", "head", "sh"))
    proc = run_shim("SessionStart", [folder], stdin="{}", CLAUDE_PLUGIN_DATA=str(data), CLAUDE_PLUGIN_ROOT=str(root))
    assert proc.returncode == 0 and stdout_json(proc)["who"] == "venv"  # this session: the installed version
    wait_for_unlock(data / "bootstrap.lock")
    assert record.read_text().split() == ["install", "--disable-pip-version-check", "--upgrade", str(root)]
    assert (data / "venv" / ".plugin-version").read_text().strip() == "0.2.0"
    # Up to date now: the next SessionStart installs nothing; other events never do.
    record.unlink()
    run_shim("SessionStart", [folder], stdin="{}", CLAUDE_PLUGIN_DATA=str(data), CLAUDE_PLUGIN_ROOT=str(root))
    (data / "venv" / ".plugin-version").write_text("0.0.1\n")
    run_shim("Stop", [folder], stdin="{}", CLAUDE_PLUGIN_DATA=str(data), CLAUDE_PLUGIN_ROOT=str(root))
    assert not (data / "bootstrap.lock").exists() and not record.exists()


# --- bin/memdown: the plugin's memdown on the Bash tool's PATH ------------------------

LAUNCHER = REPO / "bin" / "memdown"


def copy_plugin(dest: Path) -> Path:
    """The files bin/memdown needs, where Claude Code would put the plugin."""
    (dest / "bin").mkdir(parents=True)
    (dest / "hooks").mkdir()
    shutil.copy2(LAUNCHER, dest / "bin" / "memdown")
    shutil.copy2(REPO / "hooks" / "find-memdown.sh", dest / "hooks" / "find-memdown.sh")
    return dest / "bin" / "memdown"


def run_launcher(launcher: Path, path: list[Path], *args: str, **env: str) -> subprocess.CompletedProcess:
    full_env = {"PATH": os.pathsep.join(str(p) for p in path), "HOME": env.pop("HOME", os.environ["HOME"]), **env}
    return subprocess.run([str(launcher), *args], env=full_env, capture_output=True, text=True, timeout=30)


def plugin_venv(data: Path, label: str) -> None:
    venv_bin = data / "venv" / "bin"
    fake_memdown(venv_bin, label=label)
    (venv_bin / "python").symlink_to(sys.executable)


def test_launcher_finds_the_plugin_venv_without_claude_plugin_data(tmp_path: Path) -> None:
    """The Bash tool gets no CLAUDE_PLUGIN_DATA: a --plugin-dir plugin's data is memdown-inline."""
    config = tmp_path / "claude-config"
    plugin_venv(config / "plugins" / "data" / "memdown-inline", "inline-venv")
    tools = make_bin(tmp_path, tools=("sh",))
    proc = run_launcher(LAUNCHER, [REPO / "bin", tools], "search", "x y", CLAUDE_CONFIG_DIR=str(config))
    assert json.loads(proc.stdout) == {"who": "inline-venv", "args": ["search", "x y"], "stdin": ""}


def test_launcher_finds_a_marketplace_install_data_folder(tmp_path: Path) -> None:
    plugins = tmp_path / "home" / ".claude" / "plugins"
    launcher = copy_plugin(plugins / "cache" / "acme-market" / "memdown" / "0.1.0")
    plugin_venv(plugins / "data" / "memdown-acme-market", "market-venv")
    plugin_venv(plugins / "data" / "memdown-inline", "wrong-venv")
    proc = run_launcher(launcher, [launcher.parent], "stats", HOME=str(tmp_path / "home"))
    assert json.loads(proc.stdout)["who"] == "market-venv"


def test_launcher_uses_memdown_on_path_and_never_itself(tmp_path: Path) -> None:
    """pip / pipx / uv installs: the first memdown on PATH that is not the plugin's own launcher."""
    other = fake_memdown(tmp_path / "pipx-bin", label="pipx")
    proc = run_launcher(LAUNCHER, [REPO / "bin", other.parent], "expand", "abc",
                        CLAUDE_CONFIG_DIR=str(tmp_path / "none"))
    assert json.loads(proc.stdout) == {"who": "pipx", "args": ["expand", "abc"], "stdin": ""}
    # MEMDOWN_BIN still wins, as for the hooks.
    explicit = fake_memdown(tmp_path / "explicit", label="explicit")
    proc = run_launcher(LAUNCHER, [REPO / "bin", other.parent], "stats", MEMDOWN_BIN=str(explicit),
                        CLAUDE_CONFIG_DIR=str(tmp_path / "none"))
    assert json.loads(proc.stdout)["who"] == "explicit"


def test_launcher_without_any_memdown_says_so(tmp_path: Path) -> None:
    proc = run_launcher(LAUNCHER, [REPO / "bin", make_bin(tmp_path)], "search", "x",
                        CLAUDE_CONFIG_DIR=str(tmp_path / "cfg"))
    assert proc.returncode == 127 and proc.stdout == ""
    assert proc.stderr.startswith("memdown: not installed")
    (tmp_path / "cfg" / "plugins" / "data" / "memdown-inline" / "bootstrap.lock").mkdir(parents=True)
    proc = run_launcher(LAUNCHER, [REPO / "bin", make_bin(tmp_path)], "search", "x",
                        CLAUDE_CONFIG_DIR=str(tmp_path / "cfg"))
    assert proc.returncode == 127 and "still installing" in proc.stderr


def test_one_lookup_for_hooks_and_launcher() -> None:
    """Nothing twice: the shim and the launcher source the same lookup and carry none of their own."""
    for script in (SHIM, LAUNCHER):
        text = script.read_text(encoding="utf-8")
        assert "find-memdown.sh" in text and "memdown_find" in text
        assert "command -v memdown" not in text and "[ -x \"$data/venv/bin/memdown\" ]" not in text
        assert "MEMDOWN_BIN" not in text.split("memdown_find", 1)[1]


def test_shim_starts_a_venv_memdown_without_site_or_console_script(tmp_path: Path) -> None:
    """In a real venv layout the hook runs `python -I -S` and imports memdown from site-packages."""
    data = tmp_path / "data"
    venv = data / "venv"
    fake_memdown(venv / "bin", label="console-script")
    site = venv / "lib" / "python3.11" / "site-packages"
    (site / "memdown").mkdir(parents=True)
    (site / "memdown" / "entry.py").write_text("")
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    python = venv / "bin" / "python"
    python.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\n')
    python.chmod(0o755)
    proc = run_shim("Stop", [make_bin(tmp_path)], stdin="{}", CLAUDE_PLUGIN_DATA=str(data))
    args = proc.stdout.splitlines()
    assert args[:2] == ["-I", "-S"] and args[2] == "-c" and "from memdown.entry import main" in args[3]
    assert args[4:] == [str(site), "hook", "Stop"]


def test_shim_fast_start_runs_the_real_memdown(tmp_path: Path) -> None:
    """The -I -S launch line works with a real interpreter and the real package."""
    import memdown

    site = Path(memdown.__file__).resolve().parent.parent
    code = ('import sys; sys.path.append(sys.argv.pop(1)); from memdown.entry import main; main()')
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(site), "hook", "PreToolUse"],
                          input=json.dumps({"tool_name": "Skill", "tool_input": {"skill": "memdown:memory-recall"}}),
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "MEMDOWN_PLUGIN_HOOK": str(REPO / "hooks" / "memdown-hook")})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"
    # The shim's launch line must be the one tested here.
    assert code in (REPO / "hooks" / "find-memdown.sh").read_text(encoding="utf-8")


# --- PreToolUse: recall needs no permission rule ------------------------------------------

@pytest.mark.parametrize("payload, allowed", [
    ({"tool_name": "Skill", "tool_input": {"skill": "memdown:memory-recall", "args": "why X"}}, True),
    ({"tool_name": "Skill", "tool_input": {"skill": "memory-recall"}}, False),  # a project skill of that name
    ({"tool_name": "Skill", "tool_input": {"skill": "memdown:reflect"}}, False),  # writes CLAUDE.md: user's call
    ({"tool_name": "Skill", "tool_input": {"skill": "other:memory-recall"}}, False),
    ({"tool_name": "Bash", "tool_input": {"command": "memdown search x", "skill": "memdown:memory-recall"}}, False),
    ({"tool_name": "Skill", "tool_input": "memdown:memory-recall"}, False),
    ({}, False),
])
def test_pre_tool_use_allows_only_the_recall_skill(payload: dict, allowed: bool, monkeypatch) -> None:
    from memdown.hooks.runner import handle

    monkeypatch.setenv("MEMDOWN_PLUGIN_HOOK", str(REPO / "hooks" / "memdown-hook"))  # as the shim says

    out = handle("PreToolUse", payload, None)
    if allowed:
        assert out == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                               "permissionDecisionReason": "memdown: read-only memory recall"}}
    else:
        assert out == {}
