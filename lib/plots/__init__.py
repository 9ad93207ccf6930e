"""Every figure and table of the course, beside (never inside) the algorithms they draw.

* :mod:`lib.plots.style`: the course style (:func:`lib.plots.style.use_course_style`)
  and :func:`lib.plots.style.new_figure`;
* :mod:`lib.plots.export`: the PNG export every figure goes through and its metadata;
* :mod:`lib.plots.interactive` and :mod:`lib.plots.live`: the interactive figures;
* :mod:`lib.plots.tables`: the Markdown tables of the chapters;
* ``lib/plots/<topic>.py``: the figures and tables of one topic (:mod:`lib.plots.bayes`,
  :mod:`lib.plots.bn`, :mod:`lib.plots.hmm`, ...).

An algorithm module never imports matplotlib (a test imports every module of ``lib``
outside this package and checks); importing this package itself imports nothing.
"""
