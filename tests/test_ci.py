"""The GitHub workflows: make test (.ci/run) on every push and pull request, the website
published only after it passed, and the 20 Newsgroups archive from the Actions cache under
a key that is its SHA-256."""
from pathlib import Path

import yaml

from lib.datasets import NEWSGROUPS_SHA256, NEWSGROUPS_URL

ROOT = Path(__file__).resolve().parents[1]
GITHUB = ROOT / ".github"
OFFICIAL = next(sha for sha, what in NEWSGROUPS_SHA256.items() if what == "official archive")


def read(path):
    """A workflow as a dict; YAML 1.1 reads the key ``on`` as True: back to "on"."""
    data = yaml.safe_load((GITHUB / path).read_text())
    if True in data:
        data["on"] = data.pop(True)
    return data


def uses(job):
    return [step.get("uses", "") for step in job.get("steps", [])]


def test_every_push_and_pull_request_runs_make_test_through_ci_run():
    workflow = read("workflows/test.yml")
    assert {"push", "pull_request"} <= set(workflow["on"])
    assert workflow["on"]["push"] is None, "every branch, not only main"
    test = workflow["jobs"]["test"]
    assert [step["run"] for step in test["steps"] if "run" in step] == [".ci/run"]
    assert (ROOT / ".ci" / "run").stat().st_mode & 0o111, ".ci/run is executable"


def test_publishing_runs_only_after_the_tests_passed_on_a_push_to_main():
    jobs = read("workflows/test.yml")["jobs"]
    publish = [job for job in jobs.values() if job.get("uses") == "./.github/workflows/publish.yml"]
    assert len(publish) == 1
    assert publish[0]["needs"] in ("test", ["test"])
    assert publish[0]["if"] == "github.event_name == 'push' && github.ref == 'refs/heads/main'"
    assert set(publish[0]["permissions"]) == {"contents", "pages", "id-token"}
    # publish.yml has no trigger of its own: it cannot run without the tests
    assert read("workflows/publish.yml")["on"] == {"workflow_call": None}
    assert [p.name for p in (GITHUB / "workflows").iterdir()] != [] and all(
        set(read(f"workflows/{p.name}")["on"]) <= {"push", "pull_request", "workflow_call"}
        for p in (GITHUB / "workflows").iterdir())


def test_the_published_site_is_checked_for_solutions_before_it_is_uploaded():
    steps = read("workflows/publish.yml")["jobs"]["build"]["steps"]
    runs = [step.get("run", "") for step in steps]
    check = runs.index("tools/publish_site.sh --check _build/html")
    assert check == runs.index("make book") + 1
    upload = next(i for i, step in enumerate(steps) if step.get("uses", "").startswith("actions/upload-pages-artifact"))
    assert check < upload and steps[upload]["with"]["path"] == "_build/html"


def test_the_newsgroups_archive_comes_from_the_cache_keyed_on_its_sha256():
    action = yaml.safe_load((GITHUB / "actions" / "newsgroups" / "action.yml").read_text())
    cache, download, env = action["runs"]["steps"]
    assert cache["uses"].startswith("actions/cache@")
    assert OFFICIAL in cache["with"]["key"]
    archive = cache["with"]["path"]
    # downloaded only when the cache has no copy, from lib.datasets' URL, checked against the key's SHA-256
    assert download["if"] == f"steps.{cache['id']}.outputs.cache-hit != 'true'"
    assert f"-o {archive} {NEWSGROUPS_URL}" in " ".join(download["run"].replace("\\\n", " ").split())
    assert f'echo "{OFFICIAL}  $HOME/{archive.removeprefix("~/")}"' in download["run"]
    assert download["run"].rstrip().endswith("| sha256sum -c -")
    folder = archive.removeprefix("~/").rsplit("/", 1)[0]
    assert env["run"] == f'echo "BAYES_COURSE_DATA=$HOME/{folder}" >> "$GITHUB_ENV"'


def test_both_jobs_that_build_the_book_use_the_cached_archive():
    test = read("workflows/test.yml")["jobs"]["test"]
    build = read("workflows/publish.yml")["jobs"]["build"]
    for job, command in [(test, ".ci/run"), (build, "make book")]:
        steps = [step.get("uses") or step.get("run") for step in job["steps"]]
        assert steps.index("./.github/actions/newsgroups") < steps.index(command)
    assert "BAYES_COURSE_DATA" not in str(build), "set by the action, from the cache"
