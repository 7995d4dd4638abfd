"""Review decisions: promote, dismiss and undo, each written at once so stopping midway loses nothing.

Every decision first re-runs the analysis under the review lock, so it acts
on what is on disk now. ``show`` reads one candidate, signal or entry.
"""
from __future__ import annotations

from pathlib import Path

from ..config import Config
from ..errors import NotFoundError, UsageError
from ..redact import redact
from ..signals import store
from ..signals.store import Signal, utcnow
from ..signals.text import one_line
from . import candidates as C
from . import guards, improvements, learnings, ledger, meta, mistakes, phrasing
from . import promote as P
from .analysis import analyze_under_lock, day_of, find_candidate, review_lock, single_candidate
from .approvals import new_token
from .instructions import created_targets


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


def promote(root: Path, item_id: str, target: str | None = None, *, text: str | None = None,
            category: str | None = None, force: bool = False, replace: bool = False, config: Config,
            now=None) -> dict:
    """Approve a candidate (any of its signal ids) or send a learning to another target."""
    now = now or utcnow()
    item_id = item_id.strip().upper()
    if target is not None and target not in P.ALL_TARGETS:
        raise UsageError(f"unknown target {target!r}", hint="one of " + ", ".join(P.ALL_TARGETS))
    with review_lock(root):
        if item_id.startswith("LRN-"):
            return _promote_learning(root, P.local_learning(root, item_id), target or "global", now)
        review = analyze_under_lock(root, persist=True, config=config, now=now)
        cand = find_candidate(review, item_id) or single_candidate(root, item_id)
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
        text = one_line(redact(text or proposed_rule(root, cand, target, config)))  # the approval hashes this text
        sigs = [store.get(root, s) for s in cand.signal_ids]
        result = _record(root, cand, target, text, category, sigs, day_of(now))
        meta.record(root, sigs, "accepted")
        return {"id": cand.id, "action": "promote", "target": target, "signals": cand.signal_ids, **result}


def proposed_rule(root: Path, cand: C.Candidate, target: str, config: Config) -> str:
    """What promote writes unless ``--text`` says otherwise: a rule a person would write (``phrasing``)."""
    if cand.kind != "rule" or target not in (*P.CLAUDE_TARGETS, "learnings") or cand.restated:
        return cand.text  # a restated instruction is written in the user's own words and language
    return phrasing.rule_for(root, cand.text, cand.context, config)


def _record(root: Path, cand: C.Candidate, target: str, text: str, category: str | None, sigs: list[Signal],
            day: str) -> dict:
    """Write the approved candidate where ``target`` says: improvements, reflexion, or a learning and its rule."""
    if target == "improvements":
        imp = improvements.add(root, text, category=(category or cand.category).lower(), sources=cand.signal_ids,
                               day=day)
        store.update(root, {s.id: {"status": "promoted", "improvement": imp.id} for s in sigs})
        return {"improvement": imp.id, "path": str(Path(root) / "improvements.md")}
    if target == "reflexion":
        r = cand.reflexion or {"mistake": cand.context, "evidence": "; ".join(cand.quotes), "rule": text}
        rfx = mistakes.add(root, mistakes.Reflexion(id="", title="", tool=r.get("tool", ""),
                                                      mistake=r.get("mistake", ""), evidence=r.get("evidence", ""),
                                                      rule=text, fix=r.get("fix", ""), tags=r.get("tags", []),
                                                      sources=cand.signal_ids), day=day)
        store.update(root, {s.id: {"status": "promoted", "reflexion": rfx.id} for s in sigs})
        return {"reflexion": rfx.id, "path": str(Path(root) / "reflexion.md")}
    token = new_token()
    if target in P.CLAUDE_TARGETS:  # approved before anything is written: recovery may finish it
        P.approve(root, target, "", one_line(text), token)
    item = learnings.add(root, learnings.Learning(
        id="", text=text, category=category or cand.category, status="pending",
        scope="global" if target == "global" else cand.scope, occurrences=cand.sessions,
        first_seen=cand.first_seen or day, last_seen=cand.last_seen or day, sources=cand.signal_ids,
        extra={"target": target, "token": token, **_evidence(cand, text)}), day=day)
    result = P.finish_rule(root, item, target, day)
    ledger.record(root, item.fingerprint, text, item.id, day=day)
    return result


def _evidence(cand: C.Candidate, text: str) -> dict[str, str]:
    """The user's own words, kept in learnings.md (never in CLAUDE.md) when the rule rephrases them."""
    quote = one_line(redact(cand.quotes[0]), 200) if cand.quotes else ""
    return {"evidence": quote} if quote and quote != text else {}


def _promote_learning(root: Path, item, target: str, now) -> dict:
    """Send an existing learning to a CLAUDE.md target: this command is the approval."""
    if item.status == "reverted":
        raise UsageError(f"{item.id} was reverted and is not proposed again",
                         hint="set its status to promoted by hand to re-enable it")
    if target not in P.CLAUDE_TARGETS:
        raise UsageError("a learning can be promoted to " + ", ".join(P.CLAUDE_TARGETS))
    result = P.finish_rule(root, P.approve_learning(root, item, target), target, day_of(now))
    if target == "global":
        ledger.mark_global(item.fingerprint, "promoted")
    return {"id": item.id, "action": "promote", "learning": item.id, **result}


def _revert_learning(root: Path, item, reason: str, now, *, undone: bool = False) -> dict:
    """Remove the rule from every instruction file (with backups; a file memdown created for it goes when
    nothing else is in it). A revert keeps the learning as a negative trace (``reverted``: the same advice is
    not proposed again); an ``undone`` promotion (``reflect undo``) puts its signals back as they were, so the
    candidate can be reviewed again."""
    if item.status in ("reverted", "undone"):
        raise UsageError(f"{item.id} is already {item.status}")
    created = created_targets(item)
    removed = [r for r in (P.remove_rule(root, t, item.id, P.token_of(item), created=t in created)
                           for t in P.CLAUDE_TARGETS) if r["changed"]]
    guards.remove(item.id, P.token_of(item))
    learnings.update(root, item.id, status="undone" if undone else "reverted", reverted=day_of(now), reason=reason)
    sigs = [s for s in (_maybe(root, sid) for sid in item.sources) if s is not None]
    if undone:
        _restore_signals(root, item.id)
        meta.record(root, sigs, "accepted", delta=-1)
    else:
        meta.record(root, sigs, "reverted")
    ledger.record(root, item.fingerprint, item.text, item.id, status="reverted", day=day_of(now))
    return {"learning": item.id, "removed_from": [r["path"] for r in removed],
            "removed_files": [r["path"] for r in removed if r.get("removed_file")],
            "backups": [r["backup"] for r in removed if r["backup"]]}


def _restore_signals(root: Path, learning_id: str) -> None:
    """Signals promoted into ``learning_id`` (its sources and the repeats folded into it) get the status they
    had before (``captured`` when not recorded)."""
    back = {s.id: {"status": s.extra.get("before") or "captured", "learning": None, "before": None}
            for s in store.load(root) if s.status == "promoted" and s.extra.get("learning") == learning_id}
    if back:
        store.update(root, back)


def _maybe(root: Path, sig_id: str) -> Signal | None:
    try:
        return store.get(root, sig_id)
    except NotFoundError:
        return None


def dismiss(root: Path, ids: list[str], *, config: Config, reason: str = "", now=None) -> list[dict]:
    now = now or utcnow()
    out = []
    with review_lock(root):
        review = analyze_under_lock(root, persist=True, config=config, now=now)
        for item_id in (i.strip().upper() for i in ids):
            cand = find_candidate(review, item_id)
            if cand is not None and cand.action == "globalize":
                ledger.mark_global(learnings.get(root, cand.learning_id).fingerprint, "declined")
                out.append({"id": item_id, "action": "dismiss", "global": "declined"})
                continue
            members = cand.signal_ids if cand is not None else [store.get(root, item_id).id]
            changes = {s: {"status": "dismissed", "decision": "user", "reason": reason or None,
                           "decided": day_of(now)} for s in members}
            store.update(root, changes)
            meta.record(root, [store.get(root, s) for s in members], "dismissed")
            out.append({"id": item_id, "action": "dismiss", "signals": members})
    return out


def undo(root: Path, item_id: str, *, reason: str = "", now=None) -> dict:
    """Revert a promotion (LRN/IMP/RFX or a promoted SIG), or reopen a dismissed/archived signal."""
    now = now or utcnow()
    item_id = item_id.strip().upper()
    with review_lock(root):
        if item_id.startswith("LRN-"):
            return {"id": item_id, "action": "revert",
                    **_revert_learning(root, P.local_learning(root, item_id), reason or "undone by hand", now,
                                       undone=True)}
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
            return {"id": item_id, "action": "revert",
                    **_revert_learning(root, item, reason or f"undone via {item_id}", now, undone=True)}
        if sig.status in ("dismissed", "archived"):
            if sig.extra.get("decision") == "user":
                meta.record(root, [sig], "dismissed", delta=-1)
            store.update(root, {item_id: {"status": "captured", "decision": None, "reason": None, "decided": None,
                                          "consolidated_into": None, "expired": None}})
            return {"id": item_id, "action": "reopened"}
        raise UsageError(f"nothing to undo for {item_id} (status {sig.status})")


def show(root: Path, item_id: str, *, config: Config) -> dict:
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
    cand = find_candidate(analyze_under_lock(root, persist=False, config=config), item_id)
    sig_ids = cand.signal_ids if cand else [item_id]
    shown = {"candidate": cand.to_dict() if cand else None,
             "signals": [store.get(root, s).to_dict() for s in sig_ids]}
    if cand is not None and cand.action == "promote" and cand.kind == "rule":
        shown["rule"] = one_line(redact(proposed_rule(root, cand, cand.target, config)))
    return shown
