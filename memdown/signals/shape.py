"""The reaction shape of a prompt, as numbers for the learned detector (issue 30): language-independent.

Most corrections in other people's words carry no cue any table holds ("你不是", "je n'ai pas de choix
fullauto"); what they share is their place in the conversation. A correction follows an agent action and
points back at it: the agent edited files or ran a command, maybe said it was done, and the prompt is
short, names something the agent just produced (a file, a command, an identifier of the turn before),
opens with a refusal, asks why, asks to undo. A new task is long and names new things; an answer follows
a question. This module turns that shape into numbers (``shape_features``), with ``reaction.py``'s
multilingual reactions and memory requests as features too, so the model can weigh them rather than
obey them. Standard library only.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence

from .reaction import memory_request, reaction

# Tool names by what the call did to the project (Claude Code's names; other clients' map onto them).
_CHANGED = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch", "write_file", "replace"})
_LOOKED = frozenset({"Read", "Grep", "Glob", "LS", "WebFetch", "WebSearch", "read_file", "list_directory"})
_RAN = frozenset({"Bash", "shell", "run_shell_command", "exec_command"})
_NAME = re.compile(r"[\w.\-/]{3,}")
_IDENT = re.compile(r"`([^`\n]{2,80})`")
_STOP = frozenset("the and for you this that with not are was but from have what when then than into just "
                  "also some more here there they them will would should could file files code line lines "
                  "test tests done make made use used using need".split())
REACTIONS = ("refusal", "why", "undo", "not-asked")


def _names(text: str) -> set[str]:
    """Names worth matching: path parts, identifiers, words of 4+ characters (lowercased), not stop words."""
    out: set[str] = set()
    for token in _NAME.findall(text.lower()):
        for part in re.split(r"[/]", token):
            part = part.strip(".-_")
            if len(part) >= 4 and part not in _STOP and not part.isdigit():
                out.add(part)
                stem = part.rsplit(".", 1)[0]
                if len(stem) >= 4:
                    out.add(stem)
    return out


def produced_names(calls: Sequence[tuple[str, str]], said: str) -> tuple[set[str], set[str]]:
    """(what the agent just touched: files edited/written, commands run; what it named in its words:
    backticked spans of its last text) from the turn before's ``(tool name, detail)`` calls."""
    touched: set[str] = set()
    for name, detail in calls:
        if name in _CHANGED or name in _RAN:
            touched |= _names(detail)
    spoken = set()
    for span in _IDENT.findall(said[-1500:]):
        spoken |= _names(span)
    return touched, spoken


def _tool_shape(calls: Sequence[tuple[str, str]], errors: int) -> list[float]:
    names = [name for name, _ in calls]
    changed = sum(1 for n in names if n in _CHANGED)
    ran = sum(1 for n in names if n in _RAN)
    looked = sum(1 for n in names if n in _LOOKED)
    return [1.0 if changed else 0.0, 1.0 if ran else 0.0, 1.0 if looked and not changed and not ran else 0.0,
            1.0 if any(n in {"Task", "Agent"} for n in names) else 0.0, 1.0 if errors else 0.0,
            min(1.0, math.log1p(changed) / 3.0), min(1.0, math.log1p(len(names)) / 4.0)]


def _length_shape(text: str) -> list[float]:
    chars = len(text)
    return [1.0 if chars <= 40 else 0.0, 1.0 if 40 < chars <= 160 else 0.0, 1.0 if 160 < chars <= 500 else 0.0,
            1.0 if chars > 500 else 0.0, 1.0 if text.count("\n") >= 3 else 0.0]


def shape_features(text: str, said: str, calls: Sequence[tuple[str, str]], errors: int, first: bool) -> list[float]:
    """The prompt's place after the agent's turn: what the agent did, how long the prompt is, which
    reaction or memory request it opens with, and whether it names what the agent just produced."""
    acted = bool(calls) or bool(said)
    kind = reaction(text, agent_acted=acted)
    touched, spoken = produced_names(calls, said)
    mine = _names(text[:600])
    named_touched, named_spoken = len(mine & touched), len(mine & spoken)
    short = len(text) <= 160
    out = [1.0 if first else 0.0, 1.0 if memory_request(text) else 0.0]
    out += [1.0 if kind == k else 0.0 for k in REACTIONS]
    out += _tool_shape(calls, errors) + _length_shape(text)
    out += [1.0 if named_touched else 0.0, 1.0 if named_spoken else 0.0, min(1.0, named_touched / 3.0),
            1.0 if (named_touched or named_spoken) and short else 0.0,
            1.0 if kind and any(n in _CHANGED for n, _ in calls) else 0.0]
    return out


N_SHAPE_FEATURES = len(shape_features("", "", (), 0, True))
