"""lib/grading/polls.py: kernel replies read in polls of at most a second."""
import asyncio
import subprocess
import sys
from pathlib import Path
from queue import Empty

import pytest

from lib.grading import polls

ROOT = Path(__file__).resolve().parents[1]


def test_a_reply_the_first_poll_missed_is_read_within_a_poll_slice():
    """pyzmq's asyncio poll can miss the wake-up of a message that has arrived; the poll then
    returns it only at its timeout. Polls of at most SLICE seconds make such a reply cost at
    most a slice, not the cell's whole timeout (600 s in the book: a 2-s notebook took 601 s)."""
    class Socket:  # the poll misses the wake-up: it reports the message when its timeout ends
        def __init__(self, arrived):
            self.arrived, self.calls = arrived, []

        async def poll(self, timeout_ms):
            self.calls.append(timeout_ms)
            await asyncio.sleep(timeout_ms / 1000)
            return int(self.arrived)

    class Channel:
        def __init__(self, arrived):
            self.socket = Socket(arrived)

        async def _recv(self):
            return {"msg_type": "execute_reply"}

    def get_msg(channel, timeout):
        return asyncio.run(asyncio.wait_for(polls.get_msg_in_slices(channel, timeout), 10))

    channel = Channel(arrived=True)  # (a 600-s poll would fail the 10-s wait_for above)
    assert get_msg(channel, timeout=600) == {"msg_type": "execute_reply"}
    assert channel.socket.calls == [1000 * polls.SLICE]
    channel = Channel(arrived=False)  # no message: Empty at the timeout, as before
    with pytest.raises(Empty):
        get_msg(channel, timeout=2.5)
    calls = channel.socket.calls  # slices of at most 1 s; the later ones what is left
    assert calls[0] == 1000 and len(calls) >= 2 and all(0 <= ms <= 1000 for ms in calls) and sum(calls) <= 2500


def test_the_tests_own_kernel_clients_read_in_slices():
    """tests/conftest.py installs it for every test process."""
    assert polls.CHANNEL.get_msg is polls.get_msg_in_slices


@pytest.mark.parametrize("module", ["lib.grading.sandbox", "execute_book"])
def test_the_grader_and_the_book_build_read_in_slices(module):
    """Importing the grader's sandbox runner, or tools/execute_book.py, installs the slices
    (each in a fresh interpreter: nothing else installed them)."""
    code = (f"import sys; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'tools')!r}]; import {module}; "
            "from lib.grading import polls; print(polls.CHANNEL.get_msg is polls.get_msg_in_slices)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.stdout.strip() == "True", result.stderr[-2000:]


def test_the_launch_route_harness_loads_it_by_path():
    """tests/binder_env.py's EXECUTE (run in the Colab-like and Binder-like venvs, where the
    course library is not importable) loads this file by path and installs it."""
    from binder_env import EXECUTE, POLLS

    assert POLLS == ROOT / "lib" / "grading" / "polls.py" and "read_in_slices()" in EXECUTE
