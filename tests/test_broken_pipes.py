"""A BrokenPipeError that is not our stdout's reader going away is a failure to report (issue #19: an
agent's search "printed nothing": any BrokenPipeError inside a command ended it with exit 141 and
nothing on stdout or stderr, as if the reader had left)."""
from __future__ import annotations

import os
import subprocess
import sys

from conftest import REPO_ROOT

_RAISES_INSIDE = """
import sys
import memdown.services.recall.queries as queries

def broken(*args, **kwargs):
    raise BrokenPipeError(32, "Broken pipe")

queries.run_query = broken
sys.argv = ["memdown", "stats"]
from memdown.entry import main
main()
"""


def test_a_broken_pipe_inside_a_command_is_reported_not_swallowed(memory_root):
    memory_root.mkdir(parents=True)
    result = subprocess.run([sys.executable, "-c", _RAISES_INSIDE], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert result.returncode not in (0, 141), result.returncode
    assert result.stderr.startswith("Error: ") and len(result.stderr.splitlines()) == 1, result.stderr


def test_stdout_closed_tells_a_reader_that_left_from_one_that_is_there():
    from memdown.cli import failure

    read, write = os.pipe()
    try:
        assert failure.stdout_closed(write) is False
        os.close(read)
        assert failure.stdout_closed(write) is True
    finally:
        os.close(write)


def test_a_reader_that_leaves_still_ends_the_command_quietly(memory_root):
    memory_root.mkdir(parents=True)
    proc = subprocess.Popen([sys.executable, "-m", "memdown", "config", "list"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    proc.stdout.close()  # the reader goes away before anything is written
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 141 and b"Error" not in err and b"Traceback" not in err, (proc.returncode, err)
