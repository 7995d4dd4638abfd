"""Memory root resolution (main git worktree, overrides) and the layered config."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from memdown import paths
from memdown.cli import cli
from memdown.config import DEFAULTS, coerce, env_var_name, load_config, set_value
from memdown.errors import ConfigError

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", *args],
        cwd=cwd, check=True, capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    main = tmp_path / "repo"
    main.mkdir()
    git(main, "init", "-q")
    (main / "src").mkdir()
    (main / "src" / "a.txt").write_text("a\n")
    git(main, "add", "-A")
    git(main, "commit", "-q", "-m", "init")
    return main


# --- memory root ----------------------------------------------------------

def test_memory_root_outside_git_is_cwd(tmp_path: Path, monkeypatch):
    monkeypatch.delenv("MEMDOWN_DIR")
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.chdir(plain)
    assert paths.project_root() == plain.resolve()
    assert paths.memory_root() == plain.resolve() / ".memdown"


@needs_git
def test_memory_root_is_top_of_repo_from_a_subdir(repo: Path, monkeypatch):
    monkeypatch.delenv("MEMDOWN_DIR")
    monkeypatch.chdir(repo / "src")
    assert paths.memory_root() == repo.resolve() / ".memdown"


@needs_git
def test_linked_worktrees_share_the_main_memory(repo: Path, tmp_path: Path, monkeypatch):
    monkeypatch.delenv("MEMDOWN_DIR")
    linked = tmp_path / "linked-wt"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(linked))
    assert (linked / ".git").is_file()  # really a linked worktree
    monkeypatch.chdir(linked / "src")
    assert paths.project_root() == repo.resolve()
    assert paths.memory_root() == repo.resolve() / ".memdown"
    assert paths.memory_root(start=linked) == paths.memory_root(start=repo)


@needs_git
def test_cli_init_from_linked_worktree_creates_main_memory(repo: Path, tmp_path: Path, monkeypatch):
    monkeypatch.delenv("MEMDOWN_DIR")
    linked = tmp_path / "wt2"
    git(repo, "worktree", "add", "-q", "-b", "f2", str(linked))
    monkeypatch.chdir(linked)
    result = CliRunner().invoke(cli, ["init"])
    assert result.exit_code == 0, result.output
    assert (repo / ".memdown" / "memory").is_dir()
    assert not (linked / ".memdown").exists()


@needs_git
def test_env_and_explicit_dir_override_git(repo: Path, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(repo)
    monkeypatch.setenv("MEMDOWN_DIR", str(tmp_path / "envmem"))
    assert paths.memory_root() == (tmp_path / "envmem").resolve()
    assert paths.memory_root(tmp_path / "flag") == (tmp_path / "flag").resolve()  # --dir beats the env


def test_cli_dir_option_beats_env(tmp_path: Path):
    target = tmp_path / "elsewhere" / ".memdown"
    result = CliRunner().invoke(cli, ["init", "--dir", str(target)])
    assert result.exit_code == 0, result.output
    assert (target / "memory").is_dir() and (target / ".gitignore").is_file()
    assert not paths.memory_root().exists()  # MEMDOWN_DIR's root untouched


def test_user_paths_follow_env(tmp_path: Path, monkeypatch):
    monkeypatch.delenv("MEMDOWN_HOME")
    monkeypatch.delenv("MEMDOWN_CONFIG")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "conf"))
    assert paths.memdown_home() == tmp_path / "data" / "memdown"
    assert paths.global_config_file() == tmp_path / "conf" / "memdown" / "config.toml"
    assert paths.embedding_cache_file().is_relative_to(tmp_path / "data" / "memdown")
    monkeypatch.setenv("MEMDOWN_CONFIG", str(tmp_path / "x.toml"))
    assert paths.global_config_file() == tmp_path / "x.toml"


def test_embedding_cache_lives_outside_the_index(memory_root: Path):
    assert not paths.embedding_cache_file().is_relative_to(paths.index_dir(memory_root))


# --- config layers ----------------------------------------------------------

def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_defaults(memory_root: Path, monkeypatch):
    monkeypatch.delenv("MEMDOWN_WATCH_ENABLED")  # set by the autouse fixture
    monkeypatch.delenv("MEMDOWN_WATCH_START_ON_QUERY")  # likewise
    cfg = load_config(memory_root)
    assert cfg["search.k"] == DEFAULTS["search"]["k"]
    assert cfg["index.max_file_mb"] == 20
    assert cfg.sources == {}


def test_layers_global_project_env(memory_root: Path, monkeypatch):
    write(paths.global_config_file(), "[search]\nk = 3\nmode = 'text'\n[index]\noptimize_every = 7\n")
    write(paths.project_config_file(memory_root), "[search]\nk = 4\n")
    monkeypatch.setenv("MEMDOWN_INDEX_OPTIMIZE_EVERY", "9")
    cfg = load_config(memory_root)
    assert cfg["search.k"] == 4  # project beats global
    assert cfg["search.mode"] == "text"  # global beats default
    assert cfg["index.optimize_every"] == 9  # env beats everything
    assert cfg.sources["search.k"] == str(paths.project_config_file(memory_root))
    assert cfg.sources["search.mode"] == str(paths.global_config_file())
    assert cfg.sources["index.optimize_every"] == "env MEMDOWN_INDEX_OPTIMIZE_EVERY"


def test_env_var_name():
    assert env_var_name("embedding.batch_size") == "MEMDOWN_EMBEDDING_BATCH_SIZE"
    with pytest.raises(ConfigError):
        env_var_name("nope.key")


def test_unknown_key_in_the_global_file_fails_in_the_project_file_is_ignored(memory_root: Path):
    write(paths.global_config_file(), "[search]\nkk = 3\n")
    with pytest.raises(ConfigError, match="unknown config key 'search.kk'"):
        load_config(memory_root)
    paths.global_config_file().unlink()
    for text in ("[search]\nkk = 3\nk = 4\n", "[nosection]\nk = 3\n[search]\nk = 4\n"):
        write(paths.project_config_file(memory_root), text)  # committed: data, not control (issue 18)
        config = load_config(memory_root)
        assert config["search.k"] == 4 and len(config.notices) == 1 and "ignored" in config.notices[0]


def test_bad_values_fail_in_the_persons_files_and_env(memory_root: Path, monkeypatch):
    for text, match in (("[search]\nk = 'many'\n", "invalid value"), ("search = 3\n", "must be a table"),
                        ("[search\n", "cannot parse")):
        write(paths.global_config_file(), text)
        with pytest.raises(ConfigError, match=match):
            load_config(memory_root)
        write(paths.project_config_file(memory_root), text)
        paths.global_config_file().unlink()
        config = load_config(memory_root)  # the same in the committed project file: one notice, ignored
        assert config["search.k"] == DEFAULTS["search"]["k"] and len(config.notices) == 1
    paths.project_config_file(memory_root).unlink()
    monkeypatch.setenv("MEMDOWN_WATCH_ENABLED", "maybe")
    with pytest.raises(ConfigError):
        load_config(memory_root)


def test_coerce_types():
    assert coerce("search.k", "12") == 12
    assert coerce("watch.enabled", "off") is False
    assert coerce("watch.enabled", "YES") is True
    assert coerce("reflect.fold_threshold", "0.25") == 0.25
    assert coerce("search.mode", "vector") == "vector"
    for key, raw in (("search.k", True), ("search.k", "1.5"), ("search.mode", 3), ("watch.enabled", "2")):
        with pytest.raises(ConfigError):
            coerce(key, raw)


def test_set_value_project_and_global(memory_root: Path):
    memory_root.mkdir(parents=True)
    target = set_value("search.k", "5", root=memory_root)
    assert target == paths.project_config_file(memory_root)
    set_value("search.mode", "text", root=memory_root, scope="global")
    cfg = load_config(memory_root)
    assert cfg["search.k"] == 5 and cfg["search.mode"] == "text"
    with pytest.raises(ConfigError):
        set_value("search.k", "five", root=memory_root)
    assert load_config(memory_root)["search.k"] == 5  # a failed set changes nothing


# --- `memdown config` -------------------------------------------------------

def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def assert_one_line_error(result, code: int) -> None:
    assert result.exit_code == code, (result.exit_code, result.output)
    err = result.stderr.strip()
    assert err.startswith("Error:") and "\n" not in err, err
    assert "Traceback" not in result.output


def test_config_cli_get_set_list(memory_root: Path):
    assert invoke("init").exit_code == 0
    result = invoke("config", "set", "search.k", "6")
    assert result.exit_code == 0, result.output
    assert invoke("config", "get", "search.k").stdout.strip() == "6"
    listed = invoke("config", "list", "--json")
    assert listed.exit_code == 0
    data = json.loads(listed.stdout)
    assert data["search.k"] == {"value": 6, "source": str(paths.project_config_file(memory_root))}
    assert data["search.mode"]["source"] == "default"
    assert set(data) == {f"{s}.{k}" for s, ks in DEFAULTS.items() for k in ks}
    plain = invoke("config", "list")
    assert "search.k = 6" in plain.stdout
    assert invoke("config", "set", "--global", "search.candidate_depth", "20").exit_code == 0
    assert load_config(memory_root)["search.candidate_depth"] == 20


def test_config_cli_errors_are_one_line(memory_root: Path, monkeypatch):
    invoke("init")
    assert_one_line_error(invoke("config", "get", "nope.key"), 2)
    assert_one_line_error(invoke("config", "set", "nope.key", "1"), 2)
    assert_one_line_error(invoke("config", "set", "search.k", "abc"), 2)
    assert_one_line_error(invoke("config", "set", "watch.enabled", "perhaps"), 2)
    write(paths.global_config_file(), "[search\n")
    assert_one_line_error(invoke("config", "list"), 2)
    paths.global_config_file().unlink()
    monkeypatch.setenv("MEMDOWN_SEARCH_K", "lots")
    assert_one_line_error(invoke("config", "get", "search.k"), 2)
    assert_one_line_error(invoke("search", "anything"), 2)
