# The README's commands: `make book`, `make unit` and `make test`. Each creates .venv when
# missing and installs what it needs; nothing else is required but python3, make and git.
SHELL   := /bin/bash
PYTHON  ?= python3
VENV    ?= .venv
BIN     := $(VENV)/bin
EDITION ?= student
# The instructor edition (solutions) builds into a folder of its own, never into the
# student site's _build/html that `make publish` and the publish workflow publish.
OUT     ?= $(if $(filter instructor,$(EDITION)),_build/instructor,.)
BUILD   := $(OUT)/_build
PORT    ?= 8000
STAMP   := $(VENV)/.installed
# pytest-xdist workers of the browser stage: its tests mostly wait (page loads, kernels)
BROWSER_WORKERS ?= 3
# notebooks `make book` executes at the same time (tools/execute_book.py)
BOOK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)

# Where big data sets live (20 Newsgroups archive); see lib/datasets.py.
export BAYES_COURSE_DATA ?= $(abspath ../shared/data)
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# uv (which installs .venv and the tests' venvs) uses pip's index, when the environment sets one
ifdef PIP_INDEX_URL
export UV_INDEX_URL ?= $(PIP_INDEX_URL)
endif
ifdef PIP_EXTRA_INDEX_URL
export UV_EXTRA_INDEX_URL ?= $(PIP_EXTRA_INDEX_URL)
endif
# Python's bytecode cache (__pycache__, git-ignored): where the machine sets
# PYTHONDONTWRITEBYTECODE=1, each of the hundreds of Python processes of `make test`
# (kernels, sandboxes, servers, pytest workers) compiled every module it imported from
# source again; with the cache, the first import writes it and the others read it.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: help install book publish prepare notebooks launch-tree test site lint unit slow min-deps nbval browser browser-lab browser-site browser-assets chapter serve clean bench

help:
	@echo "make book     build the website into _build/html (EDITION=instructor: into _build/instructor/_build/html)"
	@echo "make publish  push _build/html to GitHub Pages (ghp-import); refuses the instructor edition"
	@echo "make unit     the fast tests in parallel, with lib's doctests (a few minutes)"
	@echo "make lint     ruff over lib, tests, tools, benchmarks, _ext"
	@echo "make test     everything: lint, then side by side: unit | slow | browser-lab | strict book build -> read back -> browser-site"
	@echo "make slow     kernels, venvs (launch routes), JupyterHub, grading sandboxes, mini-books (-n auto)"
	@echo "make browser  Chromium: browser-site (the built site, -n BROWSER_WORKERS=3) and browser-lab (JupyterLab session)"
	@echo "make min-deps the lowest allowed versions, in their own venv (lib tests, chapters, grader)"
	@echo "make nbval    read back the notebooks the book build executed"
	@echo "make chapter CH=01_bayesian_learning   strict build + nbval of one chapter"
	@echo "make bench    benchmarks against the peers -> benchmarks/results.md"
	@echo "make serve    preview the built site on http://127.0.0.1:$(PORT)"
	@echo "make clean    remove _build, _generated and caches (keeps .venv)"

# pip installs uv, which installs the rest: the newest versions that fit, as pip would, for
# a sixth of pip's CPU (benchmarks/results.md, round 10).
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "make needs Python 3.11 or newer (pyproject.toml; scikit-learn 1.9, the tests'"'"' oracle, has no release for older), found $(PYTHON) " + sys.version.split()[0])'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet "$$(sed -n 's/^ *"\(uv[<>=][^"]*\)".*/\1/p' pyproject.toml)"
	$(BIN)/uv pip install --quiet --python $(BIN)/python -e ".[book,grade,test]"
	@touch $@

install: $(STAMP)

# The book's execution cache (myst-nb, keyed on each notebook's code) is also keyed per
# notebook on the lib/ files it imports (tools/exec_cache.py): a change to lib/hmm/
# re-executes the notebooks that import lib.hmm, not every chapter (lib/data: every one).
NOTEBOOKS = chapters/*.md _generated/exercises/*/*.ipynb
# Each step writes only the files whose contents change (nothing, when nothing changed:
# tests/book/test_prepare.py), so Sphinx reads no page again.
prepare: $(STAMP)
	@mkdir -p $(BUILD)
	$(BIN)/python tools/export_notebooks.py --exercises _generated/exercises $(if $(filter instructor,$(EDITION)),--instructor)
	@$(BIN)/python tools/export_notebooks.py chapters   # .ipynb copies the launch buttons open
	@$(BIN)/python tools/exec_cache.py $(BUILD) $(NOTEBOOKS)

# The notebooks run BOOK_JOBS at a time into the execution cache (tools/execute_book.py:
# each once, as myst-nb would run it; a failing one stops here), then the strict build
# reads their outputs from the cache.
# A `make book` with nothing changed does nothing: a build that succeeded leaves a stamp,
# and the next one runs only when a file or folder of the checkout (outside what git
# ignores: builds, venvs, caches, generated notebooks) is newer (tests/book/test_prepare.py).
BOOK_INPUTS := $(shell find . -mindepth 1 \( -path ./.git -o -path ./$(VENV) -o -path ./_build -o -path ./_generated \
  -o -path './chapters/*.ipynb' -o -path ./benchmarks/_work -o -path ./build -o -path ./release -o -path ./solutions \
  -o -name __pycache__ -o -name '.*_cache' -o -name '*.egg-info' -o -name node_modules -o -name .ipynb_checkpoints \) \
  -prune -o -print)
book: $(BUILD)/.book-stamp

$(BUILD)/.book-stamp: $(STAMP) $(BOOK_INPUTS)
	@$(MAKE) --no-print-directory prepare
	$(BIN)/python tools/execute_book.py $(BUILD) $(NOTEBOOKS) --jobs $(BOOK_JOBS)
	$(BIN)/jupyter-book build . -W -n --keep-going --path-output $(OUT)
	@touch $@

# The README's manual publish: tools/publish_site.sh refuses a site that shows solutions.
publish:
	tools/publish_site.sh $(BUILD)/html

# Plain .ipynb copies of the chapters and the released student exercise notebooks, to
# open or run by hand (make test executes the launch tree's copies, tests/launch/test_launch.py).
notebooks: $(STAMP)
	@rm -rf $(BUILD)/notebooks
	$(BIN)/python tools/export_notebooks.py $(BUILD)/notebooks/chapters
	$(BIN)/python tools/export_notebooks.py --exercises $(BUILD)/notebooks/exercises

# The `notebooks` branch the launch buttons open (Binder, Colab, JupyterHub): the
# repository with the chapters and released exercises as .ipynb only (see README).
launch-tree: $(STAMP)
	$(BIN)/python tools/export_notebooks.py --launch $(BUILD)/launch-tree

# The stages of `make test` (CONTRIBUTING.md lists what each one runs). Each test file sets
# its markers (pytestmark): slow = kernels, builds, venvs, sandboxes; browser = Chromium.
lint: $(STAMP)
	$(BIN)/ruff check lib tests tools benchmarks _ext

unit: $(STAMP)
	$(UNIT_NICE) $(BIN)/python -m pytest -q -n auto -m "not slow and not browser" -p no:cacheprovider tests \
	  --doctest-modules lib

# pytest-xdist groups (xdist_group marks, tests/conftest.py): a file with an expensive module
# fixture in one worker, the launch routes side by side (Binder, Colab), the rest spread.
slow: $(STAMP)
	$(BIN)/python -m pytest -q -n auto --dist loadgroup -m "slow and not browser" -p no:cacheprovider \
	  --ignore=tests/browser --ignore=tests/book/test_executed_notebooks.py \
	  --ignore=tests/grading/test_display_precision.py tests --durations=15

# The lowest versions pyproject.toml allows, in their own venv (part of `slow`; CONTRIBUTING.md)
min-deps: $(STAMP)
	MIN_DEPS_UNIT=$(MIN_DEPS_UNIT) $(BIN)/python -m pytest -q -p no:cacheprovider tests/launch/test_min_deps.py

# Local copies of the CDN assets the pages load (MathJax, require.js, widget manager).
browser-assets:
	@if command -v npm >/dev/null; then \
	  mkdir -p $(BUILD)/npm && cp tests/browser/package.json $(BUILD)/npm/ && \
	  npm install --prefix $(BUILD)/npm --no-audit --no-fund --loglevel=error; \
	else echo "npm not found: the browser tests will be skipped (CI installs it)"; fi

# Chromium (Debian's) on the built site (browser-site, after the book), and a Binder-like
# JupyterLab session on the launch notebooks (browser-lab: needs no book; one process, so one
# JupyterLab server and one Chromium for all its tests: a second worker cost a second
# server, browser and JupyterLab page start for nothing, since `make test`'s other lines
# fill the waits).
LAB_TESTS := tests/browser/test_binder_session.py tests/browser/test_widget_latency.py
BROWSER_ENV := BOOK_HTML=$(abspath $(BUILD))/html BOOK_NPM=$(abspath $(BUILD))/npm
SITE_TESTS = $(BROWSER_ENV) $(BIN)/python -m pytest tests/browser $(LAB_TESTS:%=--ignore=%) -q \
	  -n $(BROWSER_WORKERS) --dist load -p no:cacheprovider --durations=15

browser: browser-lab browser-site

browser-lab: browser-assets
	$(BROWSER_ENV) $(BIN)/python -m pytest $(LAB_TESTS) -q -p no:cacheprovider --durations=15

browser-site: browser-assets
	@test -f $(BUILD)/html/index.html || $(MAKE) book
	$(SITE_TESTS)

# The notebooks `make book` executed, read back (not executed again): every page ran top
# to bottom from its current code, with no error (tools/check_executed.py); and the values
# the executed chapters print, copied, pass the graded questions (tests/grading/test_display_precision.py).
nbval: book
	BOOK_BUILD=$(abspath $(BUILD)) $(BIN)/python -m pytest -q -p no:cacheprovider tests/book/test_executed_notebooks.py \
	  tests/grading/test_display_precision.py::test_chapter_displays_copied_pass

# Everything: lint first (seconds), then four lines side by side, since most of each is
# waiting (kernels, servers, page loads, pip) that the others' work fills:
#   unit  |  slow  |  browser-lab  |  book -> nbval -> browser-site
# -k: a failing stage does not stop the others; make test fails if any failed. Each
# stage's output is printed in one piece when it ends (--output-sync).
# The unit line yields the CPU to the others (nice): it has no time limit, while the book
# build is the start of the longest line and the sandbox and JupyterLab tests wait on
# clocks.
test: lint
	@$(MAKE) --no-print-directory -k -j4 --output-sync=target UNIT_NICE="nice -n 10" BOOK_JOBS=3 unit slow browser-lab site

site: nbval browser-assets
	$(SITE_TESTS)

# One chapter alone: a strict mini-book with only that page, then its executed notebook read back.
chapter: $(STAMP)
	@test -n "$(CH)" || { echo "usage: make chapter CH=01_bayesian_learning"; exit 2; }
	$(BIN)/python tools/build_one.py $(CH)

# Speed against scikit-learn / hmmlearn / pgmpy and the book's own speed -> benchmarks/results.md
bench: $(STAMP)
	OPENBLAS_NUM_THREADS=1 $(BIN)/python benchmarks/run.py $(BENCH_ARGS)

serve:
	@test -f $(BUILD)/html/index.html || $(MAKE) book
	$(BIN)/python -m http.server $(PORT) --bind 127.0.0.1 --directory $(BUILD)/html

clean:
	rm -rf $(BUILD) _generated .pytest_cache chapters/*.ipynb
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +
