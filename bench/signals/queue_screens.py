"""The first screen of `memdown reflect list` for each test project of the third collection (issue 30 item 3).

    python bench/signals/queue_screens.py                 # print each project's first screen
    python bench/signals/queue_screens.py --json > …      # for labelling (approve / no), outside the repo

Each test repository of ``split_v3.json`` with at least ``--min-prompts`` (20) prompts is imported as a new
user would: a fresh git project and MEMDOWN_HOME in a temporary folder, ``memdown init``, ``memdown import
<its transcripts> --no-index``, then ``memdown reflect list --json``. The first screen is the first
``--screen`` (10) candidates. Approvals go to ``queue_labels_v3.jsonl`` (phase, repo, id, type, rule text hash, approve),
scored by ``--score``. Text stays in ../shared; nothing is copied into the repository.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from prompt_corpus import SHARED, iter_prompts  # noqa: E402

SPLIT_FILE = HERE / "split_v3.json"
LABELS_FILE = HERE / "queue_labels_v3.jsonl"
MEMDOWN = Path(sys.executable).with_name("memdown")


def test_projects(shared: Path, min_prompts: int, half: str = "test") -> list[str]:
    if half == "v2":   # the whole second collection: development data since session 7 (no author in the v3 test half)
        split = json.loads((HERE / "split_v2.json").read_text(encoding="utf-8"))
        test = set(split["dev"]) | set(split["test"])
    else:
        test = set(json.loads(SPLIT_FILE.read_text(encoding="utf-8"))[half])
    counts: dict[str, int] = {}
    for prompt, _turn, _prev in iter_prompts(shared):
        if prompt.repo in test:
            counts[prompt.repo] = counts.get(prompt.repo, 0) + 1
    return sorted(repo for repo, n in counts.items() if n >= min_prompts)


HELD: dict[str, dict[str, int]] = {}  # per project: why signals were held as evidence (reflect list's held_reasons)
HELD_ROWS: dict[str, list[dict]] = {}  # per project: the held groups themselves (reflect list --all), for --held


def first_screen(shared: Path, repo: str, screen: int) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="queue-", ignore_cleanup_errors=True) as tmp:
        project, home = Path(tmp) / "project", Path(tmp) / "home"
        project.mkdir()
        env = {**os.environ, "MEMDOWN_HOME": str(home), "HOME": str(home)}
        run = lambda *args: subprocess.run([str(MEMDOWN), *args], cwd=project, env=env,  # noqa: E731
                                           capture_output=True, text=True, check=False)
        subprocess.run(["git", "init", "-q", "."], cwd=project, check=True)
        run("init")
        run("import", str(shared / "real" / repo), "--no-index")
        listing = run("reflect", "list", "--json", "--limit", "0")
        every = run("reflect", "list", "--json", "--all", "--limit", "0")
        try:
            HELD_ROWS[repo] = [{"type": r.get("type"), "held": r.get("held"), "rule": r.get("text"),
                                "quotes": r.get("quotes", [])[:3]} for r in json.loads(every.stdout)["held_groups"]]
        except (json.JSONDecodeError, KeyError, TypeError):
            HELD_ROWS[repo] = []
        try:
            rows = json.loads(listing.stdout)
        except json.JSONDecodeError:
            return [{"error": listing.stderr.strip()[:200]}]
        HELD[repo] = rows.get("held_reasons", {}) if isinstance(rows, dict) else {}
        rows = rows.get("candidates", rows) if isinstance(rows, dict) else rows
        return [{"id": r.get("id"), "type": r.get("type"), "rule": r.get("text"), "quotes": r.get("quotes", [])[:3],
                 "sessions": r.get("sessions")} for r in rows[:screen]]


def rule_key(rule: str) -> str:
    return hashlib.sha256((rule or "").encode("utf-8")).hexdigest()[:16]


def score() -> dict:
    """Per labelling phase (before / after tuning): each project's approved share and their mean."""
    per: dict[str, dict[str, list[bool]]] = {}
    for line in LABELS_FILE.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        per.setdefault(row["phase"], {}).setdefault(row["repo"], []).append(bool(row["approve"]))
    out = {}
    for phase, projects in per.items():
        shares = {repo: round(sum(v) / len(v), 3) for repo, v in projects.items()}
        out[phase] = {"projects": shares, "candidates": sum(len(v) for v in projects.values()),
                      "approved": sum(sum(v) for v in projects.values()),
                      "mean_share": round(sum(shares.values()) / len(shares), 3)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--min-prompts", type=int, default=20)
    parser.add_argument("--screen", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--score", action="store_true")
    parser.add_argument("--half", choices=("dev", "v2", "test"), default="test",
                        help="dev, v2 (the second collection, all dev data): the projects a queue change may be tuned "
                             "on; test: once, at the end")
    parser.add_argument("--held", action="store_true", help="also print every held group with its reason")
    args = parser.parse_args()
    if args.score:
        print(json.dumps(score(), indent=1))
        return
    if not args.shared.is_dir():
        print("no shared transcripts: nothing to list")
        return
    screens = {repo: first_screen(args.shared, repo, args.screen) for repo in test_projects(args.shared, args.min_prompts, args.half)}
    if args.json:
        print(json.dumps(screens, ensure_ascii=False, indent=1))
        return
    for repo, rows in screens.items():
        print(f"== {repo}: {len(rows)} candidate(s) on the first screen")
        for row in rows:
            print(f"  {row.get('id')} {row.get('type')} [{rule_key(row.get('rule') or '')}] {row.get('rule')!r}"[:300])
        for reason, count in sorted(HELD.get(repo, {}).items(), key=lambda kv: -kv[1]):
            print(f"  held: {count} {reason}")
        for row in HELD_ROWS.get(repo, []) if args.held else []:
            print(f"    [{row['held']}] {row['type']}: {row['rule']!r}"[:300])


if __name__ == "__main__":
    main()
