"""Hook latency as Gemini CLI itself measures it, memdown vs a no-op floor.

    python bench/bench_gemini_hooks.py [--sessions 5] [--gemini PATH]

Runs repeated real headless `gemini -p` sessions (the pinned CLI, tests/e2e/gemini_world.py) against the
local fake Gemini API (tests/e2e/fake_gemini.py) and reads the client's own per-event hook times from
its debug log (GEMINI_DEBUG_LOG_FILE: "Hook execution for X: 1 hooks executed successfully, total
duration: NNms"). Each session: SessionStart, one prompt (BeforeAgent), two shell calls (BeforeTool:
memdown's guard hook with one approved guard in MEMDOWN_HOME, "Never run `git push --force`."; `ls -la`
passes it, `git push --force` is stopped), AfterAgent and SessionEnd, on a month of daily logs.
Sessions alternate between

  memdown  `memdown install gemini` of this checkout's venv (editable install: what a developer runs;
           a plugin user's non-editable venv starts a little faster);
  floor    the same events hooked to a shell one-liner that reads stdin and prints {}.

Detached capture workers are waited for between sessions so they do not load the next one.
Prints the medians per event and side, and the load average before and after.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
from bench_client_hooks import GUARD_RULE, memdown_home, month_of_memory, wait_for_jobs  # noqa: E402
from tests.e2e.fake_gemini import FakeGeminiAPI, Reply, Request  # noqa: E402
from tests.e2e.gemini_world import GeminiWorld, find_gemini  # noqa: E402

from memdown.services.clients.gemini_setup import EVENTS  # noqa: E402

_LINE = re.compile(r"Hook execution for (\w+): (\d+) succeeded, (\d+) failed.*?total duration: (\d+)ms"
                   r"|Hook execution for (\w+): \d+ hooks executed successfully, total duration: (\d+)ms")
FLOOR = "cat >/dev/null; echo '{}'"


def responder() -> object:
    def answer(req: Request) -> Reply:
        done = len(req.tool_outputs())
        if done == 0:
            return Reply.shell("ls -la")
        if done == 1:
            return Reply.shell("git push --force")
        return Reply.say("Done: listed the folder; the force push was stopped by a guard.")

    return answer


def floor_settings(world: GeminiWorld) -> None:
    settings = json.loads(world.settings_file.read_text())
    settings["hooks"] = {event: [{**({"matcher": matcher} if matcher else {}),
                                  "hooks": [{"type": "command", "command": FLOOR, "timeout": timeout}]}]
                         for event, (matcher, timeout) in EVENTS.items()}
    world.settings_file.write_text(json.dumps(settings, indent=2))


def run_session(cli: str, side: str, tmp: Path) -> dict[str, float]:
    with FakeGeminiAPI(responder()) as api:
        world = GeminiWorld(cli, tmp, api)
        month_of_memory(world.project)
        if side == "memdown":
            world.install()
        else:
            floor_settings(world)
        log = tmp / "gemini-debug.log"
        env = world.env(GEMINI_DEBUG_LOG_FILE=str(log), MEMDOWN_HOME=str(memdown_home(world.home)))
        cmd = [str(world.bin / "gemini"), "-p", "List the folder, then force-push.", "-m", "gemini-2.5-flash",
               "--yolo", "-o", "json"]
        proc = subprocess.run(cmd, cwd=world.project, env=env, capture_output=True, text=True, timeout=300,
                              stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, proc.stderr[-1500:]
        wait_for_jobs(world.project)
    times: dict[str, list[float]] = {}
    for match in _LINE.finditer(log.read_text(errors="replace")):
        event = match[1] or match[5]
        times.setdefault(event, []).append(float(match[4] or match[6]))
    tools = times.pop("BeforeTool", [])
    named = {f"BeforeTool {what}": ms for what, ms in zip(("pass", "stop"), tools)}
    return {event: values[0] for event, values in times.items()} | named


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--gemini", default="")
    args = parser.parse_args()
    if args.gemini:
        os.environ["MEMDOWN_E2E_GEMINI"] = args.gemini
    cli, why = find_gemini()
    if cli is None:
        sys.exit(why)
    print(f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    results: dict[str, dict[str, list[float]]] = {"memdown": {}, "floor": {}}
    with tempfile.TemporaryDirectory(prefix="bench-gemini-") as folder:
        for n in range(args.sessions):
            for side in ("memdown", "floor"):
                for event, ms in run_session(cli, side, Path(folder) / f"{side}-{n}").items():
                    results[side].setdefault(event, []).append(ms)
    print(f"Gemini CLI-measured hook time, median of {args.sessions} sessions (ms); guard: {GUARD_RULE}")
    events = sorted(set(results["memdown"]) | set(results["floor"]))
    print(f"{'event':<20}{'memdown':>10}{'floor':>10}")
    for event in events:
        cells = [f"{statistics.median(results[s][event]):>10.0f}" if results[s].get(event) else f"{'-':>10}"
                 for s in ("memdown", "floor")]
        print(f"{event:<20}{''.join(cells)}")
    print(f"load after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")


if __name__ == "__main__":
    main()
