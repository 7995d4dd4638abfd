"""CLAUDE.md targets: managed section, idempotency, backups, and kill -9 during a promotion."""
from __future__ import annotations

import os
import re
import shutil
import signal
from pathlib import Path

import pytest

from faults import count_calls, files_holding, kill_points, run_killed, run_size_limited
from memdown.config import load_config
from memdown.learning import learnings, promote, review
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
    """CLAUDE.md without the per-promotion random token in rule markers (if any)."""
    return re.sub(r" #[0-9a-f]{8} -->", " -->", text)


SETUP = "from pathlib import Path\nfrom memdown.config import load_config\nfrom memdown.learning import review\n"
PROMOTE = "review.promote(Path(ARGS['root']), ARGS['sig'], 'project', config=load_config(Path(ARGS['root'])))\n"


def _promotion_case(memory_root: Path, tmp_path: Path, rule: str, old: str):
    """A signal proposing ``rule`` and a CLAUDE.md holding ``old``; ``reset()`` restores both."""
    memory_root.mkdir(parents=True)
    sig = store.append(memory_root, [Signal("convention", rule, 3, session="s1")])[0]
    template = tmp_path / "template"
    shutil.copytree(memory_root, template)
    claude = memory_root.parent / "CLAUDE.md"

    def reset() -> None:
        shutil.rmtree(memory_root)
        shutil.copytree(template, memory_root)
        claude.write_text(old)

    reset()
    return claude, old, {"root": str(memory_root), "sig": sig.id}, reset


@pytest.mark.integration
def test_kill_at_every_step_of_a_promotion_leaves_old_or_new_with_a_backup(memory_root, tmp_path):
    """os._exit just before and just after every rename of a promotion (backup,
    learnings, CLAUDE.md): CLAUDE.md is exactly old or new, a changed file has a backup of
    the old one, and the next run finishes a promotion that was recorded but not written."""
    claude, old, args, reset = _promotion_case(memory_root, tmp_path, "Use the internal mirror for every dependency.",
                                               "# Project\n\n" + "Existing guidance line.\n" * 200)
    counts = count_calls(SETUP, PROMOTE, args)
    new = _untokened(claude.read_text())
    assert new.startswith(old) and "Use the internal mirror for every dependency." in new[len(old):]
    outcomes = []
    # Each state a crash can leave is "before rename k" or "after rename k" of some file
    # (kills at fsync and chmod fall between the same two renames).
    for func, nth, when in kill_points(counts, ("replace", "rename")):
        reset()
        run_killed(SETUP, PROMOTE, args, func, nth, when)
        content = _untokened(claude.read_text())
        assert content in (old, new), (func, nth, when)
        if content == new:
            assert files_holding(memory_root, old.encode()), ("no backup of the old CLAUDE.md", func, nth, when)
        outcomes.append(content == new)
        review.analyze(memory_root, config=load_config(memory_root))  # the next run finishes a promotion that was recorded but not written
        after = _untokened(claude.read_text())
        assert after in (old, new)
        recorded = [item for item in learnings.load(memory_root) if item.status in ("pending", "promoted")]
        assert (after == new) == bool(recorded), (func, nth, when)
    assert set(outcomes) == {False, True}, outcomes  # kills landed before and after CLAUDE.md changed


def test_promotion_killed_in_the_middle_of_any_write_leaves_old_or_new(memory_root, tmp_path):
    """SIGXFSZ at a file size limit kills the writer mid-write, whatever file it is writing.
    CLAUDE.md is by far the largest file a promotion writes, so a limit between its old and
    new sizes kills the promotion in the middle of writing it; lower limits kill it earlier
    (signals, learnings, the backup). CLAUDE.md must stay exactly old every time."""
    rule = "Use the internal mirror for every dependency: " + ", ".join(f"pkg{n}" for n in range(2000))
    claude, old, args, reset = _promotion_case(memory_root, tmp_path, rule,
                                               "# Project\n\n" + "Existing guidance line.\n" * 4000)
    count_calls(SETUP, PROMOTE, args)
    new = claude.read_text()
    size_old, size_new = len(old.encode()), len(new.encode())
    assert new.startswith(old) and size_new > size_old + 10_000
    for limit in (1, size_old // 2, size_old + 1, (size_old + size_new) // 2, size_new - 1):
        reset()
        code = run_size_limited(SETUP, PROMOTE, args, limit)
        assert code == -signal.SIGXFSZ, (limit, code)
        assert claude.read_text() == old, limit


@pytest.mark.parametrize("race", [False, True])
@pytest.mark.parametrize("existing", [True, False])
def test_a_linked_claude_folder_is_never_written_through(memory_root, tmp_path, monkeypatch, race, existing):
    """`.claude/` planted as a link to a folder outside the project: the promotion is refused and
    nothing outside is read, written or created. ``race``: the link appears after the up-front folder
    check (modelled by skipping it), so only the compare-and-swap's own walk from the project stops it."""
    from memdown import fsutil
    from memdown.fsutil import RefusedFileError

    memory_root.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    if existing:
        (outside / "CLAUDE.md").write_text("# someone else's file\n")
    before = {p.name: p.read_bytes() for p in outside.iterdir()}
    (memory_root.parent / ".claude").symlink_to(outside, target_is_directory=True)
    if race:
        monkeypatch.setattr(fsutil, "check_folders", lambda path, root=None: None)
    with pytest.raises(RefusedFileError):
        _approved_add(memory_root, "project-local", "LRN-20261127-0001", "Use pnpm, not npm.", "abcd7001")
    assert {p.name: p.read_bytes() for p in outside.iterdir()} == before
