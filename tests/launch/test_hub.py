"""The JupyterHub route, as a course team runs it and a reader clicks it.

A real JupyterHub on 127.0.0.1 (tests/launch/binder_env.py's hub venv: JupyterHub, JupyterLab,
nbgitpuller, jupyterlab-myst, ipywidgets; configurable-http-proxy from npm, which .ci/run
installs), the dummy authenticator and the local-process spawner. The `notebooks` branch
is published by tools/publish_notebooks.sh into a local bare repository (standing in for
GitHub). A reader logs in and follows the JupyterHub links the theme's own code makes for
chapter 1 and exercise 1 (only their `repo` points at that local repository); nbgitpuller
clones the branch into the reader's home; then the notebooks run top to bottom in the
reader's server through its REST and kernel API, set-up cell included (it installs the
course from the reader's clone: the hub does not have it). Everything started is stopped
by PID.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import uuid
from urllib.parse import parse_qs, urlencode, urlsplit

import psutil
import pytest
import requests
import websocket
from binder_env import (
    CONFIG,
    DATA,
    REPO_NAME,
    ROOT,
    button_links,
    hub_python,
    named_notebook,
    notebook_pages,
    published_clone,
)

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("hub")]  # a JupyterHub on 127.0.0.1, readers' servers

CHP = shutil.which("configurable-http-proxy") or shutil.which(
    "configurable-http-proxy", path=str(ROOT / "_build" / "chp" / "node_modules" / ".bin"))
PASSWORD = "course-reader"
LINKED = ["chapters/01_bayesian_learning", "_generated/exercises/01_bayesian_learning/01_bayesian_learning"]

if CHP is None and not os.environ.get("CI"):
    pytest.skip("configurable-http-proxy (npm) is missing: .ci/run installs it", allow_module_level=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(pids):
    """SIGTERM, then SIGKILL what is left, of exactly these processes."""
    alive = []
    for pid in pids:
        try:
            alive.append(psutil.Process(pid))
            alive[-1].send_signal(signal.SIGTERM)
        except psutil.NoSuchProcess:
            pass
    _, left = psutil.wait_procs(alive, timeout=20)
    for proc in left:
        proc.kill()
    psutil.wait_procs(left, timeout=10)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """A running hub; yields ``(url, remote)``. Stops the hub, its proxy, the reader's
    server and kernels by PID."""
    assert CHP, "configurable-http-proxy is missing: .ci/run installs it with npm"
    where = tmp_path_factory.mktemp("hub")
    python = hub_python()
    remote, _ = published_clone(where)
    port = free_port()
    (where / "home").mkdir()
    (where / "jupyterhub_config.py").write_text(f"""
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {free_port()}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{free_port()}"
c.ConfigurableHTTPProxy.command = [{CHP!r}]
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {PASSWORD!r}
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {str(where / "home" / "{username}")!r}
c.Spawner.cmd = [{str(python.parent / "jupyterhub-singleuser")!r}]
c.Spawner.args = ["--ServerApp.allow_root=True"]
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 240
c.Spawner.http_timeout = 240
c.Spawner.environment = {{"BAYES_COURSE_DATA": {DATA!r}, "PYDEVD_DISABLE_FILE_VALIDATION": "1"}}
c.JupyterHub.db_url = "sqlite:///{where / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = {str(where / "cookie_secret")!r}
c.JupyterHub.cleanup_servers = True
""")
    env = {**os.environ, "PATH": f"{python.parent}:{os.environ['PATH']}"}
    log = open(where / "hub.log", "w")
    proc = subprocess.Popen([str(python), "-m", "jupyterhub", "-f", str(where / "jupyterhub_config.py")],
                            cwd=where, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                if requests.get(f"{url}/hub/health", timeout=5).status_code == 200:
                    break
            except requests.ConnectionError:
                pass
            assert proc.poll() is None, (where / "hub.log").read_text()[-3000:]
            time.sleep(1)
        else:
            raise AssertionError("the hub did not answer: " + (where / "hub.log").read_text()[-3000:])
        yield url, remote, python
    finally:
        # the hub, and everything it started: proxy, the reader's server, kernels, pip
        try:
            pids = [proc.pid] + [p.pid for p in psutil.Process(proc.pid).children(recursive=True)]
        except psutil.NoSuchProcess:
            pids = [proc.pid]
        stop(pids)
        log.close()
        assert not [pid for pid in pids if psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"]


@pytest.fixture(scope="module")
def reader(hub):
    """A reader's browser session after logging in and following both JupyterHub links:
    ``(session, server_url, {page: path in the server})``."""
    url, remote, _ = hub
    session = requests.Session()
    page = session.get(f"{url}/hub/login")
    xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page.text).group(1)
    login = session.post(f"{url}/hub/login", data={"username": "reader", "password": PASSWORD, "_xsrf": xsrf})
    assert login.status_code == 200 and "/hub/login" not in login.url, login.text[:500]
    server = f"{url}/user/reader"
    opened = {}
    for page_name in LINKED:
        link = button_links(page_name, hub_links_dir(remote), url)["JupyterHub"]
        query = parse_qs(urlsplit(link).query)
        assert query["repo"] == [CONFIG["repository"]["url"]] and query["branch"] == [CONFIG["repository"]["branch"]]
        # the theme's link, with GitHub replaced by the local repository it stands for
        link = link.replace(urlencode({"repo": CONFIG["repository"]["url"]}, safe="/"),
                            urlencode({"repo": str(remote)}, safe="/"))
        for _ in range(120):  # the first click spawns the server: the page waits, then redirects
            answer = session.get(link, timeout=60)
            if urlsplit(answer.url).path == "/user/reader/git-pull":
                break
            time.sleep(2)
        assert answer.status_code == 200 and "nbgitpuller" in answer.text.lower(), answer.url
        # what the page's script does: stream the pull, then open the notebook in JupyterLab
        events = session.get(f"{server}/git-pull/api?" + urlsplit(answer.url).query, stream=True, timeout=300)
        phases = [json.loads(line[5:]) for line in events.iter_lines(decode_unicode=True) if line.startswith("data:")]
        assert phases[-1]["phase"] == "finished", phases[-3:]
        urlpath = parse_qs(urlsplit(answer.url).query)["urlpath"][0]
        assert session.get(f"{server}/{urlpath}").status_code == 200
        opened[page_name] = urlpath.split("lab/tree/", 1)[1]
        assert opened[page_name] == f"{REPO_NAME}/{named_notebook('JupyterHub', link)}"
    return session, server, opened


def hub_links_dir(remote):
    where = remote.parent.parent / "theme"
    where.mkdir(exist_ok=True)
    return where


def run_notebook(session, server, path):
    """Run the notebook ``path`` of the reader's server top to bottom through its REST and
    kernel API (as JupyterLab does); returns the set-up cell's output text."""
    # the cookies a browser sends to the reader's server (the hub's own paths excluded)
    cookies = {c.name: c.value for c in session.cookies if "/user/reader/".startswith(c.path.rstrip("/") + "/")}
    headers = {"X-XSRFToken": cookies.get("_xsrf", "")}
    nb = session.get(f"{server}/api/contents/{path}", params={"content": 1}).json()["content"]
    started = session.post(f"{server}/api/sessions", headers=headers,
                           json={"path": path, "type": "notebook", "kernel": {"name": "python3"}})
    assert started.status_code == 201, started.text
    kernel, sid = started.json()["kernel"]["id"], uuid.uuid4().hex
    origin = server.split("/user/")[0]
    ws = websocket.create_connection(
        f"{origin.replace('http', 'ws', 1)}/user/reader/api/kernels/{kernel}/channels?session_id={sid}",
        header=[f"X-XSRFToken: {headers['X-XSRFToken']}"], origin=origin, timeout=600,
        cookie="; ".join(f"{name}={value}" for name, value in cookies.items()))
    outputs = []
    try:
        for cell in (c for c in nb["cells"] if c["cell_type"] == "code"):
            msg_id, reply, idle, text = uuid.uuid4().hex, None, False, []
            ws.send(json.dumps({
                "header": {"msg_id": msg_id, "session": sid, "username": "reader", "msg_type": "execute_request",
                           "version": "5.3"},
                "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                "content": {"code": "".join(cell["source"]), "silent": False, "store_history": True,
                            "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}}))
            while reply is None or not idle:
                message = ws.recv()
                if isinstance(message, bytes):  # widget buffers
                    continue
                message = json.loads(message)
                if message["parent_header"].get("msg_id") != msg_id:
                    continue
                kind = message["msg_type"]
                if message["channel"] == "shell" and kind == "execute_reply":
                    reply = message["content"]
                elif kind == "status" and message["content"]["execution_state"] == "idle":
                    idle = True
                elif kind == "stream":
                    text.append(message["content"]["text"])
            assert reply["status"] == "ok", (path, "".join(cell["source"])[:300], reply.get("ename"),
                                             reply.get("evalue"), "\n".join(reply.get("traceback", []))[-3000:])
            outputs.append("".join(text))
    finally:
        ws.close()
        session.delete(f"{server}/api/sessions/{started.json()['id']}", headers=headers)
    return outputs[0]


def test_the_links_clone_the_branch_into_the_readers_home(reader, hub):
    session, server, opened = reader
    assert sorted(opened) == sorted(LINKED)
    listing = session.get(f"{server}/api/contents/{REPO_NAME}/chapters").json()["content"]
    assert sorted(f["name"] for f in listing if f["type"] == "notebook") == sorted(
        p.stem + ".ipynb" for p in (ROOT / "chapters").glob("*.md"))
    # the hub has the front end the chapters need: MyST markdown and ipywidgets
    extensions = {e["name"] for e in session.get(f"{server}/lab/api/extensions").json()}
    assert {"jupyterlab-myst", "jupyter-widgets-jupyterlab-manager"} <= extensions, extensions


@pytest.mark.parametrize("page", LINKED)
def test_a_linked_notebook_runs_top_to_bottom_in_the_readers_server(reader, hub, page):
    session, server, opened = reader
    setup = run_notebook(session, server, opened[page])
    assert "Note:" not in setup, setup  # this hub has every front-end piece the set-up cell checks
    # the set-up cell installed the course from the reader's clone (the hub did not have it)
    installed = subprocess.run([str(hub[2]), "-c", "import importlib.metadata as m; "
                                "print(m.distribution('bayes-course-lib').read_text('direct_url.json'))"],
                               cwd="/", capture_output=True, text=True, check=True).stdout
    assert json.loads(installed)["url"].endswith(f"/home/reader/{REPO_NAME}"), installed


OTHERS = [p for p in notebook_pages() if p not in LINKED]


@pytest.mark.skipif(not os.environ.get("BAYES_HUB_ALL"), reason="the other 16 notebooks in the hub: "
                    "BAYES_HUB_ALL=1 (about 10 more minutes on 2 cores)")
@pytest.mark.parametrize("page", OTHERS)
def test_every_other_notebook_of_the_clone_runs_in_the_readers_server(reader, page):
    session, server, _ = reader
    assert "Note:" not in run_notebook(session, server, f"{REPO_NAME}/{page}.ipynb")
