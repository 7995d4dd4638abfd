"""Review analysis: which pending signals become candidates, and what is already settled.

Recover half-finished promotions (only those approved on this machine:
``learnings.md`` is committed and untrusted, see ``approvals``) → expire stale
signals (TTL) → gather pending signals → drop duplicates of CLAUDE.md,
learnings, improvements and earlier decisions (persisted with an ``auto:``
reason) → group near-duplicates → classify → flag contradictions → present
oldest first. ``decisions`` acts on what this finds.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import fsutil, paths
from ..config import Config
from ..fsutil import file_lock
from ..signals import restated, store
from ..signals.store import ACTIVE, Signal, utcnow
from ..signals.text import one_line
from . import candidates as C
from . import improvements, learnings, ledger, mistakes
from . import promote as P
from .approvable import hold_reason, not_a_rule, repeated_correction

AUTO = "auto: "
RESTATED_FIRST = 3  # "a preference a user restated three times is shown at the top of the queue"


@dataclass
class Review:
    candidates: list[C.Candidate] = field(default_factory=list)
    auto: list[dict] = field(default_factory=list)
    expired: list[str] = field(default_factory=list)
    recovered: list[str] = field(default_factory=list)
    unapproved: list[dict] = field(default_factory=list)
    held: int = 0  # signals whose text is no rule a person would write: kept as evidence, not proposed
    held_reasons: dict[str, int] = field(default_factory=dict)  # why, counted in signals (never silent)
    held_groups: list[dict] = field(default_factory=list)  # each held group: id, type, text, reason (`list --all`)

    def to_dict(self) -> dict:
        return {"candidates": [c.to_dict() for c in self.candidates], "auto": self.auto,
                "expired": self.expired, "recovered": self.recovered, "unapproved": self.unapproved,
                "total": len(self.candidates), "held": self.held, "held_reasons": self.held_reasons,
                "summary_offered": len(self.candidates) > 10}


def strength(cand: C.Candidate) -> tuple:
    """Review order: what the user restated 3+ times first (most restated first), then the strongest
    (confidence, then sessions and corroboration, then the newest)."""
    newest = -int((cand.last_seen or "0").replace("-", "") or 0)
    return (-(cand.restated if cand.restated >= RESTATED_FIRST else 0), -cand.confidence, -cand.sessions, -cand.corroboration, newest, cand.id)


def seen_file(root: Path) -> Path:
    """Which signals a review has shown: machine-local state, never a committed file."""
    return paths.state_dir(root) / "review-seen.json"


def mark_seen(root: Path, candidates: list[C.Candidate]) -> None:
    """Remember the shown candidates' signals (``captured`` → seen, without touching signals/*.md)."""
    import json

    from ..fsutil import atomic_write_text

    path = seen_file(root)
    try:
        seen = set(json.loads(fsutil.read_text(path)))
    except (OSError, ValueError, TypeError):
        seen = set()
    new = {sig_id for cand in candidates for sig_id in cand.signal_ids} - seen
    if new:
        atomic_write_text(path, json.dumps(sorted(seen | new)), mode=paths.PRIVATE_FILE_MODE)


def review_lock(root: Path):
    """Held by every review run and decision, and by the sweep."""
    return file_lock(paths.lock_file(root, "reflect"), timeout=30)


def day_of(now) -> str:
    return now.strftime("%Y-%m-%d")


def analyze(root: Path, *, config: Config, persist: bool = True, now=None) -> Review:
    if not persist:
        return analyze_under_lock(root, persist=False, config=config, now=now)
    with review_lock(root):
        return analyze_under_lock(root, persist=True, config=config, now=now)


def _duplicate(sig: Signal, text: str, kind: str, ctx: dict, threshold: float) -> tuple[str, str, str] | None:
    """(status, reason, ref) when ``sig`` repeats something already known or decided."""
    if kind == "rule":
        for item in ctx["learnings"]:
            if item.status in ("promoted", "reverted") and C.matches(text, item.text, threshold):
                if item.status == "promoted":
                    return "promoted", f"{AUTO}duplicate of {item.id}", item.id
                return "dismissed", f"{AUTO}matches reverted {item.id}", item.id
        for target, line in ctx["claude"]:
            if C.matches(text, line, threshold):
                return "dismissed", f"{AUTO}already in {target} CLAUDE.md", ""
    if kind == "improvement":
        for item in ctx["improvements"]:
            if C.matches(text, item.text, threshold):
                return "dismissed", f"{AUTO}duplicate of {item.id}", item.id
    if kind == "reflexion":
        for item in ctx["reflexion"]:
            if item.tool == sig.extra.get("tool") and C.matches(sig.text, item.evidence, threshold):
                return "dismissed", f"{AUTO}duplicate of {item.id}", item.id
    for old in ctx["decided"]:
        if C.kind_of(old) == kind and C.matches(text, C.proposal(old), threshold):
            return "dismissed", f"{AUTO}previously dismissed {old.id}", old.id
    return None


def analyze_under_lock(root: Path, *, persist: bool, config: Config, now=None) -> Review:
    """The analysis; when ``persist`` is true the caller holds ``review_lock``."""
    now = now or utcnow()
    threshold = float(config["reflect.fold_threshold"])
    review = Review()
    # Looking still reports a pending learning that came with a pull unapproved; only a run that may
    # write finishes the interrupted promotions approved here.
    review.recovered, review.unapproved = _recover(root, now, finish=persist)
    if persist:
        from .sweep import expire

        review.expired = expire(root, int(config["reflect.ttl_days"]), now=now)
    signals = restated.checked(root, store.load(root))  # a restatement counts as this machine's prompts hold it
    by_id = {s.id: s for s in signals}
    ctx = {"learnings": learnings.load(root), "improvements": improvements.load(root),
           "reflexion": mistakes.load(root), "claude": P.rules_in(root),
           "decided": [s for s in signals if s.status == "dismissed" and not s.extra.get("reason", "").startswith(AUTO)]}
    consolidated: dict[str, list[Signal]] = {}
    for sig in signals:
        if sig.consolidated_into:
            consolidated.setdefault(sig.consolidated_into, []).append(sig)
    updates, bumps, remaining = _settle_duplicates(signals, ctx, threshold, review)
    promoted = [item for item in ctx["learnings"] if item.status == "promoted"]
    for members in C.group(remaining, threshold):
        cand = C.build(members, consolidated)
        reason = held_reason(cand, members)
        if reason:
            review.held += len(members)
            review.held_reasons[reason] = review.held_reasons.get(reason, 0) + len(members)
            review.held_groups.append({"id": cand.id, "type": cand.type, "text": cand.text, "held": reason,
                                       "signals": len(members), "quotes": cand.quotes[:3]})
            continue
        review.candidates.append(cand)
    _flag_conflicts(review.candidates, promoted, ctx["claude"])
    review.candidates.extend(_revert_candidates(signals, promoted))
    review.candidates.extend(_global_candidates(root, promoted))
    review.candidates.sort(key=strength)
    if persist:
        if updates:
            store.update(root, updates, only_if_status=ACTIVE, signals=signals)
        for lrn_id, sigs in bumps.items():
            _bump(root, lrn_id, sigs, by_id)
    return review


def held_reason(cand: C.Candidate, members: list[Signal]) -> str:
    """Why a group is kept as evidence rather than shown for review ('' when it is shown): an observation
    seen once (``C.one_off``), a text that is no rule as written (``C.proposable_rule``), an edit streak,
    a to-do or an order for the task at hand (``approvable.hold_reason``)."""
    reason = C.one_off(members)
    if reason:
        return reason
    if cand.kind == "rule" and cand.action == "promote" and not C.proposable_rule(cand.type, cand.text):
        if not C.actionable(cand.text):
            return "names nothing a rule could be about"
        why = not_a_rule(cand.text)
        if why or not repeated_correction(members, cand.text):   # said again in another prompt, it is a rule as worded
            return why or "a correction of one step, not worded as a rule"
    return hold_reason(cand.kind, cand.type, cand.text, cand.quotes, cand.sessions, cand.restated)


def _settle_duplicates(signals: list[Signal], ctx: dict, threshold: float, review: Review):
    """Signals that repeat something known or decided get their status (recorded in ``review.auto``).

    Returns (status updates, learning id → recurring signals, the signals left to review).
    """
    updates: dict[str, dict[str, object]] = {}
    bumps: dict[str, list[Signal]] = {}
    remaining: list[Signal] = []
    for sig in (s for s in signals if C.reviewable(s)):
        dup = _duplicate(sig, C.proposal(sig), C.kind_of(sig), ctx, threshold)
        if dup is None:
            remaining.append(sig)
            continue
        status, reason, ref = dup
        change: dict[str, object] = {"status": status, "reason": reason}
        if status == "promoted" and ref:
            change["learning"] = ref
            bumps.setdefault(ref, []).append(sig)
        updates[sig.id] = change
        review.auto.append({"id": sig.id, "status": status, "reason": reason})
    return updates, bumps, remaining


def _flag_conflicts(candidates: list[C.Candidate], promoted: list, claude: list[tuple[str, str]]) -> None:
    """Rule candidates that contradict a promoted learning, a CLAUDE.md line or each other."""
    rules = [c for c in candidates if c.kind == "rule"]
    for cand in rules:
        for item in promoted:
            if C.conflicts_between(cand.text, item.text):
                cand.conflicts.append({"id": item.id, "text": item.text, "where": "learning"})
        for target, line in claude:
            if C.conflicts_between(cand.text, line) and not any(c["text"] == C.clean_line(line) for c in cand.conflicts):
                cand.conflicts.append({"id": "", "text": C.clean_line(line), "where": f"{target} CLAUDE.md"})
    for a in rules:  # contradictions between candidates
        for b in rules:
            if a is not b and C.conflicts_between(a.text, b.text):
                a.conflicts.append({"id": b.id, "text": b.text, "where": "candidate"})


def _bump(root: Path, lrn_id: str, sigs: list[Signal], by_id: dict[str, Signal]) -> None:
    """A recurring learning: more sources, sessions and a later last_seen."""
    item = learnings.get(root, lrn_id)
    sources = item.sources + [s.id for s in sigs if s.id not in item.sources]
    sessions = {by_id[s].session or s for s in sources if s in by_id}
    seen = max([item.last_seen] + [(s.seen or s.captured)[:10] for s in sigs])
    learnings.update(root, lrn_id, sources=sources, occurrences=max(item.occurrences, len(sessions)), last_seen=seen)


def _revert_candidates(signals: list[Signal], promoted: list) -> list[C.Candidate]:
    out = []
    generic = {"rule", "learn", "learning", "memory", "wrong", "forget", "instruction", "note", "outdated",
               "incorrect", "remove", "delete", "ignore", "regla", "regel", "falsch"}
    for sig in signals:
        if sig.type != "revert" or not sig.active:
            continue
        words = C.content_tokens(sig.text) - generic
        best = max(promoted, key=lambda item: len(words & C.content_tokens(item.text)), default=None)
        if best is not None and not words & C.content_tokens(best.text):
            best = None
        out.append(C.Candidate(id=sig.id, action="revert", kind="rule", type="revert", category="",
                               scope=sig.scope, text=one_line(sig.text), confidence=sig.confidence, sessions=1,
                               corroboration=sig.corroboration, signal_ids=[sig.id],
                               first_seen=(sig.seen or sig.captured)[:10], last_seen=(sig.seen or sig.captured)[:10],
                               target="", quotes=[one_line(sig.text, 200)], context=sig.context,
                               learning_id=best.id if best is not None else ""))
    return out


def _global_candidates(root: Path, promoted: list) -> list[C.Candidate]:
    out = []
    try:
        shared = ledger.global_candidates(root)
    except OSError:
        return out
    for item in promoted:
        if item.fingerprint in shared and "global" not in item.targets:
            repos = len(shared[item.fingerprint]["repos"])
            out.append(C.Candidate(id=item.id, action="globalize", kind="rule", type="ledger", category=item.category,
                                   scope="global", text=item.text, confidence=3 if repos >= 3 else 2, sessions=repos,
                                   corroboration=repos, signal_ids=[], first_seen=item.first_seen,
                                   last_seen=item.last_seen, target="global", learning_id=item.id,
                                   quotes=[f"promoted in {repos} repositories"]))
    return out


def _recover(root: Path, now, *, finish: bool = True) -> tuple[list[str], list[dict]]:
    """Finish promotions interrupted after the learning was recorded (crash, kill).

    Only those approved on this machine: a pending entry that arrived with a
    ``git pull`` is left alone and reported (``unapproved``). With ``finish`` false
    nothing is written; the report is the same.
    """
    done, refused = [], []
    for item in learnings.load(root):
        target = item.extra.get("target")
        if item.status != "pending" or not target:
            continue
        if target in P.CLAUDE_TARGETS and not P.approved(root, target, item.text, P.token_of(item)):
            refused.append({"id": item.id, "target": target, "text": one_line(item.text, 120)})
            continue
        if finish:
            P.finish_rule(root, item, target, day_of(now))
            done.append(item.id)
    return done, refused


def find_candidate(review: Review, item_id: str) -> C.Candidate | None:
    for cand in review.candidates:
        if cand.id == item_id or item_id in cand.signal_ids:
            return cand
    return None


def single_candidate(root: Path, sig_id: str) -> C.Candidate:
    return C.build(restated.checked(root, [store.get(root, sig_id)]), {})
