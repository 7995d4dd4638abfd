"""Build the freshness benchmark's repositories and labels from real code history (issue #28 item 4).

Real history nobody here wrote: successive releases of real PyPI packages (sdists), one git commit per
release, so the code moves as its maintainers moved it (functions rewritten, files deleted, the whole
package moved under ``src/``). From each release's diff against the one before, memories are written
about the functions and classes it changed ("`get_netrc_auth()` in `requests/utils.py` was changed in
2.25.0"), then labelled at later releases with Python's own ``ast`` (the exact source of that
definition), independently of memdown's language-agnostic detector:

- ``holds``: the same definition, same source (trailing spaces and blank lines ignored);
- ``changed``: the file is there, the definition differs or is gone from it;
- ``moved``: the file is gone from its path and a file of the same name elsewhere defines it;
- ``gone``: the file is gone and no file of that name defines it.

Split by package before anything is tuned: dev = attrs, flask; test = requests, click.

    python bench/freshness/build.py          # downloads the sdists (PyPI), builds bench/.work/freshness/repos
                                             # and writes bench/freshness/labels.jsonl
"""
from __future__ import annotations

import ast
import json
from functools import lru_cache
import random
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE.parent / ".work" / "freshness"
SDISTS = WORK / "sdists"
REPOS = WORK / "repos"
LABELS = HERE / "labels.jsonl"

PACKAGES = {
    "attrs": ["19.3.0", "20.3.0", "21.4.0", "22.2.0", "23.1.0", "23.2.0"],
    "flask": ["1.0.4", "1.1.4", "2.0.3", "2.2.5", "3.0.0", "3.0.3"],
    "requests": ["2.20.0", "2.22.0", "2.24.0", "2.25.0", "2.26.0", "2.27.0", "2.28.0", "2.29.0", "2.31.0", "2.32.3"],
    "click": ["7.0", "7.1.2", "8.0.0", "8.0.4", "8.1.0", "8.1.3", "8.1.7"],
}
SPLIT = {"attrs": "dev", "flask": "dev", "requests": "test", "click": "test"}
PER_RELEASE = 12  # memories drawn from each release's changed definitions
SEED = 28


def git(repo: Path, *args: str, date: str = "") -> str:
    env = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost", "GIT_COMMITTER_NAME": "bench",
           "GIT_COMMITTER_EMAIL": "bench@localhost", "PATH": "/usr/bin:/bin", "HOME": str(WORK)}
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout


def download() -> None:
    SDISTS.mkdir(parents=True, exist_ok=True)
    wanted = [f"{name}=={v}" for name, versions in PACKAGES.items() for v in versions
              if not list(SDISTS.glob(f"{name}-{v}.tar.gz")) and not list(SDISTS.glob(f"{name.capitalize()}-{v}.tar.gz"))]
    # One pip call per release: pip resolves the specs of one call together, and two releases of one
    # package conflict. Four at a time.
    from concurrent.futures import ThreadPoolExecutor

    import importlib.util

    pip = [sys.executable, "-m", "pip"] if importlib.util.find_spec("pip") else [shutil.which("pip") or "pip"]

    def fetch(spec: str) -> None:
        subprocess.run([*pip, "download", "-q", "--no-deps", "--no-binary", ":all:",
                        "-d", str(SDISTS), spec], check=True, capture_output=True)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(fetch, wanted))


def _sdist(name: str, version: str) -> Path:
    for candidate in SDISTS.glob("*.tar.gz"):
        if candidate.name.lower() == f"{name}-{version}.tar.gz":
            return candidate
    raise FileNotFoundError(f"{name} {version}: no sdist in {SDISTS}")


def _python_files(root: Path) -> dict[str, str]:
    """The package's importable .py files (no tests, docs or examples), by path relative to the sdist top."""
    files = {}
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).as_posix()
        if re.search(r"(^|/)(tests?|docs|examples|artwork|scripts)/", rel) or rel in ("setup.py", "conftest.py"):
            continue
        files[rel] = path.read_text(encoding="utf-8", errors="replace")
    return files


def build_repo(name: str) -> Path:
    repo = REPOS / name
    if (repo / ".git").is_dir():
        return repo
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    for n, version in enumerate(PACKAGES[name]):
        for item in repo.iterdir():
            if item.name != ".git":
                shutil.rmtree(item) if item.is_dir() else item.unlink()
        scratch = WORK / "scratch"
        shutil.rmtree(scratch, ignore_errors=True)
        with tarfile.open(_sdist(name, version)) as archive:
            archive.extractall(scratch, filter="data")
        top = next(scratch.iterdir())
        for rel, text in _python_files(top).items():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_text(text, encoding="utf-8")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"release {version}", date=f"2020-01-{n + 1:02d}T12:00:00+00:00")
        git(repo, "tag", f"v{version}")
    return repo


@lru_cache(maxsize=4096)
def definitions(source: str) -> dict[str, str]:
    """Top-level functions and classes, and methods as their bare name, with their exact source; names
    defined more than once in the file are left out (a memory about them would be ambiguous)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, list[str]] = {}
    lines = source.split("\n")
    nodes = [*tree.body, *(child for node in tree.body if isinstance(node, ast.ClassDef) for child in node.body)]
    for node in nodes:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            segment = "\n".join(lines[node.lineno - 1 - len(node.decorator_list):node.end_lineno])
            found.setdefault(node.name, []).append(segment)
    return {name: segs[0] for name, segs in found.items() if len(segs) == 1 and not name.startswith("__")}


def normal(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.split("\n") if line.strip())


def tree_at(repo: Path, tag: str) -> dict[str, str]:
    files = git(repo, "ls-tree", "-r", "--name-only", tag).split()
    return {path: git(repo, "show", f"{tag}:{path}") for path in files if path.endswith(".py")}


def truth(then_path: str, symbol: str, then_source: str, later: dict[str, str]) -> tuple[str, str]:
    if then_path in later:
        now = definitions(later[then_path]).get(symbol)
        return ("holds" if now is not None and normal(now) == normal(then_source) else "changed"), ""
    base = then_path.rsplit("/", 1)[-1]
    for path, source in later.items():
        if path.rsplit("/", 1)[-1] == base and symbol in definitions(source):
            return "moved", path
    return "gone", ""


def labels_for(name: str, repo: Path, rng: random.Random) -> list[dict]:
    versions = PACKAGES[name]
    trees = {v: tree_at(repo, f"v{v}") for v in versions}
    rows = []
    for i in range(1, len(versions) - 1):
        before, at = trees[versions[i - 1]], trees[versions[i]]
        changed = []
        for path, source in at.items():
            old = definitions(before.get(path, ""))
            for symbol, segment in definitions(source).items():
                if normal(old.get(symbol, "")) != normal(segment):
                    changed.append((path, symbol, segment))
        for path, symbol, segment in rng.sample(changed, min(PER_RELEASE, len(changed))):
            kind = "class" if segment.lstrip().startswith(("class ", "@")) and "class " in segment.split("\n")[0] else "function"
            text = (f"`{symbol}()` in `{path}` was changed in {name} {versions[i]}." if kind == "function"
                    else f"The `{symbol}` class in `{path}` was changed in {name} {versions[i]}.")
            for later_version in sorted({versions[i + 1], versions[-1]}):
                state, moved_to = truth(path, symbol, segment, trees[later_version])
                rows.append({"package": name, "split": SPLIT[name], "written_at": f"v{versions[i]}",
                             "checked_at": f"v{later_version}", "path": path, "symbol": symbol, "text": text,
                             "truth": state, "moved_to": moved_to})
    return rows


def main() -> None:
    download()
    rng = random.Random(SEED)
    rows = []
    for name in PACKAGES:
        rows.extend(labels_for(name, build_repo(name), rng))
    LABELS.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    counts: dict[tuple[str, str], int] = {}
    for row in rows:
        counts[(row["split"], row["truth"])] = counts.get((row["split"], row["truth"]), 0) + 1
    print(f"{len(rows)} labelled memories -> {LABELS.relative_to(HERE.parent.parent)}")
    for (split, state), count in sorted(counts.items()):
        print(f"  {split:4} {state:8} {count}")


if __name__ == "__main__":
    main()
