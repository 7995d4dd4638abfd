"""The placement corpus (issue #27) through everything memdown writes and prints.

    python bench/secrets/placements/run_writers.py --split test [--seed N] [--errors]

One scratch project and MEMDOWN_HOME. The cases are written as two Claude Code transcripts
(alternating): the first captured by the Stop hook (synchronous), the second brought in by
``memdown import``; every case also goes to the PostToolUseFailure hook as a failing command's
error text. Then ``reflect mine``, ``reflect promote`` (the first candidates, into CLAUDE.md),
``memdown index``, ``memdown search`` (a sample of the cases' words), ``expand`` of the hits and
``transcript --turn … -C 50`` over every turn, all with ``CLAUDECODE=1`` (as the recall agent runs
them). A case *reaches* a place when any 10-character piece of its secret survives there:

- committed/model-facing: files under ``.memdown/`` (daily log, signals, learnings …), CLAUDE.md,
  ``state/``, ledger and mining state under MEMDOWN_HOME, LanceDB rows, and the output of
  search/expand/transcript;
- archive: the gzipped transcript archive under MEMDOWN_HOME.
Done means (#27) on the test half: <= 3 % committed/model-facing, <= 5 % archive.
"""
from __future__ import annotations

import argparse
import collections
import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import cases as placements  # noqa: E402

WINDOW = 10


def memdown(env: dict, *args: str, stdin: str | None = None, timeout: float = 1800) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memdown", *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=timeout)


def scratch_env(tmp: Path) -> tuple[dict, Path]:
    home, project = tmp / "home", tmp / "project"
    home.mkdir()
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDOWN_") and k not in ("CLAUDECODE", "AI_AGENT")}
    env.update(HOME=str(home), MEMDOWN_HOME=str(home / ".local/share/memdown"), XDG_DATA_HOME=str(home / ".local/share"),
               MEMDOWN_CONFIG=str(home / ".config/memdown/config.toml"), XDG_CONFIG_HOME=str(home / ".config"),
               CLAUDE_CONFIG_DIR=str(home / ".claude"), MEMDOWN_DIR=str(project / ".memdown"),
               XDG_RUNTIME_DIR=tempfile.mkdtemp(prefix="mdrt-", dir="/tmp"), MEMDOWN_HOOK_SYNC="1")
    (project / "CLAUDE.md").write_text("# Project\n")
    (project / ".memdown").mkdir()
    return env, project


def _files(folder: Path) -> dict[str, str]:
    out = {}
    for path in folder.rglob("*") if folder.is_dir() else []:
        if path.is_file() and "chunks.lance" not in path.parts:
            data = path.read_bytes()
            if data[:2] == b"\x1f\x8b":
                data = gzip.decompress(data)
            text = data.decode("utf-8", errors="replace")
            out[str(path)] = text + "\n" + text.replace("\\n", "\n").replace('\\"', '"').replace("\\\\", "\\")
    return out


def _index_rows(root: Path, env: dict) -> str:
    code = ("import json,sys,lancedb,pathlib\nout=[]\n"
            "for d in pathlib.Path(sys.argv[1]).rglob('chunks.lance'):\n"
            "    t=lancedb.connect(str(d.parent)).open_table('chunks')\n"
            "    out+=[v for r in t.to_arrow().to_pylist() for v in r.values() if isinstance(v,str)]\n"
            "print('\\n'.join(out))")
    return subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, env=env).stdout


def _pieces(secret: str) -> list[str]:
    out = []
    for part in secret.split("\n"):
        k = min(WINDOW, len(part))
        if k >= 6:
            out += [part[i:i + k] for i in range(len(part) - k + 1)]
    return out


def reached(cases: list[placements.Case], texts: dict[str, str]) -> dict[str, set[str]]:
    """case id -> the places (text names) holding a piece of its secret (one pass per text)."""
    owners: dict[str, set[str]] = {}
    for case in cases:
        for piece in _pieces(case.secret):
            owners.setdefault(piece, set()).add(case.id)
    lengths = sorted({len(p) for p in owners})
    out: dict[str, set[str]] = {}
    for name, text in texts.items():
        for k in lengths:
            for i in range(len(text) - k + 1):
                for cid in owners.get(text[i:i + k], ()):
                    out.setdefault(cid, set()).add(name)
    return out


def drive(cases: list[placements.Case], env: dict, project: Path, tmp: Path) -> dict[str, str]:  # long: one pipeline
    """Run every writer and reader; returns the model-facing outputs by name."""
    projects = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / str(project).replace("/", "-")
    projects.mkdir(parents=True)
    live = projects / "sess-placements-live.jsonl"
    live.write_text(placements.transcript_lines(cases[0::2], "sess-placements-live", str(project)))
    imported = tmp / "import" / "sess-placements-imported.jsonl"
    imported.parent.mkdir()
    imported.write_text(placements.transcript_lines(cases[1::2], "sess-placements-imported", str(project)))
    payload = json.dumps({"session_id": "sess-placements-live", "transcript_path": str(live), "cwd": str(project),
                          "hook_event_name": "Stop"})
    steps = [memdown(env, "hook", "Stop", stdin=payload), memdown(env, "import", str(imported.parent), "--no-index")]
    for case in cases:
        steps.append(memdown(env, "hook", "PostToolUseFailure",
                             stdin=placements.error_payload(case, "sess-placements-live", str(project), str(live))))
    steps.append(memdown(env, "reflect", "mine", str(live), "--json"))
    steps.append(memdown(env, "reflect", "mine", str(imported), "--json"))
    review = json.loads(memdown(env, "reflect", "list", "--json").stdout or "{}")
    for cand in review.get("candidates", [])[:5]:
        steps.append(memdown(env, "reflect", "promote", cand["id"], "--to", "project", "--force", "--json"))
    steps.append(memdown(env, "index", "--json"))
    failed = [" ".join(s.args[3:5]) + ": " + s.stderr.strip()[-200:] for s in steps if s.returncode != 0]
    if failed:
        print("steps that failed:\n  " + "\n  ".join(failed[:10]), file=sys.stderr)
    agent = {**env, "CLAUDECODE": "1"}
    outputs: dict[str, str] = {}
    hits: list[str] = []
    for case in cases[::6]:
        query = " ".join(case.text.split()[:6])[:80]
        out = memdown(agent, "search", query, "--json", "--mode", "text").stdout
        outputs[f"search {case.id}"] = out
        try:
            hits += [r["id"] for r in json.loads(out).get("results", [])[:2]]
        except (ValueError, AttributeError):
            pass
    for hit in dict.fromkeys(hits):
        outputs[f"expand {hit}"] = memdown(agent, "expand", hit[:12]).stdout
    for session in ("sess-placements-live", "sess-placements-imported"):
        listing = memdown(agent, "transcript", session, "--json", "--no-fence").stdout
        outputs[f"transcript {session}"] = listing
        try:
            turns = [t.get("uuid") or t.get("turn") for t in json.loads(listing).get("turns", [])]
        except (ValueError, AttributeError):
            turns = []
        for uid in turns[50::101]:
            outputs[f"transcript {session} --turn {uid}"] = memdown(agent, "transcript", session, "--turn", uid[:12],
                                                                    "-C", "50").stdout
    return outputs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", default="dev", choices=("dev", "test", "all"))
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--errors", action="store_true")
    args = ap.parse_args(argv)
    seed, cases = placements.build(args.seed)
    cases = [c for c in cases if args.split in ("all", c.split)]
    with tempfile.TemporaryDirectory(prefix="md-placements-") as tmpdir:
        tmp = Path(tmpdir)
        env, project = scratch_env(tmp)
        outputs = drive(cases, env, project, tmp)
        home = Path(env["MEMDOWN_HOME"])
        files = {**_files(project / ".memdown"), **_files(home), "CLAUDE.md": (project / "CLAUDE.md").read_text()}
        archive = {k: v for k, v in files.items() if k.endswith(".jsonl.gz") or "/archive/" in k}
        committed = {k: v for k, v in files.items() if k not in archive}
        committed["lancedb rows"] = _index_rows(project / ".memdown", env)
        where = reached(cases, {**committed, **outputs, **{"ARCHIVE " + k: v for k, v in archive.items()}})
    n = len(cases)
    facing = {cid for cid, places in where.items() if any(not p.startswith("ARCHIVE ") for p in places)}
    archived = {cid for cid, places in where.items() if any(p.startswith("ARCHIVE ") for p in places)}
    print(f"seed {seed}, split {args.split}, {n} cases")
    print(f"  reach a committed file, state, index row or model-facing output: {len(facing)} ({len(facing) / n:.1%})")
    print(f"  reach the transcript archive: {len(archived)} ({len(archived) / n:.1%})")
    kinds: collections.Counter[str] = collections.Counter()
    for cid in facing:
        for place in where[cid]:
            if not place.startswith("ARCHIVE "):
                kinds[place.split()[0] if " " in place else Path(place).parent.name + "/" + Path(place).name.split(".")[-1]] += 1
    print("  places: " + ", ".join(f"{k} {v}" for k, v in kinds.most_common(14)))
    groups = collections.Counter(c.group for c in cases)
    print("  by group (facing / archive): " + ", ".join(
        f"{g} {sum(1 for c in cases if c.group == g and c.id in facing)}/"
        f"{sum(1 for c in cases if c.group == g and c.id in archived)} of {k}" for g, k in sorted(groups.items())))
    families = collections.Counter(c.family or "original" for c in cases)
    print("  by family (facing / archive): " + ", ".join(
        f"{f} {sum(1 for c in cases if (c.family or 'original') == f and c.id in facing)}/"
        f"{sum(1 for c in cases if (c.family or 'original') == f and c.id in archived)} of {k}"
        for f, k in families.items()))
    if args.errors:
        for case in cases:
            if case.id in where:
                print(f"  {case.id}: {sorted(p.split('/')[-1] for p in where[case.id])[:4]} {case.text[:100]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
