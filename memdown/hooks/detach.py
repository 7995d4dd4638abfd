"""Hand slow work to a fully detached ``memdown worker`` process.

The job (the hook payload) is written to ``state/jobs/`` first, so the worker
reads it from disk and a crash leaves evidence instead of losing it. With
``MEMDOWN_HOOK_SYNC=1`` (tests, debugging) the job runs in this process.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .. import paths


def spawn_worker(root: Path, job: str, payload: dict[str, Any]) -> None:
    jobs = paths.state_dir(root) / "jobs"
    jobs.mkdir(parents=True, exist_ok=True)
    job_file = jobs / f"{time.time_ns()}-{os.getpid()}-{job}.json"
    tmp = job_file.with_suffix(".tmp")
    tmp.write_text(json.dumps({"job": job, "payload": payload}))
    os.replace(tmp, job_file)
    if os.environ.get("MEMDOWN_HOOK_SYNC") == "1":
        from ..services.worker import run_job_file

        run_job_file(root, job_file)
        return
    logs = paths.logs_dir(root)
    logs.mkdir(parents=True, exist_ok=True)
    with open(logs / "worker.log", "ab") as log:
        subprocess.Popen(
            [sys.executable, "-m", "memdown", "worker", "--dir", str(root), str(job_file)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # survives the hook and Claude Code's process group
            close_fds=True,
            env={**os.environ, "LANCEDB_LOG": "error"},
        )
