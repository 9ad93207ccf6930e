"""Kernel messages read in polls of at most one second (the grader's sandbox and the book).

pyzmq's asyncio poll can miss the wake-up of a message that has already arrived. The poll
then reports it only when its timeout ends, and nbclient waits for a cell's reply with a
single poll as long as the cell's timeout. Measured here on a loaded machine, with the
nine exercise notebooks run again and again: twice in a few minutes, a ``widgets.interact``
cell took 60.0 s, the whole cell timeout, and then passed; no other cell was slow. (While
it waits, nbclient answers the cell's Output widget on the same channel: a likely trigger,
not proven.) In the book build, where the timeout is 600 s, exercise notebooks of 2 s took
601 s. Cutting every wait into polls of at most ``SLICE`` seconds bounds such a miss to
one slice: each poll that times out ends with pyzmq's own non-blocking check, which finds
the message.

:class:`SlicedNotebookClient` is nbclient's client whose kernel manager makes such
clients; nothing of jupyter_client or nbclient is changed for anyone else. It is used by
the grader's sandbox (:mod:`lib.grading.sandbox`), the book's pre-executor
(``tools/execute_book.py``) and the tests' kernels. The module imports nothing but
jupyter_client and nbclient, so a test harness can load it by path into any venv
(jupyter_client 7 and 8).
"""
import time
from queue import Empty

from jupyter_client import channels
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from traitlets import Type, default

SLICE = 1.0  # seconds
CHANNEL = getattr(channels, "AsyncZMQSocketChannel", channels.ZMQSocketChannel)  # 8.x, 7.x


async def get_msg_in_slices(self, timeout=None):
    """``get_msg`` of a kernel client's channel, polling at most ``SLICE`` s at a time."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        left = SLICE if deadline is None else max(0.0, deadline - time.monotonic())
        if await self.socket.poll(int(1000 * min(SLICE, left))):
            return await self._recv()
        if deadline is not None and time.monotonic() >= deadline:
            raise Empty


class SlicedChannel(CHANNEL):
    """A kernel client's channel whose ``get_msg`` polls in slices."""

    get_msg = get_msg_in_slices


class SlicedKernelClient(AsyncKernelClient):
    shell_channel_class = Type(SlicedChannel)
    iopub_channel_class = Type(SlicedChannel)
    stdin_channel_class = Type(SlicedChannel)
    control_channel_class = Type(SlicedChannel)


class SlicedKernelManager(AsyncKernelManager):
    @default("client_factory")
    def _sliced_client(self):
        return SlicedKernelClient


class SlicedNotebookClient(NotebookClient):
    """nbclient's ``NotebookClient``, whose kernels are read in slices."""

    @default("kernel_manager_class")
    def _sliced_manager(self):
        return SlicedKernelManager
