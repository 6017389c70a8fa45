"""What the benchmark server's meter reads: a process's CPU finer than /proc's clock
ticks, so that a few dozen stream openings are not counted as nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from bench import serve


def test_a_process_cpu_is_read_to_within_the_moment_it_was_asked():
    sum(range(200_000))  # some CPU since the last tick
    before = time.process_time()
    _, used = serve._stat(os.getpid())
    after = time.process_time()

    # /proc/<pid>/stat rounds down to a 10 ms tick: nearly always below `before`.
    assert before <= used <= after


def test_the_cpu_of_a_tree_counts_a_child_that_worked():
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; sum(range(3_000_000)); time.sleep(30)"]
    )
    try:
        deadline = time.monotonic() + 30
        while serve.process_tree_cpu(child.pid) < 0.02 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert serve.process_tree_cpu(child.pid) >= 0.02
        assert serve._stat(child.pid)[0] == os.getpid()
    finally:
        child.kill()
        child.wait()
