"""Fixtures for the browser tests: the built site on 127.0.0.1, Chromium, CDN routes.

The site is `_build/html` (or $BOOK_HTML), built by `make book`. Chromium is Debian's
(`/usr/bin/chromium`, or $CHROMIUM), driven by Python playwright; playwright never
downloads a browser. The CDN asset the pages load (MathJax; no page loads a widget
manager or require.js) is routed to a local copy from the npm package listed in
`package.json`, installed by `make browser-assets` into `_build/npm`, so the test sees
what a reader with internet sees; every other outside request is blocked and recorded.
"""
import functools
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))
NPM = Path(os.environ.get("BOOK_NPM", ROOT / "_build" / "npm")) / "node_modules"
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TOKEN = "course-test-token"
SHOTS = ROOT / "_build" / "screenshots"
PINNED = json.loads((Path(__file__).parent / "package.json").read_text())["dependencies"]

# (URL pattern the pages request, npm package, folder inside the package)
CDN = [
    (r"https://cdn\.jsdelivr\.net/npm/mathjax@(?P<v>[\d.]+)/(?P<path>.*)", "mathjax", ""),
]


def local_asset(url):
    """The local file that stands for a CDN URL, or None if the URL is not a known asset."""
    for pattern, package, fixed in CDN:
        m = re.fullmatch(pattern, url.split("?")[0])
        if m:
            wanted, pinned = m["v"], PINNED[package]
            if not pinned.startswith(wanted):  # "mathjax@3" accepts 3.2.2
                raise AssertionError(f"page requests {package}@{wanted}, tests pin {pinned}: update package.json")
            return NPM / package / (fixed or m["path"])
    return None


@pytest.fixture(scope="session")
def site_url():
    if not (SITE / "index.html").exists():
        pytest.fail(f"{SITE}/index.html is missing: run `make book` first")
    handler = functools.partial(QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def browser():
    missing = [what for what, ok in [("Debian's chromium (apt-get install chromium)", Path(CHROMIUM).exists()),
                                     (f"the npm assets in {NPM} (make browser-assets)", (NPM / "mathjax").exists())] if not ok]
    if missing:
        # On a reader's machine without a browser the tests are skipped; in CI they must run.
        (pytest.fail if os.environ.get("CI") else pytest.skip)("missing: " + "; ".join(missing))
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Recorder:
    """Routes requests: the site passes, CDN assets are served locally, the rest is blocked."""

    def __init__(self, site_url):
        self.site_url, self.blocked, self.errors, self.served = site_url, [], [], []

    def route(self, route):
        url = route.request.url
        if url.startswith(self.site_url) or url.startswith("data:"):
            return route.continue_()
        path = local_asset(url)
        if path is not None and path.is_file():
            self.served.append(url)
            return route.fulfill(path=str(path))
        self.blocked.append(url)
        return route.abort()

    def attach(self, page):
        # Only what route() changes comes to Python: every address outside the site. The
        # site's own files (pages, styles, scripts, images, frames) load directly, without
        # a round trip through this process.
        page.route(re.compile(rf"^(?!{re.escape(self.site_url)}/)"), self.route)
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        return page


@pytest.fixture
def open_page(browser, site_url):
    contexts = []

    def open_(path, javascript=True):
        context = browser.new_context(java_script_enabled=javascript, viewport={"width": 1280, "height": 900})
        contexts.append(context)
        recorder = Recorder(site_url)
        page = recorder.attach(context.new_page())
        page.goto(f"{site_url}/{path}", wait_until="networkidle")
        return page, recorder

    yield open_
    for context in contexts:
        context.close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def lab(tmp_path_factory, browser):
    """A JupyterLab server from the Binder-like venv on a copy of the `notebooks` branch:
    ``(url, folder)``. One per pytest-xdist worker (tests/conftest.py groups its tests)."""
    from binder_env import DATA, binder_python, launch_tree

    python = binder_python()
    home = tmp_path_factory.mktemp("home")
    work = launch_tree(tmp_path_factory.mktemp("work") / "bayesian-learning")
    env = {**os.environ, "HOME": str(home), "JUPYTER_CONFIG_DIR": str(home / ".jupyter"), "BAYES_COURSE_DATA": DATA}
    env.pop("JUPYTER_PATH", None)
    port = free_port()
    log = open(home / "lab.log", "w")
    server = subprocess.Popen(
        [str(python), "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={work}", "--ServerApp.open_browser=False",
         "--allow-root", "--LabApp.expose_app_in_browser=True"],
        env={**env, "PATH": f"{python.parent}:{env['PATH']}"}, cwd=work, stdout=log, stderr=subprocess.STDOUT)
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
    SHOTS.mkdir(parents=True, exist_ok=True)
    yield url, work
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()


@pytest.fixture(scope="session")
def lab_page(lab, browser):
    """The session's one JupyterLab page on the ``lab`` server (lab_session.LabPage):
    ``lab_page.open(path)`` shows a notebook of ``lab``'s folder with its kernel started."""
    from lab_session import LabPage

    tab = LabPage(browser, lab[0])
    yield tab
    tab.close()
