"""The test suite's own limits on child processes count CPU seconds, which a busy machine does not inflate."""

import subprocess
import sys
import time

import pytest

import patience

SPIN = "import time\nt = time.process_time()\nwhile time.process_time() - t < {}: pass\nprint('done')"


def test_a_child_within_its_cpu_limit_finishes():
    p = patience.run([sys.executable, "-c", SPIN.format(0.2)], cpu=30, capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout == "done\n"


def test_a_child_past_its_cpu_limit_is_stopped_by_the_kernel():
    p = patience.run([sys.executable, "-c", SPIN.format(60)], cpu=1, capture_output=True, text=True)
    assert p.returncode < 0 and p.stdout == ""         # SIGXCPU at 1 s of CPU: it never prints


def test_a_sleeping_child_uses_no_cpu_budget():
    # 1.5 s of wall clock, nearly no CPU: a 0.5 CPU-second budget is enough
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1.5)"])
    try:
        assert patience.finish(proc, cpu=0.5 + 0.5) == 0      # plus the interpreter's start-up
    finally:
        proc.kill()
        proc.wait()


def test_wait_for_fails_once_the_process_tree_has_used_its_cpu():
    proc = subprocess.Popen([sys.executable, "-c", SPIN.format(30)])
    try:
        with pytest.raises(AssertionError, match="not within 0.5 CPU seconds"):
            patience.wait_for(lambda: False, "never", cpu=0.5, proc=proc)
        assert proc.poll() is None                   # stopped waiting; the child ran on
        assert patience.tree_cpu(proc.pid) >= 0.5
    finally:
        proc.kill()
        proc.wait()


def test_wait_for_by_wall_clock_and_its_arguments():
    t = time.monotonic()
    with pytest.raises(AssertionError, match="not within 0.3 s"):
        patience.wait_for(lambda: False, "never", wall=0.3)
    assert time.monotonic() - t >= 0.3
    with pytest.raises(TypeError):
        patience.wait_for(lambda: True, "both", cpu=1, wall=1)
