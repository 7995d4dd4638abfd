"""The transcript drill-down as data: list a session's turns, or one turn with its neighbours.

One code path for every edge that shows a recorded session (``memdown transcript``, the MCP
server's ``transcript`` tool): which files may be read is decided here, once.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ... import fsutil, paths
from ...errors import NotFoundError


def note_imported(path: Path) -> None:
    """Remember, on this machine (``paths.imported_sources_file``), that ``path`` was recorded by an import."""
    real = str(Path(path).expanduser().resolve())
    if "\n" in real or real in _imported_here():
        return
    fsutil.locked_append(paths.imported_sources_file(), real + "\n")


def _imported_here() -> set[str]:
    try:
        return set(fsutil.read_text(paths.imported_sources_file(), errors="replace").splitlines())
    except OSError:
        return set()


def recorded_transcripts(root: Path) -> Iterator[Path]:
    """Transcript paths named by this memory's anchors (read lazily, only when needed)."""
    for _session, path in _recorded(root):
        yield path


def _recorded(root: Path) -> Iterator[tuple[str, Path]]:
    """(session, transcript path) of every anchor in this memory's daily logs whose file an import on this
    machine recorded: a committed anchor may name any file (grant by identity, not by name)."""
    from ...store.anchors import ANCHOR_RE, anchor_unescape, parse_anchor
    from ...transcript.archive import resolve_portable

    here = _imported_here()
    if not here:
        return
    for day in paths.daily_files(root):
        try:
            text = fsutil.read_text(day, errors="replace")
        except OSError:
            continue
        for match in ANCHOR_RE.finditer(text):
            anchor = parse_anchor(match.group(0))
            if anchor is not None and anchor.transcript:
                path = resolve_portable(anchor_unescape(anchor.transcript))
                try:
                    known = str(path.expanduser().resolve()) in here
                except (OSError, RuntimeError):
                    continue
                if known:
                    yield anchor.session, path


def _locate(root: Path, ref: str) -> Path:
    """``find_transcript``, and what it cannot know: a path as an anchor (and so ``expand``) shows it,
    escaped (``%20``, ``%0A``…), and a session this memory recorded from a file outside the client's
    projects folder and the archive (``memdown import FILE``), found by its anchors."""
    from ...store.anchors import anchor_unescape
    from ...transcript.archive import find_transcript

    try:
        return find_transcript(ref)
    except NotFoundError:
        plain = anchor_unescape(ref.strip())
        if plain != ref.strip():
            try:
                return find_transcript(plain)
            except NotFoundError:
                pass
        wanted = ref.strip().lower()
        if len(wanted) >= 8:
            named = {path for session, path in _recorded(root) if session.lower().startswith(wanted)}
            if len(named) == 1:
                return named.pop()
        raise


def _repository(root: Path) -> list[Path]:
    """The project's folder (the one holding ``.memdown``; the memory folder itself for another root): no
    transcript inside it is read, whatever an anchor says."""
    from ... import paths

    return [root.parent if root.name == paths.MEMORY_DIR_NAME else root]


def transcript_view(root: Path, ref: str, turn_ref: str | None = None, context: int = 0, *,
                    as_json: bool = False, raw: bool = False) -> Any:
    """The turn list (``turn_ref`` None) or one turn with ``context`` turns around it.

    Text (a str) or JSON-ready data (``as_json``). Only Claude Code transcripts are read: under
    the client's projects folder, the archive, or sessions this memory recorded. Redacted as
    everything memdown writes is (issue #27.5: the live transcript holds secrets as typed),
    unless ``raw`` (the CLI allows it only to a person at a terminal).
    """
    from ...redact import redact, redact_structure

    shown = _view(root, ref, turn_ref, context, as_json)
    if raw:
        return shown
    return redact_structure(shown) if as_json else redact(shown)


def _without_forgotten(root: Path, parsed: Any) -> Any:
    """The transcript without the turns (or the session) a person told memdown to forget: the client's own
    file still holds them, and memdown never shows a forgotten turn again (store/forgetting.py)."""
    import dataclasses

    from ...store import forgetting

    forgotten = forgetting.load(root)
    if not forgotten:
        return parsed
    if parsed.session_id in forgotten.sessions:
        raise NotFoundError(f"session {parsed.session_id} was forgotten (memdown forget)")
    kept = [turn for turn in parsed.turns if turn.uuid not in forgotten.turns]
    return parsed if len(kept) == len(parsed.turns) else dataclasses.replace(parsed, turns=kept)


def _view(root: Path, ref: str, turn_ref: str | None, context: int, as_json: bool) -> Any:
    from ...clients import CLAUDE_CODE, client_of, parse_log
    from ...transcript.layout import require_transcript
    from ...transcript.parser import last_turn, locate_turn
    from ...transcript.render import format_turn_list, list_turns_json, render_turns, render_turns_json

    parsed = parse_log(require_transcript(_locate(root, ref), recorded_transcripts(root), _repository(root),
                                          other_client=lambda path: client_of(path) != CLAUDE_CODE))
    parsed = _without_forgotten(root, parsed)
    if turn_ref is None:
        return list_turns_json(parsed) if as_json else format_turn_list(parsed)
    if turn_ref.strip().lower() == "last":
        turn = last_turn(parsed)
        if turn is None:
            raise NotFoundError(f"session {parsed.session_id} has no turns")
    else:
        turn = locate_turn(parsed, turn_ref)[1]
    return render_turns_json(parsed, turn, context) if as_json else render_turns(parsed, turn, context)
