"""Mine a transcript for signals with what the learning loop knows.

The one entry point for the worker (PreCompact, SessionEnd) and ``memdown
reflect mine``: it gathers the lines the agent is already told, with
``reflect.meta_learning`` on the confidence adjustments learned from past
reviews, and with ``mining.learned`` on the learned detector
(``signals.classifier``), and hands them to ``signals.mining``.
"""
from __future__ import annotations

from pathlib import Path

from ...config import Config
from ...learning.known_facts import known_facts
from ...signals.mining import mine_session as mine_with
from ...signals.store import Signal
from ...store import forgetting
from . import recorded_turns


def mine_session(root: Path, transcript_path: Path, session_id: str, *, config: Config) -> list[Signal]:
    """Detect signals in the transcript since the stored mining point; write and return them."""
    root = Path(root)
    adjust = None
    if config["reflect.meta_learning"]:
        from ...learning.meta import adjuster

        adjust = adjuster(root, config["reflect.meta_min_samples"])
    known = recorded_turns.load(root)  # a resume that re-logs its parent under fresh uuids: those turns are copies
    forgotten = forgetting.load(root)  # `memdown forget`: never mined again
    if session_id in forgotten.sessions:
        return []
    return mine_with(root, transcript_path, session_id, config=config, facts=known_facts(root), adjust=adjust,
                     classify=learned_detector(config),
                     copied=lambda turn: turn.uuid in forgotten.turns or bool(known.copied_from(turn, session_id)))


def learned_detector(config: Config):
    """The learned classifier with the packaged embedder, or None (the phrase tables decide) when
    ``mining.learned`` is off or the model cannot load offline: mining never fails for want of it."""
    if not config["mining.learned"]:
        return None
    from ...errors import MemdownError
    from ...signals.classifier import load_classifier

    try:
        return load_classifier()
    except (MemdownError, OSError, ValueError, KeyError) as exc:
        import sys

        print(f"memdown: learned detector unavailable, phrase tables decide ({exc})", file=sys.stderr)
        return None
