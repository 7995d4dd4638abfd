"""The sweep: fold near-duplicates, expire stale signals; idempotent and safe beside hooks."""
from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import time

from memdown.config import load_config
from memdown.learning.sweep import expire, fold, sweep
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


def test_sweep_reports_and_is_idempotent(memory_root):
    for n in range(6):
        add(memory_root, f"don't use npm, variant {n % 2}", days_ago=1)
    reports = [sweep(memory_root, config=load_config(memory_root), now=NOW) for _ in range(3)]
    assert len(reports[0]["folded"]) == 5 and reports[1]["folded"] == [] and reports[2]["folded"] == []
    signals = store.load(memory_root)
    assert len(signals) == 6 and sum(1 for s in signals if s.active) == 1


# A hook process that appends failure signals to the same day file once told to go.
# Its flock is wrapped so that it reports, by writing the lock's path, that it had to
# wait for a lock someone else holds: proof that both sides were in the critical region.
HOOK = """
import datetime as dt, errno, fcntl, os, sys, time
from pathlib import Path
from memdown.signals import store
from memdown.signals.store import Signal
root, go, blocked = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
now = dt.datetime.fromisoformat(sys.argv[4])
real_flock = fcntl.flock
def flock(fd, op):
    if op & fcntl.LOCK_UN:
        return real_flock(fd, op)
    try:
        return real_flock(fd, op | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno not in (errno.EAGAIN, errno.EACCES):
            raise
        blocked.write_text(os.readlink(f"/proc/self/fd/{fd if isinstance(fd, int) else fd.fileno()}"))
        if op & fcntl.LOCK_NB:
            raise
    return real_flock(fd, op)
fcntl.flock = flock
while not go.exists():
    time.sleep(0.01)
for i in range(3):
    store.append(root, [Signal("failure", f"Error: target t{i} failed", 1, session="h")], now=now)
"""


def test_sweep_and_a_hook_append_really_overlap_and_lose_nothing(memory_root, tmp_path, monkeypatch):
    """The sweep is held inside its rewrite of the day file (it has read the file and is about
    to rename its new version in) while a hook process appends to that file. The hook must wait
    for the lock; without the lock the sweep's rename would drop the hook's signals."""
    for n in range(6):
        add(memory_root, f"don't use npm, variant {n % 2}")
    day_file = store.day_file(memory_root, NOW.strftime("%Y-%m-%d"))
    assert day_file.exists()
    go, blocked = tmp_path / "go", tmp_path / "blocked"
    script = tmp_path / "hook.py"
    script.write_text(HOOK)
    hook = subprocess.Popen([sys.executable, str(script), str(memory_root), str(go), str(blocked),
                             NOW.isoformat()])
    real_replace = os.replace
    paused = []

    def target(dst, dir_fd) -> str:
        # The file layer renames relative to its folder's fd (fsutil.durable): resolve it as the kernel does.
        return os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), os.fspath(dst)) if dir_fd is not None else os.fspath(dst)

    def replace(src, dst, *args, **kwargs):
        if not paused and target(dst, kwargs.get("dst_dir_fd")) == str(day_file.resolve()):
            paused.append(True)
            go.touch()  # the hook starts its append now, while we are inside the rewrite
            deadline = time.monotonic() + 60
            while not blocked.exists() and hook.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    try:
        report = sweep(memory_root, config=load_config(memory_root), now=NOW)
        monkeypatch.undo()
        # Checked before waiting: a sweep that never reached the rewrite never released the hook.
        assert paused, "the sweep never rewrote the day file"
        assert hook.wait(timeout=60) == 0
    finally:
        if hook.poll() is None:
            hook.kill()
    signals = store.load(memory_root)
    assert sorted(s.text for s in signals if s.type == "failure") == [f"Error: target t{i} failed" for i in range(3)]
    assert blocked.exists(), "the hook never had to wait: the two never overlapped"
    assert day_file.name in blocked.read_text()  # it waited for the day file's lock
    assert len(report["folded"]) == 5
    assert len(signals) == 9 and len({s.id for s in signals}) == 9
    assert sum(1 for s in signals if s.active and s.type == "correction") == 1
