"""The notebook stage of `make test` (`make nbval`): the notebooks the strict book build
executed are read back (tools/check_executed.py), not executed again. Every page of the
table of contents must have been executed top to bottom from its current code, with no
error in any output. The exported copies the launch buttons open are executed by
tests/test_launch.py (the Binder-like venv run is their notebook test)."""
import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from check_executed import check, problems, source_code, source_path, toc_pages  # noqa: E402

BUILD = os.environ.get("BOOK_BUILD")


def test_a_bad_execution_is_reported():
    cell = {"cell_type": "code", "source": "x = 1", "execution_count": 1, "outputs": []}
    assert problems(["x = 1"], {"cells": [cell]}) == []
    assert "a stale cached execution" in problems(["x = 2"], {"cells": [cell]})[0]
    assert problems(["x = 1"], {"cells": [dict(cell, execution_count=None)]}) == ["1 code cells were not executed"]
    error = dict(cell, outputs=[{"output_type": "error", "ename": "AssertionError", "evalue": "", "traceback": []}])
    assert problems(["x = 1"], {"cells": [error]}) == ["code cell 0: AssertionError"]
    later = [dict(cell, execution_count=2), dict(cell, source="y = 2", execution_count=1)]
    assert problems(["x = 1", "y = 2"], {"cells": later}) == ["cells were not executed top to bottom"]


def test_source_code_drops_the_cell_options(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("# T\n\n```{code-cell} ipython3\n:tags: [remove-cell]\n:mystnb:\n:  figure:\n"
                    "x = 1\n```\n\ntext\n\n```{code-cell} ipython3\ny = x\n```\n")
    assert source_code(page) == ["x = 1", "y = x"]


def test_a_page_the_build_did_not_execute_is_reported(tmp_path):
    assert "did not execute" in check(tmp_path, "chapters/01_bayesian_learning")[0]


@pytest.mark.skipif(not BUILD, reason="BOOK_BUILD is not set: `make nbval` (part of `make test`) runs this after `make book`")
@pytest.mark.parametrize("page", toc_pages())
def test_every_notebook_was_executed_by_the_book_build(page):
    found = check(BUILD, page)
    assert not found, f"{page}: {found}"


@pytest.mark.skipif(not BUILD, reason="BOOK_BUILD is not set: `make nbval` (part of `make test`) runs this after `make book`")
@pytest.mark.parametrize("page", toc_pages())
def test_the_sites_ipynb_download_is_the_executed_notebook(page):
    """The page's download button serves html/_sources/<page>.ipynb. For a chapter (MyST
    source) that is the executed notebook, outputs included, also when the build read the
    page from the execution cache; for an exercise it is the released notebook itself."""
    download = Path(BUILD) / "html" / "_sources" / f"{page}.ipynb"
    source = source_path(page)
    if source.suffix == ".ipynb":
        assert download.read_bytes() == source.read_bytes()
        return
    assert download.read_bytes() == (Path(BUILD) / "jupyter_execute" / f"{page}.ipynb").read_bytes()
    assert problems(source_code(source), json.loads(download.read_text())) == []
