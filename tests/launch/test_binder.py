"""Binder and the installed package: what binder/ asks for, and data found without a checkout.

mybinder.org (repo2docker) installs binder/requirements.txt from the root of the
`notebooks` branch; tests/launch/test_launch.py runs every notebook in a venv made that way.
Here: the files themselves, the settings of the launch buttons, and the package as
`pip install .` (not editable) installs it.
"""
import subprocess
import sys
import zipfile
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml
from binder_env import ROOT, binder_python, button_links

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())


def test_runtime_pins_a_supported_python():
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() in {"python-3.11", "python-3.12"}


def test_requirements_install_the_course_library_and_the_myst_renderer():
    lines = [line.split("#")[0].strip() for line in (ROOT / "binder" / "requirements.txt").read_text().splitlines()]
    assert "-e ." in lines
    assert any(line.startswith("jupyterlab-myst") for line in lines)
    # a reader's kernel needs neither the book's nor the grader's tools
    assert not any(line.startswith(("myst-nb", "jupytext", "jupyter-book")) for line in lines)


@pytest.mark.slow
def test_binder_environment_has_the_library_from_the_repository_and_no_build_tools():
    python = binder_python()
    where = subprocess.run([str(python), "-c", "import lib; print(lib.__file__)"],
                           capture_output=True, text=True, check=True).stdout
    assert Path(where.strip()).resolve().parent == ROOT / "lib"
    missing = subprocess.run([str(python), "-c", "import importlib.util as u; "
                              "print([m for m in ('myst_nb', 'jupytext', 'jupyterlab_myst', 'pandas') if not u.find_spec(m)])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    assert missing == "['myst_nb', 'jupytext']"


def test_jupyterhub_button_is_one_setting_and_absent_while_empty():
    buttons = CONFIG["launch_buttons"]
    # sphinx-book-theme adds the button when the value is a non-empty string (None would crash it)
    assert isinstance(buttons["jupyterhub_url"], str)
    assert "example" not in buttons["jupyterhub_url"], "a placeholder hub gives a dead link on every page"
    assert buttons["binderhub_url"] == "https://mybinder.org" and buttons["colab_url"]
    assert CONFIG["repository"]["branch"] == "notebooks"


def test_launch_buttons_follow_the_hub_setting(tmp_path):
    """The theme's own code turns the settings into buttons: none for an empty hub, an
    nbgitpuller link (repository, branch `notebooks`, the chapter's .ipynb) for a set one."""
    unset = button_links("chapters/01_bayesian_learning", tmp_path)
    assert "JupyterHub" not in unset and "Binder" in unset and "Colab" in unset
    assert unset["Binder"].endswith("/notebooks?urlpath=lab/tree/chapters/01_bayesian_learning.ipynb")
    hub = button_links("chapters/01_bayesian_learning", tmp_path, "https://hub.university.edu")["JupyterHub"]
    assert hub.startswith("https://hub.university.edu/hub/user-redirect/git-pull?")
    assert f"repo={CONFIG['repository']['url']}" in unquote(hub) and "branch=notebooks" in hub
    assert "urlpath=lab/tree/bayesian-learning/chapters/01_bayesian_learning.ipynb" in unquote(hub)


@pytest.mark.slow
def test_installed_package_finds_its_data_outside_a_checkout(tmp_path):
    """`pip install .` (a wheel, not editable): the data sets are package data."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "-w", str(tmp_path / "wheel"), str(ROOT)], check=True, cwd=tmp_path)
    wheel = next((tmp_path / "wheel").glob("*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for name in ["lib/data/playtennis_classic.csv", "lib/data/iris_uci.csv", "lib/data/networks/alarm.bif.gz",
                 "lib/data/README.md"]:
        assert name in names, name
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site), str(wheel)],
                   check=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = ("import lib, lib.datasets as d; X, y, names = d.load_playtennis(); net = d.load_network('alarm');"
              "print(lib.__file__, X.shape, len(net.names))")
    out = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(site)!r}); {script}"],
                         cwd=elsewhere, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    where, shape, n = out.stdout.rsplit(" ", 2)[0].split(" ", 1)[0], out.stdout.split(" ", 1)[1], out.stdout.split()[-1]
    assert Path(where).is_relative_to(site) and n == "37" and shape.startswith("(14, 4)")
