"""What masking command values (memdown/redact/commands.py) costs on real commands.

    python bench/bench_redact_commands.py [--shared ../shared] [--sample 40] [--seed 7]

Every command of ../shared (Claude Code transcripts' Bash calls and the other agents' logs, read in
place): the share whose recorded text changes, the command tokens (whitespace pieces) masked, the time,
and a random sample of changed commands (before -> after) to label secret / harmless / damaging.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE / "guards")]
from real_commands import all_commands  # noqa: E402

from memdown.redact.commands import MARK, redact_command  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=HERE.parents[1] / "shared")
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if not args.shared.is_dir():
        args.shared = Path("/work/shared")
    commands = all_commands(args.shared)
    changed: list[tuple[str, str, str]] = []
    tokens = masked = 0
    started = time.perf_counter()
    for repo, command in commands:
        shown = redact_command(command)
        tokens += len(command.split())
        if shown != command:
            masked += shown.count(MARK)
            changed.append((repo, command, shown))
    took = time.perf_counter() - started
    repos = {r for r, _, _ in changed}
    print(f"commands: {len(commands)} from {args.shared}; recorded text changed: {len(changed)} "
          f"({100 * len(changed) / max(1, len(commands)):.2f} %) in {len(repos)} repositories; "
          f"tokens masked: {masked} of {tokens} ({100 * masked / max(1, tokens):.3f} %); "
          f"{1000 * took / max(1, len(commands)):.3f} ms per command")
    rng = random.Random(args.seed)
    for repo, before, after in rng.sample(changed, min(args.sample, len(changed))):
        print(f"--- {repo}\n  before: {before[:300]!r}\n  after:  {after[:300]!r}")


if __name__ == "__main__":
    main()
