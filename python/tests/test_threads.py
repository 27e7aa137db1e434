"""The GIL is released while a case steps (Python threads run cases in parallel), and Ctrl-C
interrupts a run with KeyboardInterrupt, leaving the interpreter usable."""

from __future__ import annotations

import _thread
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import stickslip

# The refined square (n_seg = 32): a second of simulated time takes seconds of wall time, long
# enough to act on a run while it steps.
LONG_CASE = "cases/refined_mu0.11.toml"

# How long the main thread counts, s.
WINDOW_S = 0.3


def count_for(seconds: float) -> int:
    """Loop iterations of pure Python in `seconds` of wall time: progress that needs the GIL."""
    n, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        n += 1
    return n


def test_python_runs_while_a_case_steps_in_another_thread(repo):
    case = stickslip.load(repo / LONG_CASE)
    alone = count_for(WINDOW_S)
    worker = threading.Thread(target=case.run, args=(1.5,))
    worker.start()
    time.sleep(0.2)
    during = count_for(WINDOW_S)
    window_inside_run = worker.is_alive()
    worker.join()
    assert window_inside_run, "the run ended before the window: make it longer"
    # Held through the run, the GIL would stop this thread for the whole window (it is taken
    # back only for a moment every 50 ms to run signal handlers). Released, this thread runs on
    # its own core, slowed only by load on the machine; a third of its solo rate is far above
    # what a held GIL allows and far below what a released one gives.
    assert during > alone / 3, (during, alone)


def test_two_threads_run_cases_at_the_same_time(repo):
    case = stickslip.load(repo / LONG_CASE)
    spans: dict[int, tuple[float, float]] = {}

    def run(k: int) -> None:
        started = time.perf_counter()
        case.run(1.0)
        spans[k] = (started, time.perf_counter())

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # With the GIL held through a run, the second thread could not even call run() before the
    # first returned: the spans would not overlap.
    assert max(s for s, _ in spans.values()) < min(e for _, e in spans.values()), spans


@pytest.fixture
def python_handles_sigint():
    """Python's own SIGINT handler for the test, whatever the process inherited: a test run
    started with SIGINT ignored (a background job of a shell without job control) keeps it
    ignored, and then neither Ctrl-C nor `_thread.interrupt_main` reaches any code."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_ctrl_c_interrupts_a_run_and_the_interpreter_goes_on(repo, python_handles_sigint):
    case = stickslip.load(repo / LONG_CASE)
    # The whole case (8 s simulated) takes tens of seconds; Ctrl-C comes after half a second.
    timer = threading.Timer(0.5, _thread.interrupt_main)
    started = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        case.run()
    elapsed = time.perf_counter() - started
    timer.join()
    # Signal handlers run every 50 ms of stepping; one step of this case takes milliseconds.
    assert elapsed < 2.5, elapsed
    # The interpreter, the package and the same Case object all work on.
    result = stickslip.load(repo / "cases/slope_mu0.11.toml").run()
    assert result.verdict == "stopped at t = 6.41 s"
    assert case.run(0.05).trajectory["t_s"][-1] == pytest.approx(0.05)


SCRIPT = """
import signal, sys, time, stickslip
signal.signal(signal.SIGINT, signal.default_int_handler)  # whatever the parent ignored
case = stickslip.load(sys.argv[1])
print("running", flush=True)
try:
    case.run()
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
print(stickslip.load(sys.argv[2]).run().verdict, flush=True)
"""


def test_a_real_sigint_interrupts_a_run(repo):
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(repo / LONG_CASE), str(repo / "cases/slope_mu0.20.toml")],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "running"
    time.sleep(0.5)
    sent = time.perf_counter()
    os.kill(proc.pid, signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert out.splitlines() == ["interrupted", "stopped at t = 5.53 s"]
    assert proc.returncode == 0
    assert time.perf_counter() - sent < 10.0
