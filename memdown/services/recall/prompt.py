"""The recall hint on a prompt (UserPromptSubmit): on a session's first prompt and on prompts that reach back.

Its own module, apart from the start brief (``session``), because it runs on every prompt: the memory root
is a string (``pathstr``, no ``pathlib``) and a recall cue in ASCII text is found without ``re``
(``lazyre.ascii_phrase_found``; other text is matched by the pattern, compiled then). Whatever comes from the
file system or the repository is fenced (``memdown.fence``) before it is returned.
"""
from __future__ import annotations

import os

from ... import fsutil, pathstr
from ...fence import Gated, field, join, own_line
from ...lazyre import IGNORECASE, LazyPattern, ascii_phrase_found
from ...optout import should_skip

TYPE_CHECKING = False  # not `import typing` at run time: every hook pays for it
if TYPE_CHECKING:
    from ...config import Config

# Words that suggest the user is reaching back in time; the recall hint is added for these prompts and for the
# first prompt of each session. Lowercase, each starting and ending with a letter (``\b`` around each).
RECALL_CUE_PHRASES = (
    "remember", "last time", "before", "previous", "previously", "earlier", "again", "we did", "did we", "why did",
    "how did we", "decided", "decision", "yesterday", "last week", "history", "same error", "same bug",
    "same issue", "used to", "recurring", "wie letztes mal", "schon mal", "früher", "la última vez",
    "la ultima vez", "antes")
RECALL_CUES = LazyPattern(r"\b(" + "|".join(RECALL_CUE_PHRASES) + r")\b", IGNORECASE)  # letters and spaces only
POINTER_CHARS = 2_000  # size bound of the fenced pointers (fence.fence never exceeds it)

RECALL_HINT_CLAUDE = "the memdown:memory-recall skill (memdown search → expand → transcript)"
RECALL_HINT_SHELL = "`memdown search \"<a few words>\"` in the shell (then `memdown expand <id>`)"


def has_recall_cue(text: str) -> bool:
    found = ascii_phrase_found(text, RECALL_CUE_PHRASES, whole_words=True)
    return found if found is not None else RECALL_CUES.search(text) is not None


def prompt_hint(root: str, config: Config, *, prompt: str, session_id: str, shown_as: str,
                recall_with: str = RECALL_HINT_CLAUDE) -> Gated | str:
    """The recall hint for this prompt ('' for none): on a session's first prompt and on recall cues.
    ``recall_with`` names memdown's recall by identity in this client (``clients.skill_identity``)."""
    text = prompt.strip()
    if not config["hooks.prompt_hint"] or len(text) < config["hooks.prompt_min_chars"] or text.startswith("/"):
        return ""
    if should_skip(text):
        return ""
    first = _first_prompt_of_session(root, session_id)
    if not (first or has_recall_cue(text)):
        return ""
    days = pathstr.daily_files(root)
    if not days:
        return ""
    # The folder and the file name come from the file system (a committed name can hold anything); the
    # folder's usual name, memdown's own word, is not judged (no flag pattern compiled for it).
    where = shown_as if shown_as == pathstr.MEMORY_DIR_NAME else field(shown_as)
    latest = os.path.splitext(os.path.basename(days[0]))[0]  # Path.stem
    lines = [own_line(
        f"This project has memdown memory: {len(days)} daily log(s) in {where}/memory "
        f"(latest {field(latest, 40)}). Past work, decisions and fixes can be recalled with {recall_with}.")]
    pointers = config["hooks.prompt_pointers"]
    found = _pointers(root, text, pointers) if pointers > 0 else []
    if found:
        from ...fence import fence

        lines.append(fence("Possibly relevant memory (search hits; open with `memdown expand ID`).", found,
                           limit=POINTER_CHARS, source="memdown search"))
    return join(lines, "\n")


def _first_prompt_of_session(root: str, session_id: str) -> bool:
    if not session_id:
        return False
    marker = pathstr.session_state_file(root, "prompted", session_id)
    if pathstr.exists(marker):
        return False
    try:
        fsutil.append_bytes(marker, b"", fsync=False)  # created empty (and its folder)
    except OSError:
        return False
    return True


def _pointers(root: str, prompt: str, k: int) -> list[str]:
    """One-line pointers from the warm daemon only; never wait for a cold index."""
    from pathlib import Path  # only with prompt_pointers on

    from ...live.client import ask_daemon

    reply = ask_daemon(Path(root), "search", {"query": prompt[:500], "k": k}, timeout=0.05, reply_timeout=0.3)
    if not reply or not reply.get("ok"):
        return []
    out = []
    for hit in reply.get("result") or []:
        first = " ".join(str(hit.get("text", "")).split())[:140]
        out.append(f"{hit.get('source')}:{hit.get('start_line')} ({hit.get('date')}) {first} [id {str(hit.get('id'))[:12]}]")
    return out
