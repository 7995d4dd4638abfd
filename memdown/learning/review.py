"""The review service behind ``memdown reflect`` and the ``/reflect`` skill.

Flow: recover half-finished promotions (only those approved on this machine:
``learnings.md`` is committed and untrusted, see ``approvals``) → expire stale signals (TTL) → gather
pending signals → drop duplicates of CLAUDE.md, learnings, improvements and
earlier decisions (persisted with an ``auto:`` reason) → group near-duplicates
→ classify → flag contradictions → present oldest first. Every decision
(``promote``, ``dismiss``, ``undo``) is written at once, so stopping midway
loses nothing. ``pending_counts`` and ``recent_learnings`` serve the
SessionStart digest and read a small cache keyed on file stamps.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import paths
from ..config import load_config
from ..errors import NotFoundError, UsageError
from ..fsutil import file_lock
from ..redact import redact
from ..signals import store
from ..signals.store import ACTIVE, Signal, utcnow
from ..signals.text import one_line
from . import candidates as C
from . import improvements, learnings, ledger, meta, mistakes
from . import promote as P
from .approvals import new_token
from .counts import pending_counts, recent_learnings, stats

__all__ = ["Review", "analyze", "dismiss", "pending_counts", "promote", "recent_learnings", "show", "stats", "undo"]

AUTO = "auto: "


@dataclass
class Review:
    candidates: list[C.Candidate] = field(default_factory=list)
    auto: list[dict] = field(default_factory=list)
    expired: list[str] = field(default_factory=list)
    recovered: list[str] = field(default_factory=list)
    unapproved: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"candidates": [c.to_dict() for c in self.candidates], "auto": self.auto,
                "expired": self.expired, "recovered": self.recovered, "unapproved": self.unapproved,
                "total": len(self.candidates),
                "summary_offered": len(self.candidates) > 10}


def _lock(root: Path):
    return file_lock(paths.lock_file(root, "reflect"), timeout=30)


def _day(now) -> str:
    return now.strftime("%Y-%m-%d")


# --- analysis -------------------------------------------------------------------

def analyze(root: Path, *, persist: bool = True, config=None, now=None) -> Review:
    if not persist:
        return _analyze(root, persist=False, config=config, now=now)
    with _lock(root):
        return _analyze(root, persist=True, config=config, now=now)


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


def _analyze(root: Path, *, persist: bool, config=None, now=None) -> Review:
    config = config or load_config(root)
    now = now or utcnow()
    threshold = float(config["reflect.fold_threshold"])
    review = Review()
    if persist:
        review.recovered, review.unapproved = _recover(root, now)
        from .sweep import expire

        review.expired = expire(root, int(config["reflect.ttl_days"]), now=now)
    signals = store.load(root)
    by_id = {s.id: s for s in signals}
    ctx = {"learnings": learnings.load(root), "improvements": improvements.load(root),
           "reflexion": mistakes.load(root), "claude": P.rules_in(root),
           "decided": [s for s in signals if s.status == "dismissed" and not s.extra.get("reason", "").startswith(AUTO)]}
    consolidated: dict[str, list[Signal]] = {}
    for sig in signals:
        if sig.consolidated_into:
            consolidated.setdefault(sig.consolidated_into, []).append(sig)
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
    groups = C.group(remaining, threshold)
    promoted = [item for item in ctx["learnings"] if item.status == "promoted"]
    for members in groups:
        cand = C.build(members, consolidated)
        review.candidates.append(cand)
        if cand.kind != "rule":
            continue
        for item in promoted:
            if C.conflicts_between(cand.text, item.text):
                cand.conflicts.append({"id": item.id, "text": item.text, "where": "learning"})
        for target, line in ctx["claude"]:
            if C.conflicts_between(cand.text, line) and not any(c["text"] == C.clean_line(line) for c in cand.conflicts):
                cand.conflicts.append({"id": "", "text": C.clean_line(line), "where": f"{target} CLAUDE.md"})
    rules = [c for c in review.candidates if c.kind == "rule"]
    for a in rules:  # contradictions between candidates
        for b in rules:
            if a is not b and C.conflicts_between(a.text, b.text):
                a.conflicts.append({"id": b.id, "text": b.text, "where": "candidate"})
    review.candidates.extend(_revert_candidates(signals, promoted))
    review.candidates.extend(_global_candidates(root, promoted))
    review.candidates.sort(key=lambda c: (c.first_seen or "9999", c.id))
    if persist:
        for cand in review.candidates:
            for sig_id in cand.signal_ids:
                if by_id.get(sig_id) is not None and by_id[sig_id].status == "captured":
                    updates.setdefault(sig_id, {"status": "analyzed"})
        if updates:
            store.update(root, updates, only_if_status=ACTIVE, signals=signals)
        for lrn_id, sigs in bumps.items():
            _bump(root, lrn_id, sigs, by_id)
    return review


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


def _recover(root: Path, now) -> tuple[list[str], list[dict]]:
    """Finish promotions interrupted after the learning was recorded (crash, kill).

    Only those approved on this machine: a pending entry that arrived with a
    ``git pull`` is left alone and reported (``unapproved``).
    """
    done, refused = [], []
    for item in learnings.load(root):
        target = item.extra.get("target")
        if item.status != "pending" or not target:
            continue
        if target in P.CLAUDE_TARGETS and not P.approved(root, target, item.text, P.token_of(item)):
            refused.append({"id": item.id, "target": target, "text": one_line(item.text, 120)})
            continue
        _finish_rule(root, item, target, _day(now))
        done.append(item.id)
    return done, refused


def _already_promoted(root: Path, cand: C.Candidate) -> dict | None:
    """Where ``cand``'s signals already went (promote is idempotent), or None."""
    sigs = [_maybe(root, s) for s in cand.signal_ids]
    if not sigs or any(s is None or s.status != "promoted" for s in sigs):
        return None
    for key in ("learning", "improvement", "reflexion"):
        ref = sigs[0].extra.get(key)  # type: ignore[union-attr]
        if ref:
            return {key: ref}
    return None


# --- decisions -----------------------------------------------------------------

def _find(review: Review, item_id: str) -> C.Candidate | None:
    for cand in review.candidates:
        if cand.id == item_id or item_id in cand.signal_ids:
            return cand
    return None


def _single(root: Path, sig_id: str) -> C.Candidate:
    sig = store.get(root, sig_id)
    return C.build([sig], {})


def promote(root: Path, item_id: str, target: str | None = None, *, text: str | None = None,
            category: str | None = None, force: bool = False, replace: bool = False, now=None) -> dict:
    """Approve a candidate (any of its signal ids) or send a learning to another target."""
    now = now or utcnow()
    item_id = item_id.strip().upper()
    if target is not None and target not in P.ALL_TARGETS:
        raise UsageError(f"unknown target {target!r}", hint="one of " + ", ".join(P.ALL_TARGETS))
    with _lock(root):
        if item_id.startswith("LRN-"):
            return _promote_learning(root, P.local_learning(root, item_id), target or "global", now)
        review = _analyze(root, persist=True, now=now)
        cand = _find(review, item_id) or _single(root, item_id)
        done = _already_promoted(root, cand) if cand.action == "promote" else None
        if done is not None:
            ref = done.get("learning")
            if ref and target in P.CLAUDE_TARGETS and target not in P.local_learning(root, ref).targets:
                return {**_promote_learning(root, P.local_learning(root, ref), target, now), "id": cand.id}
            return {"id": cand.id, "action": "promote", "target": target or cand.target, "already": True,
                    "changed": False, "signals": cand.signal_ids, **done}
        if cand.action == "revert":
            if not cand.learning_id:
                raise UsageError(f"{item_id} matches no promoted learning", hint="use `memdown reflect undo LRN-…`")
            result = _revert_learning(root, learnings.get(root, cand.learning_id), f"reverted by {item_id}", now)
            store.update(root, {item_id: {"status": "promoted", "learning": cand.learning_id}})
            return {"id": item_id, "action": "revert", **result}
        if cand.conflicts and not (force or replace):
            first = cand.conflicts[0]
            raise UsageError(f"{cand.id} conflicts with {first['id'] or first['where']}: {one_line(first['text'], 80)}",
                             hint="--replace reverts the conflicting learning, --force keeps both")
        if replace:
            for conflict in cand.conflicts:
                if conflict["id"].startswith("LRN-"):
                    _revert_learning(root, learnings.get(root, conflict["id"]), f"contradicted by {cand.id}", now)
        target = target or cand.target
        text = one_line(redact(text or cand.text))  # as learnings.md will store it: the approval hashes this text
        sigs = [store.get(root, s) for s in cand.signal_ids]
        day = _day(now)
        if target == "improvements":
            imp = improvements.add(root, text, category=(category or cand.category).lower(), sources=cand.signal_ids,
                                   day=day)
            result = {"improvement": imp.id, "path": str(Path(root) / "improvements.md")}
            store.update(root, {s.id: {"status": "promoted", "improvement": imp.id} for s in sigs})
        elif target == "reflexion":
            r = cand.reflexion or {"mistake": cand.context, "evidence": "; ".join(cand.quotes), "rule": text}
            rfx = mistakes.add(root, mistakes.Reflexion(id="", title="", tool=r.get("tool", ""),
                                                          mistake=r.get("mistake", ""), evidence=r.get("evidence", ""),
                                                          rule=text, fix=r.get("fix", ""), tags=r.get("tags", []),
                                                          sources=cand.signal_ids), day=day)
            result = {"reflexion": rfx.id, "path": str(Path(root) / "reflexion.md")}
            store.update(root, {s.id: {"status": "promoted", "reflexion": rfx.id} for s in sigs})
        else:
            token = new_token()
            if target in P.CLAUDE_TARGETS:  # approved before anything is written: recovery may finish it
                P.approve(root, target, "", one_line(text), token)
            item = learnings.add(root, learnings.Learning(
                id="", text=text, category=category or cand.category, status="pending",
                scope="global" if target == "global" else cand.scope, occurrences=cand.sessions,
                first_seen=cand.first_seen or day, last_seen=cand.last_seen or day, sources=cand.signal_ids,
                extra={"target": target, "token": token}), day=day)
            result = _finish_rule(root, item, target, day)
            ledger.record(root, item.fingerprint, text, item.id, day=day)
        meta.record(root, sigs, "accepted")
        return {"id": cand.id, "action": "promote", "target": target, "signals": cand.signal_ids, **result}


def _promote_learning(root: Path, item, target: str, now) -> dict:
    """Send an existing learning to a CLAUDE.md target: this command is the approval."""
    if item.status == "reverted":
        raise UsageError(f"{item.id} was reverted and is not proposed again",
                         hint="set its status to promoted by hand to re-enable it")
    if target not in P.CLAUDE_TARGETS:
        raise UsageError("a learning can be promoted to " + ", ".join(P.CLAUDE_TARGETS))
    result = _finish_rule(root, P.approve_learning(root, item, target), target, _day(now))
    if target == "global":
        ledger.mark_global(item.fingerprint, "promoted")
    return {"id": item.id, "action": "promote", "learning": item.id, **result}


def _finish_rule(root: Path, item, target: str, day: str) -> dict:
    """Write the rule to its target (idempotent; refused without a local approval), then mark it promoted."""
    result: dict = {"learning": item.id, "target": target}
    if target in P.CLAUDE_TARGETS:
        result.update(P.add_rule(root, target, item.id, item.text, token=P.token_of(item)))
    where = f"{P.describe(root, target)} ({day})"
    promoted_to = item.promoted_to + ([where] if target not in item.targets else [])
    learnings.update(root, item.id, status="promoted", promoted_to=promoted_to, target=None)
    if item.sources:
        store.update(root, {s: {"status": "promoted", "learning": item.id} for s in item.sources})
    return result


def _revert_learning(root: Path, item, reason: str, now) -> dict:
    """Negative trace: remove the rule everywhere (with backups), keep the learning as reverted."""
    if item.status == "reverted":
        raise UsageError(f"{item.id} is already reverted")
    removed = [r for r in (P.remove_rule(root, t, item.id, P.token_of(item)) for t in P.CLAUDE_TARGETS) if r["changed"]]
    learnings.update(root, item.id, status="reverted", reverted=_day(now), reason=reason)
    sigs = [s for s in (_maybe(root, sid) for sid in item.sources) if s is not None]
    meta.record(root, sigs, "reverted")
    ledger.record(root, item.fingerprint, item.text, item.id, status="reverted", day=_day(now))
    return {"learning": item.id, "removed_from": [r["path"] for r in removed],
            "backups": [r["backup"] for r in removed if r["backup"]]}


def _maybe(root: Path, sig_id: str) -> Signal | None:
    try:
        return store.get(root, sig_id)
    except NotFoundError:
        return None


def dismiss(root: Path, ids: list[str], *, reason: str = "", now=None) -> list[dict]:
    now = now or utcnow()
    out = []
    with _lock(root):
        review = _analyze(root, persist=True, now=now)
        for item_id in (i.strip().upper() for i in ids):
            cand = _find(review, item_id)
            if cand is not None and cand.action == "globalize":
                ledger.mark_global(learnings.get(root, cand.learning_id).fingerprint, "declined")
                out.append({"id": item_id, "action": "dismiss", "global": "declined"})
                continue
            members = cand.signal_ids if cand is not None else [store.get(root, item_id).id]
            changes = {s: {"status": "dismissed", "decision": "user", "reason": reason or None,
                           "decided": _day(now)} for s in members}
            store.update(root, changes)
            meta.record(root, [store.get(root, s) for s in members], "dismissed")
            out.append({"id": item_id, "action": "dismiss", "signals": members})
    return out


def undo(root: Path, item_id: str, *, reason: str = "", now=None) -> dict:
    """Revert a promotion (LRN/IMP/RFX or a promoted SIG), or reopen a dismissed/archived signal."""
    now = now or utcnow()
    item_id = item_id.strip().upper()
    with _lock(root):
        if item_id.startswith("LRN-"):
            return {"id": item_id, "action": "revert",
                    **_revert_learning(root, P.local_learning(root, item_id), reason or "undone by hand", now)}
        if item_id.startswith("IMP-"):
            item = next((i for i in improvements.load(root) if i.id == item_id), None)
            if item is None:
                raise NotFoundError(f"no improvement {item_id}")
            improvements.remove(root, item_id)
            store.update(root, {s: {"status": "captured", "improvement": None} for s in item.sources})
            return {"id": item_id, "action": "removed", "signals": item.sources}
        if item_id.startswith("RFX-"):
            mistakes.set_status(root, item_id, "deprecated")
            return {"id": item_id, "action": "deprecated"}
        sig = store.get(root, item_id)
        if sig.status == "promoted" and sig.extra.get("learning"):
            item = P.local_learning(root, sig.extra["learning"])
            return {"id": item_id, "action": "revert", **_revert_learning(root, item, reason or f"undone via {item_id}", now)}
        if sig.status in ("dismissed", "archived"):
            if sig.extra.get("decision") == "user":
                meta.record(root, [sig], "dismissed", delta=-1)
            store.update(root, {item_id: {"status": "captured", "decision": None, "reason": None, "decided": None,
                                          "consolidated_into": None, "expired": None}})
            return {"id": item_id, "action": "reopened"}
        raise UsageError(f"nothing to undo for {item_id} (status {sig.status})")


# --- reading ---------------------------------------------------------------------

def show(root: Path, item_id: str) -> dict:
    item_id = item_id.strip().upper()
    if item_id.startswith("LRN-"):
        return {"learning": learnings.get(root, item_id).to_dict()}
    if item_id.startswith("IMP-"):
        item = next((i for i in improvements.load(root) if i.id == item_id), None)
        if item is None:
            raise NotFoundError(f"no improvement {item_id}")
        return {"improvement": item.to_dict()}
    if item_id.startswith("RFX-"):
        item = next((i for i in mistakes.load(root) if i.id == item_id), None)
        if item is None:
            raise NotFoundError(f"no reflexion entry {item_id}")
        return {"reflexion": item.to_dict()}
    cand = _find(_analyze(root, persist=False), item_id)
    sig_ids = cand.signal_ids if cand else [item_id]
    return {"candidate": cand.to_dict() if cand else None,
            "signals": [store.get(root, s).to_dict() for s in sig_ids]}

