"""A Binder-like session: JupyterLab from a venv made of binder/ alone, in Chromium.

The test applies binder/postBuild (HOME is a temporary folder), starts JupyterLab on
127.0.0.1 in a copy of the chapters and the released student exercises, opens chapter 1
(a MyST .md file, which must open as a notebook), runs all cells, moves a slider and
checks that the figure changes, then opens the chapter 1 exercise notebook, runs it and
calls check("q1"). The server is stopped afterwards.
"""
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from binder_env import ROOT, binder_python  # noqa: E402

TOKEN = "course-test-token"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory, browser):
    python = binder_python()
    home = tmp_path_factory.mktemp("home")
    work = tmp_path_factory.mktemp("work")
    shutil.copytree(ROOT / "chapters", work / "chapters")
    released = tmp_path_factory.mktemp("released")
    subprocess.run([str(python), "-m", "lib.grading", "release", str(ROOT / "exercises"), "--out", str(released)],
                   cwd=ROOT, check=True)
    shutil.copytree(released, work / "exercises")
    env = {**os.environ, "HOME": str(home), "JUPYTER_CONFIG_DIR": str(home / ".jupyter")}
    env.pop("JUPYTER_PATH", None)
    subprocess.run(["bash", str(ROOT / "binder" / "postBuild")], env=env, check=True)
    port = free_port()
    log = open(home / "lab.log", "w")
    server = subprocess.Popen(
        [str(python), "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={work}", "--ServerApp.open_browser=False", "--allow-root",
         "--LabApp.expose_app_in_browser=True"],
        env={**env, "PATH": f"{python.parent}:{env['PATH']}"}, cwd=work,
        stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    for _ in range(240):
        try:
            urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2)
            break
        except OSError:
            if server.poll() is not None:
                pytest.fail("JupyterLab exited during start-up:\n" + (home / "lab.log").read_text()[-3000:])
            time.sleep(0.5)
    else:
        server.terminate()
        pytest.fail("JupyterLab did not start within 120 s")
    yield url, work
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()


def open_notebook(browser, url, path):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"{url}/lab/tree/{path}?token={TOKEN}&reset")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=120_000)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle'], .jp-DebuggerBugButton", timeout=120_000)
    return context, page


def run_all(page):
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.sessionContext"
                           " && window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel", timeout=120_000)
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    # wait until every code cell has a number and none is queued or running
    page.wait_for_function("""() => {
        const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')].map(p => p.textContent);
        return prompts.length > 0 && prompts.every(t => /\\[\\d+\\]/.test(t));
    }""", timeout=300_000)


SHOTS = ROOT / "_build" / "screenshots"


def test_chapter_one_runs_and_its_slider_redraws_the_figure(lab, browser):
    url, _ = lab
    context, page = open_notebook(browser, url, "chapters/01_bayesian_learning.md")
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        run_all(page)
        assert page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr'] >> text=Traceback").count() == 0
        slider = page.locator(".jp-OutputArea .widget-slider .slider-container, .jp-OutputArea .widget-hslider").first
        slider.wait_for(timeout=60_000)
        cell = page.locator(".jp-CodeCell", has=slider).first
        figure_cell = cell.locator("xpath=preceding-sibling::div[contains(@class,'jp-CodeCell')][1]")
        image = figure_cell.locator(".jp-OutputArea img").first
        before = image.get_attribute("src")
        handle = cell.locator(".noUi-handle, .ui-slider-handle").first
        readout = cell.locator(".widget-readout").first
        value = readout.inner_text()
        handle.focus()
        handle.press("ArrowRight")
        if readout.inner_text() == value:  # the slider was at its maximum
            handle.press("ArrowLeft")
            handle.press("ArrowLeft")
        assert readout.inner_text() != value
        # the kernel redraws the figure in place: JupyterLab replaces the <img> element
        for _ in range(60):
            if image.get_attribute("src") != before:
                break
            page.wait_for_timeout(500)
        assert image.get_attribute("src") != before, "moving the slider did not redraw the figure"
    finally:
        page.screenshot(path=str(SHOTS / "binder-chapter-01.png"))
        context.close()


def test_chapter_one_exercise_runs_and_check_reports(lab, browser):
    url, work = lab
    notebooks = sorted((work / "exercises").rglob("*.ipynb"))
    assert notebooks, "the release wrote no student notebook"
    path = notebooks[0].relative_to(work)
    context, page = open_notebook(browser, url, str(path))
    try:
        run_all(page)
        text = page.locator(".jp-NotebookPanel").first.inner_text()
        assert "q1:" in text and "public test" in text, "check('q1') printed its report"
        assert "Traceback" not in text
    finally:
        page.screenshot(path=str(SHOTS / "binder-exercise-01.png"))
        context.close()
