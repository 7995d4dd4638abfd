"""ANN settings against exact search with REAL packaged-model vectors (bench_scale.py --recall N).

Real text (bench markdown in this repo plus, when present, the transcripts in
../shared/transcripts: message text and tool output) is cut into pieces of
about 300 characters, like memdown's units, and embedded with the packaged
model through memdown's own embedding cache (bench/.work/scale/home), so a
second run embeds nothing. The vectors are also kept as a .npy beside the
texts for quick re-runs of the recall grid.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work" / "scale"
SHARED = (HERE.parent / ".." / "shared" / "transcripts").resolve()
PIECE = 300


def _pieces(text: str) -> list[str]:
    """Whitespace-normalised pieces of about PIECE characters, cut at word breaks."""
    words = text.split()
    out: list[str] = []
    current: list[str] = []
    size = 0
    for word in words:
        current.append(word[:200])
        size += len(word[:200]) + 1
        if size >= PIECE:
            out.append(" ".join(current))
            current, size = [], 0
    if size >= 60:
        out.append(" ".join(current))
    return out


def _transcript_texts(path: Path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            message = entry.get("message") if isinstance(entry, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, str):
                yield content
            elif isinstance(content, list):
                for block in content:
                    if not isinstance(block, dict):
                        continue
                    value = block.get("text") or block.get("content")
                    if isinstance(value, str):
                        yield value
                    elif isinstance(value, list):
                        for inner in value:
                            if isinstance(inner, dict) and isinstance(inner.get("text"), str):
                                yield inner["text"]


def real_texts(limit: int) -> list[str]:
    """Up to ``limit`` distinct real pieces: bench markdown first, then transcripts."""
    seen: set[str] = set()
    texts: list[str] = []

    def take(text: str) -> bool:
        for piece in _pieces(text):
            if piece not in seen:
                seen.add(piece)
                texts.append(piece)
                if len(texts) >= limit:
                    return True
        return False

    for md in sorted((HERE).rglob("*.md")):
        if ".work" in md.parts:
            continue
        if take(md.read_text(encoding="utf-8", errors="replace")):
            return texts
    for jl in sorted((HERE / "conversations").rglob("*.jsonl")):
        for text in _transcript_texts(jl):
            if take(text):
                return texts
    if SHARED.is_dir():
        for jl in sorted(SHARED.rglob("*.jsonl")):
            for text in _transcript_texts(jl):
                if take(text):
                    return texts
    # Then code and its comments, as coding sessions quote them: the standard library's source.
    import sysconfig

    for py in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
        if take(py.read_text(encoding="utf-8", errors="replace")):
            return texts
    return texts


def real_vectors(limit: int, *, log=print):
    """(texts, float32 array) for up to ``limit`` real pieces, embedded with the packaged model."""
    import numpy as np

    WORK.mkdir(parents=True, exist_ok=True)
    texts = real_texts(limit)
    tag = hashlib.blake2b("\n".join(texts).encode(), digest_size=8).hexdigest()
    saved = WORK / f"real-{len(texts)}-{tag}.npy"
    if saved.exists():
        return texts, np.load(saved)
    os.environ.setdefault("MEMDOWN_HOME", str(WORK / "home"))
    from memdown.index.cache import CachedEmbedder, EmbeddingCache
    from memdown.index.embedder import FastEmbedder
    from memdown.paths import embedding_cache_file

    embedder = CachedEmbedder(FastEmbedder(), EmbeddingCache(embedding_cache_file(), on_notice=log))
    parts = []
    started = time.perf_counter()
    step = 512
    for start in range(0, len(texts), step):
        parts.append(np.asarray(embedder.embed(texts[start : start + step]), dtype=np.float32))
        done = min(start + step, len(texts))
        log(f"  embedded {done}/{len(texts)} real pieces ({time.perf_counter() - started:.0f}s)")
    vectors = np.concatenate(parts) if parts else np.zeros((0, 384), np.float32)
    np.save(saved, vectors)
    return texts, vectors


def real_queries() -> list[str]:
    """The labelled questions of both retrieval benchmarks (real user-style questions)."""
    out = []
    for path, field in ((HERE / "conversations" / "questions.jsonl", "question"),
                        (HERE / "retrieval" / "queries.jsonl", "query")):
        for line in path.read_text().splitlines():
            if line.strip():
                out.append(json.loads(line)[field])
    return out


# (index type, partitions, nprobes, ef, refine factor); partitions and nprobes are
# varied because at N rows they stand for N*k rows with k times the partitions.
GRID = [
    ("IVF_PQ", 64, 8, 0, 0), ("IVF_PQ", 64, 8, 0, 10), ("IVF_PQ", 64, 13, 0, 10), ("IVF_PQ", 64, 16, 0, 10),
    ("IVF_PQ", 64, 13, 0, 20), ("IVF_PQ", 16, 4, 0, 10), ("IVF_PQ", 128, 26, 0, 10),
    ("IVF_SQ", 64, 13, 0, 0), ("IVF_SQ", 64, 13, 0, 10),
    ("IVF_HNSW_SQ", 64, 13, 150, 0), ("IVF_HNSW_SQ", 64, 16, 150, 10),
]


def recall_grid(limit: int, *, log=print) -> dict:
    """recall@10 of each GRID setting against exact (numpy brute force) search, real vectors."""
    import shutil
    import statistics

    import numpy as np
    import pyarrow as pa

    os.environ.setdefault("LANCEDB_LOG", "error")
    import lancedb

    texts, vectors = real_vectors(limit, log=log)
    queries = real_queries()
    _, query_vectors = _embed_queries(queries)
    exact = np.argsort(-(query_vectors @ vectors.T), axis=1)[:, :10]
    folder = WORK / "recall-table"
    shutil.rmtree(folder, ignore_errors=True)
    db = lancedb.connect(folder)
    table = db.create_table("v", pa.table({
        "id": pa.array(np.arange(len(vectors)), pa.int64()),
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), vectors.shape[1]),
    }))
    results = {"rows": len(vectors), "queries": len(queries), "settings": []}
    log(f"recall@10 vs exact: {len(vectors)} real vectors, {len(queries)} real queries")
    for kind, partitions, nprobes, ef, refine in GRID:
        started = time.perf_counter()
        table.create_index(metric="cosine", index_type=kind, num_partitions=partitions, replace=True,
                           **({"num_sub_vectors": 48} if kind == "IVF_PQ" else {}))
        built = time.perf_counter() - started
        recalls, times = [], []
        for row, vector in enumerate(query_vectors):
            query = table.search(vector).distance_type("cosine").nprobes(nprobes).limit(10)
            if ef:
                query = query.ef(ef)
            if refine:
                query = query.refine_factor(refine)
            t0 = time.perf_counter()
            got = {r["id"] for r in query.select(["id"]).to_list()}
            times.append((time.perf_counter() - t0) * 1000)
            recalls.append(len(got & set(exact[row].tolist())) / 10)
        entry = {"type": kind, "partitions": partitions, "nprobes": nprobes, "ef": ef, "refine": refine,
                 "probed_share": round(nprobes / partitions, 3), "recall_at_10": round(statistics.mean(recalls), 3),
                 "median_ms": round(statistics.median(times), 1), "build_s": round(built, 1)}
        results["settings"].append(entry)
        log("  " + json.dumps(entry))
    return results


def _embed_queries(queries: list[str]):
    import numpy as np

    os.environ.setdefault("MEMDOWN_HOME", str(WORK / "home"))
    from memdown.index.cache import CachedEmbedder, EmbeddingCache
    from memdown.index.embedder import FastEmbedder
    from memdown.paths import embedding_cache_file

    embedder = CachedEmbedder(FastEmbedder(), EmbeddingCache(embedding_cache_file()))
    return queries, np.asarray(embedder.embed_array(queries), dtype=np.float32)


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    texts, vectors = real_vectors(count)
    print(len(texts), vectors.shape)
