"""``memdown reflect …`` (review learning signals) and ``memdown mining on|off|status`` (formerly ``capture``)."""
from __future__ import annotations

from pathlib import Path

import click

from .. import fsutil, paths
from .common import dir_option, json_option, load_settings, print_json, resolve_root

TARGET_CHOICE = click.Choice(["project", "agents", "project-local", "global", "rules", "learnings", "improvements",
                              "reflexion"])


def _root(memory_dir: Path | None) -> Path:
    root = resolve_root(memory_dir)
    paths.require_root(root)
    return root


def _candidate_lines(cand: dict, n: int | None = None) -> list[str]:
    head = f"{cand['id']}  {cand['action'] if cand['action'] != 'promote' else cand['type']}"
    head += f"  conf {cand['confidence']}  {cand['sessions']} session(s)"
    if cand.get("target"):
        head += f"  → {cand['target']}"
    if cand.get("learning_id") and cand["action"] != "promote":
        head += f"  ({cand['learning_id']})"
    lines = [(f"{n}. " if n else "") + head, f"   {cand['text']}"]
    if cand.get("category"):
        lines[-1] += f"   [{cand['category'].lower()}]"
    if cand.get("restated"):
        lines.append(f"   restated in {cand['restated']} prompts: " + " · ".join(f'"{q}"' for q in cand["quotes"]))
    if cand.get("destructive"):
        lines.append(f"   ! the recorded fix is destructive ({cand['destructive']}): not proposed as a fix")
    for conflict in cand.get("conflicts", []):
        lines.append(f"   ! conflicts with {conflict['id'] or conflict['where']}: {conflict['text'][:100]}")
    return lines


@click.group()
def reflect() -> None:
    """Review learning signals and promote them to CLAUDE.md, learnings or improvements.

    Oldest first: `list`, then `promote ID --to TARGET` or `dismiss ID`; `undo ID` reverts.
    """


SHOWN_FIRST = 10  # candidates `reflect list` prints unless --limit says otherwise


@reflect.command("list")
@click.option("--all", "show_all", is_flag=True, help="Also list every signal with its status.")
@click.option("--limit", type=int, default=None,
              help=f"Show at most N candidates (default {SHOWN_FIRST} in text, all with --json; 0 = all).")
@click.option("--dry-run", is_flag=True, hidden=True, help="Kept for old scripts: listing never writes memory files.")
@dir_option
@json_option
def list_cmd(show_all: bool, limit: int | None, dry_run: bool, memory_dir: Path | None, as_json: bool) -> None:
    """Review candidates, strongest first. Looking changes no memory file: what a review has
    shown is kept in local state; duplicates and stale signals are settled by decisions and the sweep."""
    from ..learning.analysis import mark_seen
    from ..learning.review import analyze
    from ..signals import store

    from .progress import Progress

    root = _root(memory_dir)
    with Progress("reading the signals"):
        review = analyze(root, config=load_settings(root), persist=False)
    data = review.to_dict()
    cap = limit if limit is not None else (0 if as_json else SHOWN_FIRST)
    if cap:
        data["candidates"] = data["candidates"][:cap]
    data["more"] = data["total"] - len(data["candidates"])
    if not dry_run:
        mark_seen(root, review.candidates[:len(data["candidates"])])
    if show_all:
        data["held_groups"] = review.held_groups
        data["signals"] = [s.to_dict() for s in store.load(root)]
    if as_json:
        print_json(data)
        return
    _print_review(review, data)
    if show_all:
        for group in data["held_groups"]:
            click.echo(f"held ({group['held']}): {group['id']} {group['type']}: {group['text'][:80]}")
        for sig in data["signals"]:
            click.echo(f"{sig['id']}  {sig['status']:<9} {sig['type']:<16} {sig['text'][:80]}")


def _print_review(review, data: dict) -> None:
    if review.auto:
        click.echo(f"{len(review.auto)} signal(s) repeat what is already known or decided; left out.")
    for item in review.unapproved:
        click.echo(f"not applied: {item['id']} → {item['target']} is pending in learnings.md but was not approved "
                   f"on this machine (approve: memdown reflect promote {item['id']} --to {item['target']})")
    if not data["candidates"]:
        click.echo("Nothing to review.")
    else:
        click.echo(f"{data['total']} candidate(s), strongest first:")
        for n, cand in enumerate(data["candidates"], 1):
            click.echo("\n".join(_candidate_lines(cand, n)))
        if data["more"]:
            click.echo(f"{data['more']} more wait (memdown reflect list --limit 0); skip all for now and they stay "
                       "pending.")
        click.echo("Next: memdown reflect promote ID --to TARGET | dismiss ID | show ID")
    if data.get("held"):
        click.echo(f"{data['held']} signal(s) held as evidence: no rule a person would write as it stands "
                   "(memdown reflect list --all shows them).")
        for reason, count in sorted(data.get("held_reasons", {}).items(), key=lambda kv: -kv[1]):
            click.echo(f"  {count} {reason}")


@reflect.command("show")
@click.argument("item_id")
@dir_option
@json_option
def show_cmd(item_id: str, memory_dir: Path | None, as_json: bool) -> None:
    """Show a candidate (by any of its signal ids), signal, learning, improvement or reflexion entry."""
    from ..learning.review import show

    root = _root(memory_dir)
    data = show(root, item_id, config=load_settings(root))
    if as_json:
        print_json(data)
        return
    if data.get("candidate"):
        click.echo("\n".join(_candidate_lines(data["candidate"])))
    if data.get("rule"):
        click.echo(f"rule (promote writes this; --text overrides): {data['rule']}")
    for sig in data.get("signals", []):
        click.echo(f"- {sig['id']} {sig['type']} conf {sig['confidence']} {sig['status']} "
                   f"session {sig['session'] or '?'}\n  > {sig['text']}")
        if sig.get("context"):
            click.echo("  " + sig["context"].replace("\n", "\n  "))
    for key in ("learning", "improvement", "reflexion"):
        if key in data:
            for name, value in data[key].items():
                click.echo(f"{name}: {value}")


@reflect.command("promote")
@click.argument("item_id")
@click.option("--to", "target", type=TARGET_CHOICE, default=None,
              help="Where it goes (default: the suggested target).")
@click.option("--text", default=None, help="The rule as it should be written (default: the proposal).")
@click.option("--category", default=None, help="Learning category (commands, conventions, gotchas, …).")
@click.option("--force", is_flag=True, help="Promote despite a contradiction (keeps both).")
@click.option("--replace", is_flag=True, help="Revert contradicting learnings, then promote.")
@dir_option
@json_option
def promote_cmd(item_id: str, target: str | None, text: str | None, category: str | None, force: bool,
                replace: bool, memory_dir: Path | None, as_json: bool) -> None:
    """Approve a candidate: write it to the target (backed up, atomic) and record the learning."""
    from ..learning.review import promote

    root = _root(memory_dir)
    result = promote(root, item_id, target, config=load_settings(root), text=text, category=category, force=force,
                     replace=replace)
    if as_json:
        print_json(result)
        return
    what = result.get("learning") or result.get("improvement") or result.get("reflexion") or ""
    click.echo(f"{result['action']} {result['id']} → {result.get('target') or ''} {what}".rstrip())
    if result.get("rule"):
        click.echo(f"rule: {result['rule']}")
    if result.get("guard"):
        checks = f" ({result['guard_checks']})" if result.get("guard_checks") else ""
        click.echo(f"guard: {result['guard']}{checks} when a tool call breaks this rule (memdown reflect guards)")
    if result.get("path") and result.get("changed", True):
        click.echo(f"wrote {result['path']}" + (f" (backup {result['backup']})" if result.get("backup") else ""))
    for path in result.get("removed_from", []):
        click.echo(f"removed from {path}")


@reflect.command("dismiss")
@click.argument("item_ids", nargs=-1, required=True)
@click.option("--reason", default="", help="Why (kept with the signals).")
@dir_option
@json_option
def dismiss_cmd(item_ids: tuple[str, ...], reason: str, memory_dir: Path | None, as_json: bool) -> None:
    """Dismiss candidates; similar signals are not proposed again."""
    from ..learning.review import dismiss

    root = _root(memory_dir)
    result = dismiss(root, list(item_ids), config=load_settings(root), reason=reason)
    if as_json:
        print_json(result)
        return
    for item in result:
        click.echo(f"dismissed {item['id']}" + (f" ({len(item['signals'])} signal(s))" if item.get("signals") else ""))


@reflect.command("undo")
@click.argument("item_id")
@click.option("--reason", default="", help="Why (kept with the learning).")
@dir_option
@json_option
def undo_cmd(item_id: str, reason: str, memory_dir: Path | None, as_json: bool) -> None:
    """Revert a promotion (removed from its target with a backup, never proposed again) or reopen a signal."""
    from ..learning.review import undo

    result = undo(_root(memory_dir), item_id, reason=reason)
    if as_json:
        print_json(result)
        return
    click.echo(f"{result['action']} {result['id']}")
    for path in result.get("removed_from", []):
        click.echo(f"removed from {path}")


@reflect.command("guards")
@click.option("--remove", "remove_id", default=None, metavar="LRN-…",
              help="Stop guarding this learning (its rule stays in CLAUDE.md; `undo` removes both).")
@dir_option
@json_option
def guards_cmd(remove_id: str | None, memory_dir: Path | None, as_json: bool) -> None:
    """Guards from approved rules: the tool calls memdown stops before they repeat a corrected mistake."""
    from ..learning import guards

    if remove_id:
        removed = guards.remove(remove_id.strip().upper())
        if as_json:
            print_json({"removed": removed, "learning": remove_id.strip().upper()})
        else:
            click.echo(f"removed {removed} guard(s) of {remove_id.strip().upper()}")
        return
    found = guards.listed(resolve_root(memory_dir))
    if as_json:
        print_json(found)
        return
    if not found:
        click.echo("No guards here. Approved rules that name a command or a file become guards.")
    for guard in found:
        click.echo(f"{guard.get('id')}  {guard.get('decision')}  {'global' if not guard.get('root') else 'project'}"
                   f"  {guard.get('rule')}")


@reflect.command("stats")
@dir_option
@json_option
def stats_cmd(memory_dir: Path | None, as_json: bool) -> None:
    """Signal counts and acceptance rate per signal type and pattern (meta-learning)."""
    from ..learning.review import stats

    root = _root(memory_dir)
    data = stats(root, load_settings(root))
    if as_json:
        print_json(data)
        return
    sig = data["signals"]
    click.echo(f"signals: {sig['total']} " + " ".join(f"{k}={v}" for k, v in sorted(sig["by_status"].items())))
    click.echo("learnings: " + (" ".join(f"{k}={v}" for k, v in sorted(data["learnings"].items())) or "none"))
    click.echo(f"meta-learning: {'on' if data['meta_learning'] else 'off'} (adjusts after {data['min_samples']} decisions)")
    if data["acceptance"]:
        click.echo(f"{'kind':<8} {'name':<36} {'acc':>4} {'dis':>4} {'rev':>4} {'rate':>6} {'adj':>4}")
        for row in data["acceptance"]:
            rate = "-" if row["rate"] is None else f"{row['rate']:.0%}"
            click.echo(f"{row['kind']:<8} {row['name'][:36]:<36} {row['accepted']:>4} {row['dismissed']:>4} "
                       f"{row['reverted']:>4} {rate:>6} {row['adjustment']:>+4d}")


@reflect.command("sweep")
@click.option("--no-fold", is_flag=True, help="Skip folding near-duplicates.")
@click.option("--no-expire", is_flag=True, help="Skip expiring stale signals.")
@click.option("--semantic/--no-semantic", default=None, help="Run the claude -p classifier on queued prompts.")
@dir_option
@json_option
def sweep_cmd(no_fold: bool, no_expire: bool, semantic: bool | None, memory_dir: Path | None,
              as_json: bool) -> None:
    """Fold near-duplicate signals and archive stale ones (idempotent)."""
    from ..learning.sweep import sweep

    root = _root(memory_dir)
    report = sweep(root, config=load_settings(root), do_fold=not no_fold, do_expire=not no_expire,
                   semantic=semantic)
    if as_json:
        print_json(report)
        return
    click.echo(f"folded {len(report['folded'])}, expired {len(report['expired'])}")
    for item in report["folded"]:
        click.echo(f"  {item['id']} → {item['into']}")
    if report.get("semantic"):
        click.echo(f"semantic: {report['semantic']}")


@reflect.command("mine")
@click.argument("transcript", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--session", "session_id", default="", help="Session id (default: from the transcript).")
@dir_option
@json_option
def mine_cmd(transcript: Path, session_id: str, memory_dir: Path | None, as_json: bool) -> None:
    """Mine a transcript for signals now (the hooks do this on PreCompact and SessionEnd)."""
    from ..services.capture.signal_mining import mine_session
    from ..transcript.layout import first_session_id, session_stem

    root = resolve_root(memory_dir)
    fsutil.make_dirs(root)
    session_id = session_id or first_session_id(transcript) or session_stem(transcript)
    found = mine_session(root, transcript, session_id, config=load_settings(root))
    if as_json:
        print_json([s.to_dict() for s in found])
        return
    click.echo(f"{len(found)} signal(s) from {transcript.name}")
    for sig in found:
        click.echo(f"  {sig.id} {sig.type} conf {sig.confidence}: {sig.text[:80]}")


_MINING_STATE = click.Choice(["on", "off", "status"])
_GLOBAL_HELP = "Change the global config instead of the project's."


@click.command("mining")
@click.argument("state", type=_MINING_STATE, default="status")
@click.option("--global", "global_", is_flag=True, help=_GLOBAL_HELP)
@dir_option
@json_option
def mining_cmd(state: str, global_: bool, memory_dir: Path | None, as_json: bool) -> None:
    """Turn mining of learning signals (corrections, conventions, failures) on or off, or show it.
    Recording is not affected: the daily log is written either way."""
    _set_mining(state, global_, memory_dir, as_json)


@click.command("capture", hidden=True)
@click.argument("state", type=_MINING_STATE, default="status")
@click.option("--global", "global_", is_flag=True, help=_GLOBAL_HELP)
@dir_option
@json_option
def capture_cmd(state: str, global_: bool, memory_dir: Path | None, as_json: bool) -> None:
    """Old name of `memdown mining` (kept working)."""
    click.echo("memdown: `memdown capture` is now `memdown mining` (it turns signal mining on or off; "
               "recording to the daily log is never turned off by it)", err=True)
    _set_mining(state, global_, memory_dir, as_json)


def _set_mining(state: str, global_: bool, memory_dir: Path | None, as_json: bool) -> None:
    from ..config import set_value
    from ..services.upkeep.status import CAPTURE_KEY, capture_state

    root = resolve_root(memory_dir)
    written = None
    if state != "status":
        written = set_value(CAPTURE_KEY, "true" if state == "on" else "false",
                            root=root, scope="global" if global_ else "project")
    data = {**capture_state(load_settings(root)), "written": str(written) if written else None}
    if as_json:
        print_json(data)
        return
    click.echo(f"signal mining is {'on' if data['enabled'] else 'off'} (from {data['source']}); "
               "the daily log is written either way")


COMMANDS = (reflect, mining_cmd, capture_cmd)
