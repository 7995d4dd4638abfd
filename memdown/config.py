"""The one config loader.

Layers, later wins: built-in defaults < global ``config.toml`` < project
``.memdown/config.toml`` < ``MEMDOWN_<SECTION>_<KEY>`` environment variables.
Only known keys are accepted, coerced to the default's type: a typo in the
person's own global file, CLI or env fails loudly. The committed project file
is data, not control: a bad key there is ignored with one notice line, and a
``CONTROLLED`` key counts only once approved on this machine (``committed_config``).
Renamed keys (``RENAMED``) keep working under their old name, with a notice.

Loaded once at each edge (the CLI command, the hook runner, the worker, the
daemon) and passed down: library modules take a ``Config``, never load one.
The process-wide switches (``MEMDOWN_DISABLE``, ``MEMDOWN_HOOK_SYNC``) are
read here too, with one meaning each.

Standard library only on the read path (hooks load config).
"""
from __future__ import annotations

import os

TYPE_CHECKING = False  # not `import typing` at run time: hooks load config
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

# Not paths (pathlib brings re and enum, ~48 M instructions): UserPromptSubmit loads config as strings.
from . import fsutil, pathstr
from .committed_config import ARGV_KEYS, CONTROLLED, approved, claude_argv, is_argument  # noqa: F401 (claude_argv)
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
        # > 0: embed each unit's own text once and add its section neighbours' vectors times this
        # weight (and its heading's vector times heading_weight) instead of their text (store/mixrecipe.py);
        # context_chars then plays no part. 0.2/0.7: chosen on the dev splits, held on test (docs/benchmarks.md)
        "neighbour_weight": 0.2,
        "heading_weight": 0.7,
    },
    "search": {
        "k": 8,
        "window_chars": 1600,  # what one hit shows: neighbouring sections within this many chars; 0 = the unit only
        "mode": "hybrid",
        # Candidates each retriever (vector, full text) hands to RRF fusion:
        # max(k + k // 2, candidate_depth), so 15 at k=10.
        "candidate_depth": 10,
        # Judge each hit's code citations against the working tree: fresh / changed / moved / gone
        # (services/recall/staleness.py); off skips git entirely.
        "freshness": True,
    },
    "index": {
        "optimize_every": 50,  # compact after this many file merges
        "ann_min_rows": 50_000,  # build an ANN vector index in the background past this many chunks (docs/scale.md)
        "max_file_mb": 20,
        # A full build that would send more than this many chunks to the model (not in the embedding
        # cache) writes them without vectors, so full-text search works at once, and a background
        # process fills the vectors in, newest first (services/upkeep/vector_fill.py). 2,000 chunks is about
        # a minute of the packaged model on 2 cores; 0 = always embed everything before returning.
        "defer_vectors_above": 2_000,
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
        "start_on_query": True,  # a CLI search/expand/stats answered in-process starts the daemon for the next one
        "debounce_ms": 1500,
        "idle_minutes": 30,
        "client_timeout_ms": 250,
    },
    # Signal mining (corrections, failures, conventions for review). The daily
    # log itself is always written; this section does not switch it.
    "mining": {
        "enabled": True,
        "learned": False,  # opt-in: a learned classifier decides which prompts are rule candidates (lost to the phrase tables: bench/signals/RESULTS.md)
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


# Old key -> new key. Old names in config files, `config get/set` and
# MEMDOWN_<OLD> environment variables keep working, with a notice.
RENAMED: dict[str, str] = {
    "search.fusion_depth": "search.candidate_depth",
    "capture.enabled": "mining.enabled",
    "capture.semantic": "mining.semantic",
    "capture.semantic_model": "mining.semantic_model",
    "capture.semantic_timeout": "mining.semantic_timeout",
}
_noticed: set[str] = set()


def _say_once(line: str) -> None:
    """One line on stderr per process (stdout may be a hook's JSON)."""
    if line not in _noticed:
        _noticed.add(line)
        import sys

        sys.stderr.write(line + "\n")


def canonical_key(dotted: str, where: str = "") -> str:
    """The current name of ``dotted``; an old name gets a notice when ``where`` says where it was used."""
    new = RENAMED.get(dotted)
    if new is not None and where:
        _say_once(f"memdown: config key {dotted} is now {new} ({where}); the old name still works")
    return dotted if new is None else new


class Config:
    """Resolved settings: ``values[section][key]``, where each non-default came from, ``notices`` (one line
    per committed file with something ignored or waiting for approval).

    A plain class, not a dataclass: importing dataclasses costs every hook several ms.
    """

    __slots__ = ("values", "sources", "notices")

    def __init__(self, values: dict[str, dict[str, Any]] | None = None, sources: dict[str, str] | None = None) -> None:
        # DEFAULTS holds only scalars: a copy per section is a deep copy.
        self.values = values if values is not None else {s: dict(keys) for s, keys in DEFAULTS.items()}
        self.sources = sources if sources is not None else {}
        self.notices: list[str] = []

    def __repr__(self) -> str:
        return f"Config(values={self.values!r}, sources={self.sources!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and (self.values, self.sources) == (other.values, other.sources)

    def get(self, dotted: str) -> Any:
        section, key = _split_key(canonical_key(dotted, "asked for by that name"))
        return self.values[section][key]

    def __getitem__(self, dotted: str) -> Any:
        return self.get(dotted)

    def flat(self) -> dict[str, Any]:
        return {f"{s}.{k}": v for s, keys in self.values.items() for k, v in keys.items()}


def _split_key(dotted: str) -> tuple[str, str]:
    section, _, key = canonical_key(dotted).partition(".")
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
    except (TypeError, ValueError):
        raise ConfigError(
            f"invalid value {raw!r} for {dotted} (expected {type(default).__name__})"
        ) from None
    if f"{section}.{key}" in ARGV_KEYS and not is_argument(raw):
        raise ConfigError(f"invalid value {raw[:80]!r} for {dotted} (a model name: letters, digits and ._:/@+-, "
                          "not starting with -)")
    return raw


def _read_toml(path: str | os.PathLike[str]) -> dict[str, Any]:
    if not pathstr.is_file(path):
        return {}
    import tomllib  # ~10 ms; hooks skip it when no config file exists

    try:
        return tomllib.loads(fsutil.read_text(path, limit=1 << 20))
    except FileNotFoundError:
        return {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot parse {path}: {exc}") from None


def _entries(data: dict[str, Any], origin: str, bad: list[str] | None) -> dict[str, Any]:
    """``section.key -> raw value``; a non-table section raises, or is listed in ``bad`` when given."""
    found: dict[str, Any] = {}
    for section, keys in data.items():
        if not isinstance(keys, dict) and bad is None:
            raise ConfigError(f"{origin}: [{section}] must be a table")
        if not isinstance(keys, dict):
            bad.append(f"[{section}] is not a table")  # type: ignore[union-attr]
        found.update({f"{section}.{key}": raw for key, raw in (keys.items() if isinstance(keys, dict) else ())})
    return found


def _apply(config: Config, data: dict[str, Any], origin: str, *, committed: str | os.PathLike[str] | None = None) -> None:
    """Apply one file's values. ``committed``: the memory root whose project file this is (see module doc)."""
    bad: list[str] = []
    pending: list[str] = []
    found = _entries(data, origin, bad if committed else None)
    for dotted, raw in found.items():
        new = canonical_key(dotted, origin)
        if new != dotted and new in found:
            continue  # both names in one file: the new one wins
        try:
            section, key = _split_key(new)
            value = coerce(new, raw)
        except ConfigError as exc:
            if committed is None:
                raise
            bad.append(str(exc))  # without the hint: the list of known keys is long
            continue
        if committed is not None and new in CONTROLLED and value is not False \
                and value != config.values[section][key] and not approved(committed, new, value):
            pending.append(new)
            continue
        config.values[section][key] = value
        config.sources[new] = origin
    if bad:
        _notice(config, f"memdown: {origin}: ignored {'; '.join(bad)}")
    if pending:
        _notice(config, f"memdown: {origin} sets {', '.join(pending)}, which choose(s) what runs or costs; not used "
                        f"until approved on this machine: memdown config approve {' '.join(pending)}")


def _notice(config: Config, line: str) -> None:
    from .fence import clean

    config.notices.append(" ".join(clean(line).split())[:600])  # key names come from the repository
    _say_once(config.notices[-1])


def project_value(root: Path, dotted: str) -> tuple[str, Any]:
    """(current key name, the value ``root``'s project config gives it, validated): for ``config approve``."""
    dotted = canonical_key(dotted, "config approve")
    _split_key(dotted)
    if dotted not in CONTROLLED:
        raise ConfigError(f"{dotted} needs no approval: a project's config sets it directly")
    found = _entries(_read_toml(pathstr.project_config_file(root)), "project config", [])
    raws = [raw for name, raw in found.items() if canonical_key(name) == dotted]
    if not raws:
        raise ConfigError(f"{pathstr.project_config_file(root)} does not set {dotted}")
    return dotted, coerce(dotted, raws[-1])


def env_var_name(dotted: str) -> str:
    section, key = _split_key(dotted)
    return f"MEMDOWN_{section.upper()}_{key.upper()}"


# --- process-wide switches: environment only, one meaning each ---------------

# The words that turn a switch on. hooks/memdown-hook matches MEMDOWN_DISABLE
# against the same words (any letter case) before Python starts.
from .envflags import ON_WORDS, env_flag, hook_sync, memdown_disabled  # noqa: E402,F401  (one definition each)


# What coding agents set in the shell their tools run: one list (envflags.AGENT_ENV), for the recall fence
# and for the commands an agent may not run (cli/agentsafe).
from .envflags import AGENT_ENV, agent_variables  # noqa: E402,F401
OFF_WORDS = ("0", "false", "no")


def recall_fence() -> bool:
    """Whether recall output (search, expand, transcript) is fenced as recorded data.

    ``MEMDOWN_FENCE`` decides when set (1/true/yes or 0/false/no); otherwise it is fenced when a
    coding agent runs the command, so what the model reads is labelled and people see plain text.
    """
    forced = os.environ.get("MEMDOWN_FENCE", "").strip().lower()
    if forced in ON_WORDS or forced in OFF_WORDS:
        return forced in ON_WORDS
    return agent_running()


def agent_running() -> bool:
    """Whether a coding agent runs this process (one of ``AGENT_ENV`` set, not to 0)."""
    return bool(agent_variables())


from .envflags import SUMMARIZER_ENV, in_summarizer  # noqa: E402,F401


def load_config(root: str | os.PathLike[str] | None = None) -> Config:
    """The settings for the memory root ``root`` (a ``Path`` or, on the prompt hook, a string)."""
    config = Config()
    global_file = pathstr.global_config_file()
    _apply(config, _read_toml(global_file), global_file)
    if root is not None:
        project_file = pathstr.project_config_file(root)
        try:
            project = _read_toml(project_file)
        except ConfigError as exc:  # committed: a broken file is ignored, not fatal
            project = {}
            _notice(config, f"memdown: {exc.one_line()}; ignored")
        _apply(config, project, project_file, committed=root)
    for old, new in RENAMED.items():
        name = "MEMDOWN_" + old.replace(".", "_").upper()
        if name in os.environ and env_var_name(new) not in os.environ:
            canonical_key(old, f"env {name}")
            section, key = _split_key(new)
            config.values[section][key] = coerce(new, os.environ[name])
            config.sources[new] = f"env {name}"
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

    from . import paths
    from .fsutil import atomic_write_text

    dotted = canonical_key(dotted, "config set")
    value = coerce(dotted, raw)
    section, key = _split_key(dotted)
    if scope == "global":
        target = paths.global_config_file()
    else:
        if root is None:
            raise ConfigError("no memory root for a project setting", hint="use --global")
        target = paths.project_config_file(root)
    data = _read_toml(target)
    for old, new in RENAMED.items():  # the old spelling would only confuse whoever reads the file
        old_section, _, old_key = old.partition(".")
        if new == dotted and isinstance(data.get(old_section), dict):
            data[old_section].pop(old_key, None)
            if not data[old_section]:
                del data[old_section]
    data.setdefault(section, {})[key] = value
    atomic_write_text(target, tomli_w.dumps(data))
    return target
