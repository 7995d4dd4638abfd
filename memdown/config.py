"""The one config loader.

Layers, later wins: built-in defaults < global ``config.toml`` < project
``.memdown/config.toml`` < ``MEMDOWN_<SECTION>_<KEY>`` environment variables.
Only known keys are accepted, and values are coerced to the default's type,
so a typo fails loudly instead of being ignored.

Standard library only on the read path (hooks load config).
"""
from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False  # not `import typing` at run time: hooks load config
if TYPE_CHECKING:
    from typing import Any

from . import paths
from .errors import ConfigError

PACKAGED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

DEFAULTS: dict[str, dict[str, Any]] = {
    "embedding": {
        # The packaged model loads offline; any fastembed model name works after
        # `memdown model pull`.
        "model": PACKAGED_MODEL,
        "batch_size": 16,
        "threads": 0,  # 0 = onnxruntime's default
    },
    "chunking": {
        # Small units retrieve best (bench/eval_retrieval.py: 250 beat 400/600/900 at equal
        # context); MiniLM reads 256 tokens, so neighbours fit in the window too.
        "max_chars": 250,
        "context_chars": 160,  # neighbouring text prepended/appended to the embedded text
        "heading_context": True,
    },
    "search": {
        "k": 8,
        "mode": "hybrid",
        "fusion_depth": 10,  # RRF over the top N of each retriever
    },
    "index": {
        "optimize_every": 50,  # compact after this many file merges
        "ann_min_rows": 50_000,  # build an ANN vector index in the background past this many chunks (docs/scale.md)
        "max_file_mb": 20,
    },
    "hooks": {
        "digest_chars": 3000,
        "digest_entries": 6,
        "prompt_hint": True,
        "prompt_pointers": 0,  # one-line pointers from the warm daemon; 0 = off
        "prompt_min_chars": 12,
    },
    "summarizer": {
        "use_claude": True,
        "model": "haiku",
        "timeout_seconds": 120,
    },
    "watch": {
        "enabled": True,
        "debounce_ms": 1500,
        "idle_minutes": 30,
        "client_timeout_ms": 250,
    },
    "capture": {
        "enabled": True,
        "semantic": False,  # confirm/add signals with `claude -p` in the detached sweep
        "semantic_model": "haiku",
        "semantic_timeout": 90,  # seconds per classifier call
    },
    "reflect": {
        "ttl_days": 14,
        "fold_threshold": 0.6,
        "meta_learning": True,
        "meta_min_samples": 5,
    },
    "archive": {
        "enabled": True,
        "compress": True,
    },
}


class Config:
    """Resolved settings: ``values[section][key]`` and where each non-default came from.

    A plain class, not a dataclass: importing dataclasses costs every hook several ms.
    """

    __slots__ = ("values", "sources")

    def __init__(self, values: dict[str, dict[str, Any]] | None = None, sources: dict[str, str] | None = None) -> None:
        # DEFAULTS holds only scalars: a copy per section is a deep copy.
        self.values = values if values is not None else {s: dict(keys) for s, keys in DEFAULTS.items()}
        self.sources = sources if sources is not None else {}

    def __repr__(self) -> str:
        return f"Config(values={self.values!r}, sources={self.sources!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and (self.values, self.sources) == (other.values, other.sources)

    def get(self, dotted: str) -> Any:
        section, key = _split_key(dotted)
        return self.values[section][key]

    def __getitem__(self, dotted: str) -> Any:
        return self.get(dotted)

    def flat(self) -> dict[str, Any]:
        return {f"{s}.{k}": v for s, keys in self.values.items() for k, v in keys.items()}


def _split_key(dotted: str) -> tuple[str, str]:
    section, _, key = dotted.partition(".")
    if section not in DEFAULTS or key not in DEFAULTS[section]:
        known = ", ".join(sorted(f"{s}.{k}" for s, ks in DEFAULTS.items() for k in ks))
        raise ConfigError(f"unknown config key {dotted!r}", hint=f"known keys: {known}")
    return section, key


def coerce(dotted: str, raw: Any) -> Any:
    """Convert ``raw`` (a string from the CLI or env, or a TOML value) to the key's type."""
    section, key = _split_key(dotted)
    default = DEFAULTS[section][key]
    try:
        if isinstance(default, bool):
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        if isinstance(default, int):
            if isinstance(raw, bool):
                raise ValueError(raw)
            return int(raw)
        if isinstance(default, float):
            return float(raw)
        if not isinstance(raw, str):
            raise ValueError(raw)
        return raw
    except (TypeError, ValueError):
        raise ConfigError(
            f"invalid value {raw!r} for {dotted} (expected {type(default).__name__})"
        ) from None


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    import tomllib  # ~10 ms; hooks skip it when no config file exists

    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot parse {path}: {exc}") from None


def _apply(config: Config, data: dict[str, Any], origin: str) -> None:
    for section, keys in data.items():
        if not isinstance(keys, dict):
            raise ConfigError(f"{origin}: [{section}] must be a table")
        for key, raw in keys.items():
            dotted = f"{section}.{key}"
            config.values[section][key] = coerce(dotted, raw)
            config.sources[dotted] = origin


def env_var_name(dotted: str) -> str:
    section, key = _split_key(dotted)
    return f"MEMDOWN_{section.upper()}_{key.upper()}"


def load_config(root: Path | None = None) -> Config:
    config = Config()
    global_file = paths.global_config_file()
    _apply(config, _read_toml(global_file), str(global_file))
    if root is not None:
        project_file = paths.project_config_file(root)
        _apply(config, _read_toml(project_file), str(project_file))
    for section, keys in DEFAULTS.items():
        for key in keys:
            dotted = f"{section}.{key}"
            name = env_var_name(dotted)
            if name in os.environ:
                config.values[section][key] = coerce(dotted, os.environ[name])
                config.sources[dotted] = f"env {name}"
    return config


def set_value(dotted: str, raw: str, *, root: Path | None, scope: str = "project") -> Path:
    """Persist one key to the project (default) or global config file."""
    import tomli_w  # only needed when writing

    from .fsutil import atomic_write_text

    value = coerce(dotted, raw)
    section, key = _split_key(dotted)
    if scope == "global":
        target = paths.global_config_file()
    else:
        if root is None:
            raise ConfigError("no memory root for a project setting", hint="use --global")
        target = paths.project_config_file(root)
    data = _read_toml(target)
    data.setdefault(section, {})[key] = value
    atomic_write_text(target, tomli_w.dumps(data))
    return target
