"""lib/notebooks/polls.py: kernel replies read in polls of at most a second."""
import asyncio
from pathlib import Path
from queue import Empty

import nbformat
import pytest
from jupyter_client.asynchronous import AsyncKernelClient

from lib.notebooks import polls

ROOT = Path(__file__).resolve().parents[2]


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


def test_the_sliced_client_reads_every_channel_in_slices_and_changes_no_other():
    """SlicedNotebookClient -> SlicedKernelManager -> SlicedKernelClient, whose message
    channels are SlicedChannels; jupyter_client's own classes are left as they were."""
    assert polls.SlicedNotebookClient(nbformat.v4.new_notebook()).kernel_manager_class is polls.SlicedKernelManager
    assert polls.SlicedKernelManager().client_factory is polls.SlicedKernelClient
    traits = polls.SlicedKernelClient.class_traits()
    for name in ["shell", "iopub", "stdin", "control"]:
        assert traits[f"{name}_channel_class"].default_value is polls.SlicedChannel, name
    assert polls.SlicedChannel.get_msg is polls.get_msg_in_slices
    assert issubclass(polls.SlicedChannel, polls.CHANNEL)
    assert polls.CHANNEL.get_msg is not polls.get_msg_in_slices  # nothing patched
    assert AsyncKernelClient.class_traits()["shell_channel_class"].default_value is not polls.SlicedChannel


@pytest.fixture
def counted(monkeypatch):
    """The channels whose replies were read in slices (SlicedChannel.get_msg counted)."""
    seen = []

    def get_msg(self, timeout=None):
        seen.append(type(self))
        return polls.get_msg_in_slices(self, timeout)

    monkeypatch.setattr(polls.SlicedChannel, "get_msg", get_msg)
    return seen


@pytest.mark.slow
def test_the_graders_kernel_is_read_in_slices(counted, tmp_path, monkeypatch):
    """The sandbox's kernel (lib/grading/sandbox.py, here without the box) reads its replies in slices."""
    from lib.grading import sandbox

    monkeypatch.chdir(tmp_path)
    kernel = sandbox.Kernel(20, memory_mb=1024)
    try:
        status, outputs = kernel.run("print(6 * 7)")
    finally:
        kernel.stop()
    assert status == "ok" and outputs[0]["text"] == "42\n"
    assert counted and set(counted) == {polls.SlicedChannel}


@pytest.mark.slow
def test_the_book_pre_executors_kernels_are_read_in_slices(counted, tmp_path, monkeypatch):
    """tools/execute_book.py runs each notebook with the sliced client."""
    monkeypatch.syspath_prepend(str(ROOT / "tools"))
    import execute_book

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")],
                                  metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                           "language": "python"}})
    asyncio.run(execute_book.execute(tmp_path / "page.ipynb", nb, 20, False, str(tmp_path)))
    assert nb.cells[0].outputs[0]["text"] == "42\n"
    assert counted and set(counted) == {polls.SlicedChannel}


def test_no_kernel_client_of_the_course_is_unsliced():
    """Every nbclient client the course makes is the sliced one."""
    files = [*ROOT.glob("lib/**/*.py"), *ROOT.glob("tools/*.py"), *ROOT.glob("tests/**/*.py"),
             *ROOT.glob("benchmarks/*.py")]
    plain = [str(f.relative_to(ROOT)) for f in files
             if "NotebookClient(" in f.read_text().replace("SlicedNotebookClient(", "") and f.name != "test_polls.py"]
    assert not plain, plain
