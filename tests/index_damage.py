"""A catalogue of real damage to a memory root's index and embedding cache.

Each case breaks the files on disk the way a crash, a bad sync, a disk error
or a curious user would. Shared by ``tests/test_index_damage.py`` and
``bench/bench_damage.py`` (which prints "healed N of M").
"""
from __future__ import annotations

import os
import random
import re
import shutil
from collections.abc import Callable
from pathlib import Path


def lance_dir(root: Path) -> Path:
    return root / "index" / "chunks.lance"


def _data_files(root: Path) -> list[Path]:
    return sorted((lance_dir(root) / "data").glob("*.lance"), key=lambda p: p.stat().st_size, reverse=True)


def _manifest_version(path: Path) -> int:
    number = int(path.stem)
    return (1 << 64) - 1 - number if number > (1 << 63) else number  # lance's "V2" names count down


def _cache_files(cache: Path) -> list[Path]:
    return [p for p in (cache, Path(f"{cache}-wal"), Path(f"{cache}-shm")) if p.exists()]


def cache_truncated(root: Path, cache: Path) -> None:
    import sqlite3

    db = sqlite3.connect(cache)  # fold the WAL in first, so the cut really removes pages
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    for extra in _cache_files(cache)[1:]:
        extra.unlink()
    with open(cache, "r+b") as handle:
        handle.truncate(max(1, cache.stat().st_size // 3))


def cache_garbage(root: Path, cache: Path) -> None:
    for path in _cache_files(cache):
        path.unlink()
    cache.write_bytes(random.Random(7).randbytes(50_000))


def cache_is_a_folder(root: Path, cache: Path) -> None:
    for path in _cache_files(cache):
        path.unlink()
    cache.mkdir()


def files_json_list(root: Path, cache: Path) -> None:
    (root / "index" / "files.json").write_text("[]")


def files_json_garbage(root: Path, cache: Path) -> None:
    (root / "index" / "files.json").write_bytes(b"\x00\xff{not json" + random.Random(3).randbytes(200))


def files_json_wrong_types(root: Path, cache: Path) -> None:
    (root / "index" / "files.json").write_text(
        '{"memory/2026-01-01.md": "yes", "memory/2026-01-02.md": {"size": "big", "chunks": null}, "x": [1]}'
    )


def meta_json_garbage(root: Path, cache: Path) -> None:
    (root / "index" / "meta.json").write_text('{"model_id": 5, "dim": "wide"')


def index_path_is_a_file(root: Path, cache: Path) -> None:
    shutil.rmtree(root / "index")
    (root / "index").write_text("not a folder\n")


def data_file_deleted(root: Path, cache: Path) -> None:
    _data_files(root)[0].unlink()


def data_file_truncated(root: Path, cache: Path) -> None:
    for data in _data_files(root):
        with open(data, "r+b") as handle:
            handle.truncate(data.stat().st_size // 2)


def data_file_random_bytes(root: Path, cache: Path) -> None:
    rng = random.Random(11)
    for data in _data_files(root):
        size = data.stat().st_size
        with open(data, "r+b") as handle:
            # Bytes in the middle (the column pages), leaving the footer intact.
            start = size // 4
            handle.seek(start)
            handle.write(rng.randbytes(max(1, size // 2 - start)))


def vector_bytes_rotted(root: Path, cache: Path) -> None:
    """Bit rot inside one stored vector: LanceDB reads it back without any error."""
    from array import array

    from memdown.index.table import ChunkTable

    table = ChunkTable(root / "index")
    table.open(verify_count=False)
    vectors = [r["vector"] for r in table.table.search().select(["vector"]).limit(None).to_list()]
    for vector in vectors:
        needle = array("f", vector).tobytes()
        for data in _data_files(root):
            blob = data.read_bytes()
            at = blob.find(needle)
            if at >= 0:
                with open(data, "r+b") as handle:
                    handle.seek(at + 8)
                    handle.write(array("f", [7.5, -3.25, 1e6]).tobytes())
                return
    raise AssertionError("no stored vector found in the data files")


def versions_deleted(root: Path, cache: Path) -> None:
    shutil.rmtree(lance_dir(root) / "_versions")


def newest_manifest_deleted(root: Path, cache: Path) -> None:
    manifests = sorted((lance_dir(root) / "_versions").glob("*.manifest"), key=_manifest_version)
    manifests[-1].unlink()


def table_folder_deleted(root: Path, cache: Path) -> None:
    shutil.rmtree(lance_dir(root))


DAMAGE: dict[str, Callable[[Path, Path], None]] = {
    "cache_truncated": cache_truncated,
    "cache_garbage": cache_garbage,
    "cache_is_a_folder": cache_is_a_folder,
    "files_json_list": files_json_list,
    "files_json_garbage": files_json_garbage,
    "files_json_wrong_types": files_json_wrong_types,
    "meta_json_garbage": meta_json_garbage,
    "index_path_is_a_file": index_path_is_a_file,
    "data_file_deleted": data_file_deleted,
    "data_file_truncated": data_file_truncated,
    "data_file_random_bytes": data_file_random_bytes,
    "vector_bytes_rotted": vector_bytes_rotted,
    "versions_deleted": versions_deleted,
    "newest_manifest_deleted": newest_manifest_deleted,
    "table_folder_deleted": table_folder_deleted,
}

# Damage that LanceDB itself cannot notice (it opens and answers): only the
# check of the table against the markdown finds it.
SILENT = {"newest_manifest_deleted", "vector_bytes_rotted"}


def day_text(n: int) -> str:
    """A small daily file with two sections; each day's words are unique (zebra3, …)."""
    return (
        f"# 2026-01-{n:02d}\n\n## Session one\n\nWe tuned the redis cache ttl, marker zebra{n}.\n\n"
        f"## Session two\n\nThe queue worker retried jobs with backoff, marker yak{n}.\n"
    )


def write_corpus(root: Path, days: int = 6) -> None:
    daily = root / "memory"
    daily.mkdir(parents=True, exist_ok=True)
    for n in range(1, days + 1):
        (daily / f"2026-01-{n:02d}.md").write_text(day_text(n))


def second_commit(root: Path) -> None:
    """Change one file, so the table has a newest version worth losing."""
    (root / "memory" / "2026-01-06.md").write_text(day_text(6) + "\n## Session three\n\nA late note, marker ibis6.\n")


def clean_lines(text: str) -> list[str]:
    """Lines that would betray a leak of internals: tracebacks and Rust paths/messages."""
    bad = []
    for line in text.splitlines():
        if (re.search(r"[A-Za-z]Warning: ", line) or "Traceback" in line or "File \"" in line or ".rs:" in line or "lance::" in line
                or "/rustc/" in line or "LanceError" in line or "cargo" in line or "lance error" in line):
            bad.append(line)
    return bad


def environ_for(home: Path, project: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDOWN_")}
    env.update(MEMDOWN_HOME=str(home / "memdown"), MEMDOWN_DIR=str(project / ".memdown"),
               MEMDOWN_CONFIG=str(home / "config.toml"), HOME=str(home), MEMDOWN_WATCH_ENABLED="0",
               LANCEDB_LOG="error")
    return env
