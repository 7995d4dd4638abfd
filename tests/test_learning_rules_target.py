"""The `.claude/rules/<topic>.md` promotion target: paths frontmatter, backup, atomic, undo."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import frontmatter

from memdown.config import load_config
from memdown.learning import learnings, promote, review
from memdown.learning.rules_target import file_globs
from memdown.signals import store
from memdown.signals.store import Signal

NOW = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.timezone.utc)


def add(root: Path, text: str, kind: str = "correction", session: str = "s1") -> Signal:
    sig = Signal(kind, text, 2, session=session, turn=f"{session}-{len(text)}", pattern=f"en.{kind}.x",
                 captured=store.iso(NOW))
    return store.append(root, [sig], now=NOW)[0]


def test_globs_only_for_files_that_exist(tmp_path):
    (tmp_path / "services" / "billing").mkdir(parents=True)
    (tmp_path / "services" / "billing" / "webhooks.py").write_text("")
    (tmp_path / "vite.config.js").write_text("")
    assert file_globs(tmp_path, "In services/billing/webhooks.py retry through the outbox.") == \
        ["services/billing/webhooks.py"]
    assert file_globs(tmp_path, "keep services/billing/ free of Django imports") == ["services/billing/**"]
    assert file_globs(tmp_path, "vite.config.js reads the mode from --mode") == ["vite.config.js"]
    assert file_globs(tmp_path, "use role.name, not roleName; see docs/missing.md") == []


def test_promote_to_rules_with_paths_backup_and_undo(memory_root):
    project = memory_root.parent
    (project / "services" / "billing").mkdir(parents=True)
    (project / "services" / "billing" / "webhooks.py").write_text("")
    scoped = add(memory_root, "always retry stripe events in services/billing/webhooks.py through the outbox",
                 "convention")
    general = add(memory_root, "no, use pnpm not npm", session="s2")
    first = review.promote(memory_root, scoped.id, "rules", now=NOW, config=load_config(memory_root))
    rules = project / ".claude" / "rules" / "services-billing.md"
    assert Path(first["path"]) == rules and first["backup"] is None  # a new file: nothing to back up
    post = frontmatter.loads(rules.read_text())
    assert post["paths"] == ["services/billing/webhooks.py"]
    assert f"<!-- memdown:{first['learning']} #" in post.content and "outbox" in post.content

    second = review.promote(memory_root, general.id, "rules", now=NOW, config=load_config(memory_root))
    other = project / ".claude" / "rules" / "commands.md"  # named after the learning's category
    assert Path(second["path"]) == other and "paths" not in frontmatter.loads(other.read_text()).metadata
    assert "Use pnpm not npm." in other.read_text()
    assert learnings.get(memory_root, second["learning"]).status == "promoted"

    # a hand-edited file keeps its edits; the next change backs it up first
    rules.write_text(rules.read_text() + "\n- Webhook handlers must be idempotent.\n")
    before = rules.read_text()
    undone = review.undo(memory_root, first["learning"], now=NOW)
    assert undone["action"] == "revert"
    after = rules.read_text()
    assert f"memdown:{first['learning']}" not in after and "must be idempotent" in after
    assert "services/billing/webhooks.py" in after  # the scope stays with the file
    backups = sorted((memory_root / "backups").glob("*-rules-services-billing.md"))
    assert backups and backups[-1].read_text() == before
    assert ("rules", "Webhook handlers must be idempotent.") in promote.rules_in(memory_root)
