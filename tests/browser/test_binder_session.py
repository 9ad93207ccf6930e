"""A Binder-like session: JupyterLab from a venv made of binder/ alone, in Chromium.

JupyterLab (with jupyterlab-myst, as binder/requirements.txt installs it) serves a copy of
the `notebooks` branch (tools/export_notebooks.py --launch: chapters and released
exercises as .ipynb). The test opens a chapter and an exercise, as a reader would (what
every chapter's markdown keeps for JupyterLab is checked without a browser:
tests/launch/test_launch.py::test_chapter_markdown_keeps_only_what_jupyterlab_myst_resolves):

* no MyST role, label or directive is shown raw, and no maths fails to render; citations
  read as author and year;
* the in-chapter solutions start collapsed (their text is not on the screen, yet in the
  notebook);
* chapter 1's interactive figures run (the cells they need, ``widget_cells``, in a copy of
  the chapter with only those: the book build ran every cell with Binder's versions); a
  drag of 10 steps on a slider ends on the figure of the last position (waited for, the
  deadline only bounds a hang), and no queued redraw replaces it later;
* the exercise runs and ``check("q1")`` reports.

Screenshots go to _build/screenshots/. The server is stopped afterwards.
"""
import json

import pytest
from conftest import SHOTS
from lab_session import (
    DRAWN_FOR,
    POLL_MS,
    RAW_MYST,
    check_reader_view,
    figure_notebook,
    run_all,
    run_cells,
    visible_cells,
    wait_settled,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # Chromium (make browser), not make unit


def test_chapter_one_reads_its_figures_run_and_a_slider_drag_ends_on_the_last_figure(lab, lab_page):
    work = lab[1]
    page = lab_page.open("chapters/01_bayesian_learning.ipynb")
    try:
        cells = check_reader_view(page, "01_bayesian_learning")
        shown = " ".join(" ".join(c["text"] for c in cells).split())
        assert "Casscells et al. 1978" in shown, "citations read as author and year"
    finally:
        page.screenshot(path=str(SHOTS / "binder-chapter-01.png"))
    # the cells its interactive figures need (the book build ran every cell, with Binder's
    # versions: tests/launch/test_launch.py), in a copy of the chapter with only those cells
    path, cells = figure_notebook(work, "01_bayesian_learning")
    page = lab_page.open(path)
    try:
        run_cells(page, list(range(cells)))
        slider = page.locator(".jp-OutputArea .widget-slider", has=page.locator(".widget-label", has_text="candies")).first
        slider.scroll_into_view_if_needed(timeout=60_000)
        cell = page.locator(".jp-CodeCell", has=slider).first
        figure_cell = cell.locator("xpath=preceding-sibling::div[contains(@class,'jp-CodeCell')][1]")
        image = figure_cell.locator(".jp-OutputArea img").first
        handle = slider.locator(".noUi-handle, .ui-slider-handle").first
        readout = slider.locator(".widget-readout").first
        before, start = wait_settled(page, image), int(readout.inner_text())
        # a mouse drag of 10 steps to the right, one value per step, as fast as a hand moves
        track = slider.locator(".noUi-target, .ui-slider").first.bounding_box()
        box = handle.bounding_box()
        step = track["width"] / 100  # the "candies" slider runs from 0 to 100
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        for k in range(1, 11):
            page.mouse.move(x + k * step, y, steps=2)
            page.wait_for_timeout(40)
        page.mouse.up()
        last = int(readout.inner_text())
        assert last - start >= 5, f"the drag moved the slider from {start} to {last} only"
        # the figure comes to the last position's image (lib.plots.interactive marks each image with
        # the values it was drawn for), however long the kernel takes (the deadline only
        # bounds a hang); then no queued redraw replaces it
        page.wait_for_function(DRAWN_FOR, arg=[figure_cell.element_handle(), last], timeout=120_000, polling=POLL_MS)
        final = wait_settled(page, image)
        assert final != before, "the drag did not redraw the figure"
        assert json.loads(image.get_attribute("data-values"))["n_candies"] == last, \
            "a queued redraw replaced the last position's figure"
        handle.focus()  # the settled figure is the one drawn for the last value
        handle.press("ArrowLeft")
        wait_settled(page, image)
        handle.press("ArrowRight")
        assert int(readout.inner_text()) == last and wait_settled(page, image) == final
    finally:
        page.screenshot(path=str(SHOTS / "binder-chapter-01-figures.png"))


def test_chapter_one_exercise_runs_and_check_reports(lab, lab_page):
    work = lab[1]
    path = "_generated/exercises/01_bayesian_learning/01_bayesian_learning.ipynb"
    assert (work / path).is_file()
    page = lab_page.open(path)
    try:
        shown = "\n".join(c["text"] for c in visible_cells(page) if c["type"] == "markdown")
        assert not RAW_MYST.search(shown), RAW_MYST.search(shown)
        run_all(page)
        text = "\n".join(c["text"] for c in visible_cells(page))
        assert "q1:" in text and "public test" in text, "check('q1') printed its report"
        assert "Traceback" not in text
    finally:
        page.screenshot(path=str(SHOTS / "binder-exercise-01.png"))
