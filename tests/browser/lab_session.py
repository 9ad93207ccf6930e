"""A reader's JupyterLab session driven in Chromium: opening a notebook, running its cells,
reading its figures; shared by tests/browser/test_binder_session.py and
tests/browser/test_widget_latency.py (a helper module, not a test module)."""
import re
import time

import nbformat
from binder_env import widget_cells
from conftest import ROOT, TOKEN

# Waits for a kernel poll the page every POLL_MS, not on every animation frame (playwright's
# default), during which Chromium draws the page 60 times a second, without a GPU.
POLL_MS = 200
RAW_MYST = re.compile(r"\{(cite|ref|numref|eq|doc|term|glue|literalinclude|solution|exercise)[\w:-]*\}"
                      r"|^\([\w.:-]+\)=|Unknown (role|directive)|Undefined control sequence|ParseError", re.M | re.I)


class LabPage:
    """One JupyterLab page in Chromium for the session's notebooks, as a reader's tab.

    The first notebook opens from its link (``/lab/tree/<path>``, as a launch button opens
    it); each later one from the file browser's command (``docmanager:open``), after the
    one before is closed and its kernel shut down. JupyterLab starts once, not once per
    notebook (eleven times): a start costs about 7 s of CPU (Chromium and the server;
    benchmarks/results.md, round 10).
    """

    def __init__(self, browser, url):
        self.browser, self.url, self.context, self.page = browser, url, None, None

    def open(self, path):
        """The page, showing notebook ``path`` with its kernel started."""
        if self.page is None:
            self.context = self.browser.new_context(viewport={"width": 1400, "height": 1000})
            self.page = self.context.new_page()
            self.page.goto(f"{self.url}/lab/tree/{path}?token={TOKEN}&reset")
        else:
            self.page.evaluate("""async path => {
                const app = window.jupyterapp;
                for (const panel of [...app.shell.widgets('main')]) {
                    if (panel.sessionContext) await panel.sessionContext.shutdown();
                    panel.dispose();  // (closed without a dialog: the reader's edits are not kept)
                }
                await app.commands.execute('docmanager:open', {path});
            }""", str(path))
        page = self.page
        page.wait_for_function("path => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                               " && window.jupyterapp.shell.currentWidget.context?.path === path"
                               " && window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel"
                               " && window.jupyterapp.shell.currentWidget.node.querySelector('.jp-Cell')",
                               arg=str(path), timeout=120_000, polling=POLL_MS)
        return page

    def close(self):
        if self.context is not None:
            self.context.close()


def visible_cells(page):
    """Each cell as the reader sees it: ``[{type, text (on screen), source, hidden}]``.

    JupyterLab renders cells lazily, so each one is scrolled into view first.
    """
    return page.evaluate("""async () => {
        const nb = window.jupyterapp.shell.currentWidget.content, out = [];
        for (let i = 0; i < nb.widgets.length; i++) {
            const w = nb.widgets[i];
            await nb.scrollToItem(i);
            // wait (at most 10 s) until a markdown cell is rendered and its text is stable;
            // the rendered text is in .jp-MarkdownOutput (JupyterLab's renderer) or in .myst
            // (jupyterlab-myst's, which Binder installs: without it every cell waited 10 s)
            let text = null;
            for (let t = 0; t < 100; t++) {
                await new Promise(r => setTimeout(r, w.model.type === 'markdown' ? 100 : 10));
                const rendered = w.model.type !== 'markdown' || w.inputHidden
                    || (w.rendered && w.node.querySelector('.jp-MarkdownOutput, .myst')?.innerText.trim());
                if (rendered && w.node.innerText === text) break;
                text = w.node.innerText;
            }
            out.push({type: w.model.type, text: w.node.innerText, source: w.model.sharedModel.getSource(),
                      hidden: w.inputHidden});
        }
        return out;
    }""")


def run_all(page):
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function("""() => {
        const nb = window.jupyterapp.shell.currentWidget.content;
        const code = nb.widgets.filter(w => w.model.type === 'code');
        return code.length > 0 && code.every(w => w.model.executionCount !== null)
            && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle';
    }""", timeout=600_000, polling=POLL_MS)
    errors = page.evaluate("""() => window.jupyterapp.shell.currentWidget.content.widgets
        .filter(w => w.model.type === 'code')
        .flatMap(w => w.model.outputs.toJSON().filter(o => o.output_type === 'error').map(o => o.ename + ': ' + o.evalue))""")
    assert not errors, errors


def run_cells(page, indices):
    """Run the notebook's cells ``indices`` (in order) in its kernel; no cell may raise."""
    page.evaluate("""async (indices) => {
        const app = window.jupyterapp, nb = app.shell.currentWidget.content;
        for (const i of indices) {
            nb.activeCellIndex = i;
            await app.commands.execute('notebook:run-cell');
        }
    }""", indices)
    page.wait_for_function("""(indices) => {
        const panel = window.jupyterapp.shell.currentWidget, cells = panel.content.widgets;
        return indices.every(i => cells[i].model.executionCount !== null)
            && panel.sessionContext.session.kernel.status === 'idle';
    }""", arg=indices, timeout=600_000, polling=POLL_MS)
    errors = page.evaluate("""(indices) => indices.map(i => window.jupyterapp.shell.currentWidget.content.widgets[i])
        .flatMap(w => w.model.outputs.toJSON().filter(o => o.output_type === 'error').map(o => o.ename + ': ' + o.evalue))""",
                           indices)
    assert not errors, errors


def _expand_macros(text):
    """The book's math macros written out, as tools/export_notebooks.py does for JupyterLab."""
    import yaml
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    for name, value in config["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"].items():
        text = re.sub(r"\\" + name + r"(?![A-Za-z])", lambda _, value=value: value, text)
    return text


def solution_openings(chapter):
    """The first words of each solution in a chapter's source (text right after solution-start)."""
    text = (ROOT / "chapters" / f"{chapter}.md").read_text()
    out = []
    for m in re.finditer(r"```\{solution-start\}[^\n]*\n(?::[^\n]*\n)*```\n+(.+)", text):
        line = m[1].strip()
        if not line.startswith(("```", "+++", ":")):
            out.append(_expand_macros(line)[:40])
    return out


def check_reader_view(page, chapter):
    cells = visible_cells(page)
    shown = "\n".join(c["text"] for c in cells if c["type"] == "markdown")
    raw = [(m.group(0), c["text"][:300]) for c in cells if c["type"] == "markdown" for m in RAW_MYST.finditer(c["text"])]
    assert not raw, f"{chapter}: shown raw in JupyterLab: {raw[:5]}"
    openings = solution_openings(chapter)
    assert openings, f"{chapter} has no solution to check"
    everything = "\n".join(c["source"] for c in cells)
    for opening in openings:
        assert " ".join(opening.split()) in " ".join(everything.split()), f"solution missing: {opening!r}"
        assert " ".join(opening.split()) not in " ".join(shown.split()), f"solution shown open: {opening!r}"
    return cells


def figure_notebook(work, chapter):
    """A copy of the chapter's notebook, beside it, with only the cells its interactive figures
    need (``widget_cells``; their ids and metadata kept; of a cell needed for its imports,
    only those), and their number: JupyterLab renders
    no prose or maths there (chapter 1 is read whole in test_binder_session.py), which took most of
    Chromium's CPU."""
    path = work / "chapters" / f"{chapter}.ipynb"
    nb = nbformat.read(path, as_version=4)
    cells = widget_cells(path)
    for i, source in cells.items():
        if source is not None:  # a cell needed for its imports only
            nb.cells[i].source = source
    nb.cells = [nb.cells[i] for i in cells]
    copy = path.with_name(f"{path.stem}-figures.ipynb")  # (JupyterLab opens no hidden file)
    nbformat.write(nb, copy)
    return copy.relative_to(work), len(nb.cells)


def figure_src(image):
    return image.get_attribute("src")


DRAWN_FOR = """([cell, n]) => {
    const img = cell.querySelector('.jp-OutputArea img[data-values]');
    return !!img && JSON.parse(img.dataset.values).n_candies === n;
}"""


def wait_settled(page, image, quiet=3.0, limit=90.0):
    """The image's src once it has not changed for ``quiet`` seconds."""
    start, last, since = time.monotonic(), figure_src(image), time.monotonic()
    while time.monotonic() - since < quiet:
        assert time.monotonic() - start < limit, "the figure kept changing"
        page.wait_for_timeout(100)
        now = figure_src(image)
        if now != last:
            last, since = now, time.monotonic()
    return last
