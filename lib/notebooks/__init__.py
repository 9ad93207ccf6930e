"""What every course notebook needs outside grading: the set-up cell it opens with and the
kernels that run it.

* :mod:`lib.notebooks.setup_cell`: the first cell of every student notebook (chapters and
  released exercises), written by ``tools/export_notebooks.py`` and by the grader's
  ``release`` alike; it installs the course library where it is missing (Colab, a hub).
* :mod:`lib.notebooks.polls`: nbclient's notebook client whose kernel replies are read in
  polls of at most a second, used by the book's pre-executor (``tools/execute_book.py``),
  the grader's sandbox and the tests' kernels.

Neither imports anything of :mod:`lib.grading`; the grader imports both.
"""
