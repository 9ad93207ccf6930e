"""A fresh virtual environment made from `binder/requirements.txt` alone.

Shared by tests/test_binder.py and tests/browser/test_binder_session.py. It lives in
`_build/binder-venv` and is made again whenever binder/ or pyproject.toml change, as
repo2docker would: `pip install -r binder/requirements.txt` from the repository root.
"""
import hashlib
import shutil
import subprocess
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = ROOT / "_build" / "binder-venv"


def binder_python():
    key = hashlib.sha256(b"".join(p.read_bytes() for p in sorted((ROOT / "binder").iterdir()))
                         + (ROOT / "pyproject.toml").read_bytes()).hexdigest()
    stamp = ENV / ".binder-key"
    if not stamp.exists() or stamp.read_text() != key:
        shutil.rmtree(ENV, ignore_errors=True)
        venv.create(ENV, with_pip=True)
        subprocess.run([str(ENV / "bin" / "python"), "-m", "pip", "install", "--quiet",
                        "--disable-pip-version-check", "-r", "binder/requirements.txt"], cwd=ROOT, check=True)
        stamp.write_text(key)
    return ENV / "bin" / "python"
