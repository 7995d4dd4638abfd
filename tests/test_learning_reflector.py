"""The reflector: fold near-duplicates, expire stale signals; idempotent and safe beside hooks."""
from __future__ import annotations

import datetime as dt
import subprocess
import sys
import textwrap

from memdown.config import load_config
from memdown.learning.reflector import expire, fold, sweep
from memdown.signals import store
from memdown.signals.store import Signal

NOW = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.timezone.utc)


def add(root, text, kind="correction", conf=1, days_ago=0, scope="project", session="s"):
    when = NOW - dt.timedelta(days=days_ago)
    return store.append(root, [Signal(kind, text, conf, scope=scope, session=session)], now=when)[0]


def test_fold_into_newest_sums_corroboration_and_is_idempotent(memory_root):
    a = add(memory_root, "no, use pnpm not npm", days_ago=3, conf=2)
    b = add(memory_root, "don't use npm", days_ago=2)
    c = add(memory_root, "please stop using npm, pnpm only", days_ago=1)
    other = add(memory_root, "always write docstrings", "convention", days_ago=1)
    glob = add(memory_root, "don't use npm anywhere", scope="global")
    folded = fold(memory_root, 0.6, now=NOW)
    assert sorted((f["id"], f["into"]) for f in folded) == [(a.id, c.id), (b.id, c.id)]
    by_id = {s.id: s for s in store.load(memory_root)}
    assert by_id[c.id].corroboration == 3 and by_id[c.id].confidence == 2 and by_id[c.id].status == "captured"
    assert by_id[a.id].status == "archived" and by_id[a.id].consolidated_into == c.id
    assert by_id[other.id].status == "captured" and by_id[glob.id].status == "captured"  # other text / scope
    assert fold(memory_root, 0.6, now=NOW) == []
    # a newer duplicate later takes over the whole chain
    d = add(memory_root, "nope, pnpm. not npm")
    assert fold(memory_root, 0.6, now=NOW) == [{"id": c.id, "into": d.id}]
    assert store.get(memory_root, d.id).corroboration == 4


def test_expire_low_confidence_uncorroborated_after_ttl(memory_root):
    old_low = add(memory_root, "wait, hmm", days_ago=20)
    old_high = add(memory_root, "remember that deploys are on fridays", "memory_request", conf=3, days_ago=20)
    fresh = add(memory_root, "stop using var", days_ago=2)
    old_corroborated = add(memory_root, "use uv", days_ago=30)
    store.update(memory_root, {old_corroborated.id: {"corroboration": 2}})
    assert expire(memory_root, 14, now=NOW) == [old_low.id]
    by_id = {s.id: s for s in store.load(memory_root)}
    assert by_id[old_low.id].status == "archived" and by_id[old_low.id].extra["expired"] == "2026-11-22"
    assert {by_id[i].status for i in (old_high.id, fresh.id, old_corroborated.id)} == {"captured"}
    assert expire(memory_root, 14, now=NOW) == []


def test_sweep_reports_and_runs_beside_concurrent_hook_appends(memory_root, tmp_path):
    for n in range(6):
        add(memory_root, f"don't use npm, variant {n % 2}", days_ago=1)
    script = tmp_path / "hook.py"
    script.write_text(textwrap.dedent(f"""
        from pathlib import Path
        from memdown.learning.fixes import record_failure
        root = Path({str(memory_root)!r})
        for i in range(25):
            record_failure(root, session_id="h", tool_name="Bash", tool_input={{"command": f"make t{{i}}"}},
                           error=f"Error: target t{{i}} failed")
    """))
    hook = subprocess.Popen([sys.executable, str(script)])
    reports = [sweep(memory_root, config=load_config(memory_root), now=NOW) for _ in range(3)]
    assert hook.wait(timeout=60) == 0
    assert len(reports[0]["folded"]) == 5 and reports[1]["folded"] == [] and reports[2]["folded"] == []
    signals = store.load(memory_root)
    assert len(signals) == 31 and len({s.id for s in signals}) == 31
    assert sum(1 for s in signals if s.type == "failure") == 25
    assert sum(1 for s in signals if s.active and s.type == "correction") == 1
