"""CLAUDE.md targets: managed section, idempotency, backups, and kill -9 during a promotion."""
from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memdown.learning import learnings, promote, reflect
from memdown.signals import store
from memdown.signals.store import Signal


def _approved_add(root, target, lrn, rule, token):
    promote.approve(root, target, lrn, rule, token)
    return promote.add_rule(root, target, lrn, rule, token=token)


def test_insert_keeps_the_users_text_and_is_idempotent(memory_root):
    memory_root.mkdir(parents=True)
    claude = memory_root.parent / "CLAUDE.md"
    original = "# Project\n\n## Build\n\n- make build\n\n## Style\n\nShort functions.\n"
    claude.write_text(original)
    first = _approved_add(memory_root, "project", "LRN-20261122-0001", "Use pnpm, not npm.", "aaaa0001")
    second = _approved_add(memory_root, "project", "LRN-20261122-0002", "Tests go in tests/unit.", "aaaa0002")
    again = _approved_add(memory_root, "project", "LRN-20261122-0001", "Use pnpm, not npm.", "aaaa0001")
    text = claude.read_text()
    assert text.startswith(original)
    assert text.endswith("- Use pnpm, not npm. <!-- memdown:LRN-20261122-0001 #aaaa0001 -->\n"
                         "- Tests go in tests/unit. <!-- memdown:LRN-20261122-0002 #aaaa0002 -->\n")
    assert first["changed"] and second["changed"] and not again["changed"] and again["backup"] is None
    assert Path(first["backup"]).read_text() == original
    # the user moves the section up and adds text after it: new rules still land inside it
    moved = text.split("## Learned rules (memdown)")[1]
    claude.write_text("# Project\n\n## Learned rules (memdown)" + moved + "\n## Notes\n\nMine.\n")
    _approved_add(memory_root, "project", "LRN-20261122-0003", "Never commit to main.", "aaaa0003")
    text = claude.read_text()
    assert text.index("LRN-20261122-0003") < text.index("## Notes") and text.endswith("## Notes\n\nMine.\n")
    removed = promote.remove_rule(memory_root, "project", "LRN-20261122-0002", "aaaa0002")
    assert removed["changed"] and "LRN-20261122-0002" not in claude.read_text()
    assert "LRN-20261122-0002" in Path(removed["backup"]).read_text()
    assert not promote.remove_rule(memory_root, "project-local", "LRN-20261122-0002", "aaaa0002")["changed"]
    assert not (memory_root.parent / ".claude" / "CLAUDE.md").exists()


def test_add_rule_refuses_without_a_local_approval(memory_root):
    from memdown.errors import NotApprovedError

    memory_root.mkdir(parents=True)
    claude = memory_root.parent / "CLAUDE.md"
    claude.write_text("# Project\n")
    with pytest.raises(NotApprovedError):
        promote.add_rule(memory_root, "project", "LRN-20261122-0001", "Use pnpm.", token="abcd0001")
    promote.approve(memory_root, "project", "LRN-20261122-0001", "Use pnpm.", "abcd0001")
    with pytest.raises(NotApprovedError):  # approved text, other target
        promote.add_rule(memory_root, "global", "LRN-20261122-0001", "Use pnpm.", token="abcd0001")
    with pytest.raises(NotApprovedError):  # approved target, other text
        promote.add_rule(memory_root, "project", "LRN-20261122-0001", "Use npm.", token="abcd0001")
    with pytest.raises(NotApprovedError):  # no token at all
        promote.add_rule(memory_root, "project", "LRN-20261122-0001", "Use pnpm.", token="")
    assert claude.read_text() == "# Project\n"
    assert promote.add_rule(memory_root, "project", "LRN-20261122-0001", "Use pnpm.", token="abcd0001")["changed"]


def test_remove_rule_takes_only_the_block_with_its_token(memory_root):
    """After a union merge two clones' rules can share an id; undo removes only its own."""
    memory_root.mkdir(parents=True)
    claude = memory_root.parent / "CLAUDE.md"
    claude.write_text("# P\n\n## Learned rules (memdown)\n\n"
                      "- Use pnpm. <!-- memdown:LRN-20261122-0001 #aaaa0001 -->\n"
                      "- Use pnpm. <!-- memdown:LRN-20261122-0001 #bbbb0002 -->\n"
                      "- Legacy. <!-- memdown:LRN-20261122-0001 -->\n")
    assert promote.remove_rule(memory_root, "project", "LRN-20261122-0001", "aaaa0001")["changed"]
    text = claude.read_text()
    assert "#aaaa0001" not in text and "#bbbb0002" in text and "Legacy." in text
    assert promote.remove_rule(memory_root, "project", "LRN-20261122-0001")["changed"]  # legacy marker only
    text = claude.read_text()
    assert "Legacy." not in text and "#bbbb0002" in text


def test_targets_resolve(memory_root, isolate_paths):
    targets = promote.target_paths(memory_root)
    assert targets["project"] == isolate_paths / "CLAUDE.md"
    assert targets["project-local"] == isolate_paths / ".claude" / "CLAUDE.md"
    assert targets["global"] == Path(os.environ["CLAUDE_CONFIG_DIR"]) / "CLAUDE.md"


def _untokened(text: str) -> str:
    return re.sub(r" #[0-9a-f]{8} -->", " -->", text)


PROMOTE = """
import sys
from pathlib import Path
from memdown.learning.reflect import promote
promote(Path(sys.argv[1]), sys.argv[2], "project")
"""


@pytest.mark.integration
def test_kill_9_during_promotion_leaves_old_or_new(memory_root, tmp_path):
    big = "Use the internal mirror for every dependency. " + " ".join(f"pkg{n}=mirror.local/{n}" for n in range(30_000))
    memory_root.mkdir(parents=True)
    sig = store.append(memory_root, [Signal("convention", big, 3, session="s1")])[0]
    template = tmp_path / "template"
    shutil.copytree(memory_root, template)
    claude = memory_root.parent / "CLAUDE.md"
    old = "# Project\n\n" + "Existing guidance line.\n" * 2000
    script = tmp_path / "promote.py"
    script.write_text(PROMOTE)

    def reset() -> None:
        shutil.rmtree(memory_root)
        shutil.copytree(template, memory_root)
        claude.write_text(old)

    reset()
    started, wall = time.monotonic(), time.time()
    subprocess.run([sys.executable, str(script), str(memory_root), sig.id], check=True, timeout=120)
    duration = time.monotonic() - started
    wrote_at = min(max(claude.stat().st_mtime - wall, 0.05), duration)  # when the new CLAUDE.md landed
    new = _untokened(claude.read_text())  # each promotion's rule carries a fresh random token
    assert new.startswith(old) and len(new) > len(old) + 500_000 and new.endswith("-->\n")
    rng = random.Random(7)
    outcomes = {"old": 0, "new": 0}
    for _ in range(10):
        reset()
        proc = subprocess.Popen([sys.executable, str(script), str(memory_root), sig.id])
        time.sleep(rng.uniform(wrote_at * 0.8, duration * 1.3))  # around the write
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        content = _untokened(claude.read_text())
        assert content in (old, new)  # never half-written
        outcomes["old" if content == old else "new"] += 1
        # the next run finishes a promotion that was recorded but not written
        reflect.analyze(memory_root)
        after = _untokened(claude.read_text())
        assert after in (old, new)
        recorded = [item for item in learnings.load(memory_root) if item.status in ("pending", "promoted")]
        assert (after == new) == bool(recorded)
    print("kill outcomes", outcomes, round(duration, 3), round(wrote_at, 3))
    assert outcomes["old"] + outcomes["new"] == 10
