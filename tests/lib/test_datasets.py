"""Tests of lib/datasets.py: the 20 Newsgroups loader (Chapter 5).

The real corpus is read from the shared archive ($BAYES_COURSE_DATA or ../shared/data);
the download path is tested against a tiny archive served on 127.0.0.1.
"""
import http.server
import io
import tarfile
import threading
from pathlib import Path

import numpy as np
import pytest

from lib import datasets
from lib.datasets import NEWSGROUPS_COUNTS, find_newsgroups_archive, load_20newsgroups


@pytest.fixture(scope="module")
def newsgroups(tmp_path_factory):
    if find_newsgroups_archive() is None:
        pytest.skip("no 20news-bydate.tar.gz in $BAYES_COURSE_DATA or ../shared/data")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BAYES_COURSE_CACHE", str(tmp_path_factory.mktemp("cache")))
        return {subset: load_20newsgroups(subset, download=False) for subset in ("train", "test", "all")}


def test_corpus_sizes_and_counts_per_group(newsgroups):
    train, test, both = newsgroups["train"], newsgroups["test"], newsgroups["all"]
    assert (len(train), len(test), len(both)) == (11314, 7532, 18846)
    assert train.target_names == sorted(NEWSGROUPS_COUNTS) and len(train.target_names) == 20
    assert (train.counts()["alt.atheism"], test.counts()["alt.atheism"]) == (480, 319)
    assert (train.counts()["sci.space"], test.counts()["sci.space"]) == (593, 394)
    assert (train.counts()["talk.religion.misc"], test.counts()["talk.religion.misc"]) == (377, 251)
    for group, (n_train, n_test) in NEWSGROUPS_COUNTS.items():
        assert train.counts()[group] == n_train and test.counts()[group] == n_test
        assert both.counts()[group] == n_train + n_test
    assert sum(n for n, _ in NEWSGROUPS_COUNTS.values()) == 11314


def test_corpus_content(newsgroups):
    train, both = newsgroups["train"], newsgroups["all"]
    assert both.data[: len(train)] == train.data  # training posts first
    assert all(isinstance(d, str) and d for d in train.data[:100])
    first = train.filenames[0]
    assert first.startswith("20news-bydate-train/alt.atheism/")
    group = [f.split("/")[1] for f in train.filenames]
    assert [train.target_names[t] for t in train.target] == group
    sample = train.filenames.index("20news-bydate-train/rec.sport.hockey/52552")
    assert "Alex Zhitnik" in train.data[sample]
    # some posts are Latin-1: decoded without error, non-ASCII characters preserved
    assert any(max(map(ord, d)) > 127 for d in both.data)
    assert max(max(map(ord, d)) for d in both.data) < 256


def _tiny_archive(path, posts, compresslevel=9):
    """Write a 20news-bydate-like archive holding ``posts``: {(split, group, id): bytes}."""
    with tarfile.open(path, "w:gz", compresslevel=compresslevel) as archive:
        for (split, group, post_id), body in posts.items():
            info = tarfile.TarInfo(f"20news-bydate-{split}/{group}/{post_id}")
            info.size = len(body)
            archive.addfile(info, io.BytesIO(body))
    return path


TINY_POSTS = {
    ("train", "rec.autos", "10"): b"From: a\nSubject: cars\n\nMy car needs new brakes.",
    ("train", "rec.autos", "9"): b"From: b\n\nThe engine is loud.",
    ("train", "sci.space", "3"): b"From: c\n\nThe shuttle reached orbit. Caf\xe9 on the moon?",
    ("test", "rec.autos", "11"): b"From: d\n\nBrakes and tires.",
    ("test", "sci.space", "4"): b"From: e\n\nA launch to the moon.",
}
TINY_COUNTS = {"rec.autos": (2, 1), "sci.space": (1, 1)}


def tiny(archive):
    """Keyword arguments that make the loader accept a tiny archive (its counts and hash)."""
    return dict(expected_counts=TINY_COUNTS, sha256=datasets.file_sha256(archive))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("BAYES_COURSE_CACHE", str(folder))
    monkeypatch.setattr(datasets, "_PARSED", {})
    return folder


def test_tiny_archive_from_data_home(tmp_path, cache):
    home = tmp_path / "home"
    home.mkdir()
    archive = _tiny_archive(home / "20news-bydate.tar.gz", TINY_POSTS)
    train = load_20newsgroups("train", data_home=home, download=False, **tiny(archive))
    assert train.target_names == ["rec.autos", "sci.space"]
    assert train.target.tolist() == [0, 0, 1]
    # posts sorted by number, not by name ("9" before "10")
    assert train.filenames == ["20news-bydate-train/rec.autos/9", "20news-bydate-train/rec.autos/10",
                               "20news-bydate-train/sci.space/3"]
    assert "Café" in train.data[2]  # Latin-1 byte 0xE9
    both = load_20newsgroups("all", data_home=home, download=False, **tiny(archive))
    assert len(both) == 5 and both.counts() == {"rec.autos": 3, "sci.space": 2}


def test_loader_caches_the_parsed_corpus(tmp_path, cache, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    archive = _tiny_archive(home / "20news-bydate.tar.gz", TINY_POSTS)
    first = load_20newsgroups("test", data_home=home, download=False, **tiny(archive))
    cached = list(cache.glob("*.pickle.gz"))
    assert len(cached) == 1 and datasets.file_sha256(archive)[:16] in cached[0].name

    # a fresh process (empty memo) reads the cache, not the archive
    monkeypatch.setattr(datasets, "_PARSED", {})

    def no_parsing(path):
        raise AssertionError("the archive was parsed again")

    monkeypatch.setattr(datasets, "read_newsgroups_archive", no_parsing)
    again = load_20newsgroups("test", data_home=home, download=False, **tiny(archive))
    assert again.data == first.data and again.filenames == first.filenames

    # an archive with other bytes is parsed again
    posts = dict(TINY_POSTS)
    posts[("test", "sci.space", "4")] = b"From: e\n\nA launch to Mars."
    _tiny_archive(archive, posts)
    monkeypatch.setattr(datasets, "_PARSED", {})
    with pytest.raises(AssertionError, match="parsed again"):
        load_20newsgroups("test", data_home=home, download=False, **tiny(archive))


def test_cache_can_be_switched_off(tmp_path, cache):
    home = tmp_path / "home"
    home.mkdir()
    archive = _tiny_archive(home / "20news-bydate.tar.gz", TINY_POSTS)
    load_20newsgroups("train", data_home=home, download=False, use_cache=False, **tiny(archive))
    assert not cache.exists() or not list(cache.iterdir())


@pytest.fixture
def server(tmp_path):
    """Serve tmp_path/www on 127.0.0.1; yields (base URL, list of requested paths)."""
    root = tmp_path / "www"
    root.mkdir()
    requests = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, *args):
            requests.append(self.path)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{httpd.server_address[1]}", requests
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_download_once_from_a_local_server(tmp_path, cache, server, capsys):
    root, base, requests = server
    served = _tiny_archive(root / "20news-bydate.tar.gz", TINY_POSTS)
    url = f"{base}/20news-bydate.tar.gz"
    home = tmp_path / "downloads"
    train = load_20newsgroups("train", data_home=home, url=url, **tiny(served))
    size = served.stat().st_size / 1e6
    assert f"downloading 20news-bydate.tar.gz: {size:.1f} / {size:.1f} MB" in capsys.readouterr().err
    assert (home / "20news-bydate.tar.gz").is_file()
    assert len(train) == 3 and len(requests) == 1
    assert not list(home.glob("*.part"))  # no partial file left behind
    test = load_20newsgroups("test", data_home=home, url=url, **tiny(served))
    assert len(test) == 2 and len(requests) == 1  # no second download


def test_download_into_the_cache_folder(tmp_path, cache, server, monkeypatch):
    root, base, requests = server
    served = _tiny_archive(root / "20news-bydate.tar.gz", TINY_POSTS)
    monkeypatch.delenv("BAYES_COURSE_DATA", raising=False)
    monkeypatch.setattr(datasets, "find_newsgroups_archive",
                        lambda data_home=None: (cache / "20news-bydate.tar.gz")
                        if (cache / "20news-bydate.tar.gz").is_file() else None)
    corpus = load_20newsgroups("all", url=f"{base}/20news-bydate.tar.gz", progress=False, **tiny(served))
    assert len(corpus) == 5 and (cache / "20news-bydate.tar.gz").is_file()


def test_download_with_wrong_posts_is_rejected(tmp_path, cache, server):
    root, base, _ = server
    served = _tiny_archive(root / "20news-bydate.tar.gz", TINY_POSTS)
    home = tmp_path / "downloads"
    with pytest.raises(ValueError, match="do not match the 20news-bydate corpus.*alt.atheism: 0 instead of 480"):
        load_20newsgroups("train", data_home=home, url=f"{base}/20news-bydate.tar.gz",
                          sha256=datasets.file_sha256(served))
    assert not list(home.iterdir())                      # the bad download is not kept
    assert not cache.exists() or not list(cache.iterdir())   # nor its parsed posts


def test_download_with_wrong_checksum_leaves_nothing(tmp_path, cache, server):
    root, base, _ = server
    _tiny_archive(root / "20news-bydate.tar.gz", TINY_POSTS)
    home = tmp_path / "downloads"
    with pytest.raises(ValueError, match="SHA-256 [0-9a-f]{64}, expected one of 8f1b2514.*7be6e558.*try again"):
        load_20newsgroups("train", data_home=home, url=f"{base}/20news-bydate.tar.gz", progress=False,
                          expected_counts=TINY_COUNTS)
    assert not list(home.iterdir())
    assert not cache.exists() or not list(cache.iterdir())


def test_download_failure_leaves_nothing(tmp_path, cache, server):
    _, base, _ = server
    home = tmp_path / "downloads"
    with pytest.raises(OSError):
        load_20newsgroups("train", data_home=home, url=f"{base}/missing.tar.gz")
    assert not home.exists() or not list(home.iterdir())


def test_bad_input(tmp_path, cache):
    with pytest.raises(ValueError, match="subset must be one of"):
        load_20newsgroups("dev")
    with pytest.raises(ValueError, match="download=False"):
        load_20newsgroups("train", data_home=tmp_path / "empty", download=False)
    home = tmp_path / "broken"
    home.mkdir()
    (home / "20news-bydate.tar.gz").write_bytes(b"this is not an archive")
    with pytest.raises(ValueError, match="20news-bydate.tar.gz has SHA-256 .*delete it"):
        load_20newsgroups("train", data_home=home, download=False)
    with pytest.raises(ValueError, match="20news-bydate.tar.gz is not a readable 20news-bydate archive.*delete it"):
        load_20newsgroups("train", data_home=home, download=False, sha256=None)


def test_archive_search_order(tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    for folder in (first, second):
        folder.mkdir()
        _tiny_archive(folder / "20news-bydate.tar.gz", TINY_POSTS)
    monkeypatch.setenv("BAYES_COURSE_DATA", str(first))
    assert find_newsgroups_archive() == first / "20news-bydate.tar.gz"
    assert find_newsgroups_archive(second) == second / "20news-bydate.tar.gz"
    assert find_newsgroups_archive(tmp_path / "nowhere") is None
    monkeypatch.setenv("BAYES_COURSE_CACHE", str(tmp_path / "c"))
    assert datasets.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("BAYES_COURSE_CACHE")
    assert datasets.cache_dir() == Path.home() / ".cache" / "bayes-course"


def test_counts_check_names_the_problem():
    posts = {"train": [("sci.space", "1", "x")], "test": []}
    with pytest.raises(ValueError, match="sci.space: 1 instead of 2"):
        datasets.check_newsgroups_counts(posts, {"sci.space": (2, 0)})
    datasets.check_newsgroups_counts(posts, {"sci.space": (1, 0)})
    assert np.array_equal(datasets.TextCorpus(["a"], np.array([0]), ["g"], ["f"]).target, [0])


def test_load_network_reads_the_shipped_networks_from_any_folder(tmp_path, monkeypatch):
    from lib.datasets import load_network

    monkeypatch.chdir(tmp_path)
    sizes = {name: len(load_network(name).names) for name in ("alarm", "asia", "sachs")}
    assert sizes == {"alarm": 37, "asia": 8, "sachs": 11}
    with pytest.raises(ValueError, match="unknown network"):
        load_network("child")


def test_accepted_checksums_are_the_official_and_the_shared_archives():
    # the official archive's SHA-256 is the one scikit-learn checks when it downloads it
    twenty = pytest.importorskip("sklearn.datasets._twenty_newsgroups")
    assert twenty.ARCHIVE.checksum in datasets.NEWSGROUPS_SHA256
    readme = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "README.md"
    if readme.is_file():
        import re
        shared = re.search(r"sha256 of this archive: ([0-9a-f]{64})", readme.read_text()).group(1)
        assert shared in datasets.NEWSGROUPS_SHA256
    archive = find_newsgroups_archive()
    if archive is not None:
        assert datasets.file_sha256(archive) in datasets.NEWSGROUPS_SHA256


def _corrupt(path, where):
    data = bytearray(path.read_bytes())
    data[where] ^= 0x01
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("where", ["post", "crc", "length", "truncated"])
def test_a_damaged_archive_is_detected_even_without_the_checksum(tmp_path, cache, where):
    home = tmp_path / "home"
    home.mkdir()
    archive = _tiny_archive(home / "20news-bydate.tar.gz", TINY_POSTS, compresslevel=0)
    data = archive.read_bytes()
    if where == "post":          # stored (level 0) blocks: the post's text changes, zlib does not notice
        _corrupt(archive, data.index(b"shuttle"))
    elif where == "crc":         # the CRC-32 in the gzip trailer, after the end of the tar stream
        _corrupt(archive, len(data) - 8)
    elif where == "length":
        _corrupt(archive, len(data) - 2)
    else:
        archive.write_bytes(data[:-4])
    with pytest.raises(ValueError, match="not a readable 20news-bydate archive.*delete it"):
        load_20newsgroups("train", data_home=home, download=False, sha256=None, expected_counts=TINY_COUNTS)
    assert not cache.exists() or not list(cache.iterdir())  # nothing cached
    with pytest.raises(ValueError, match="has SHA-256"):    # and the checksum notices first
        load_20newsgroups("train", data_home=home, download=False, expected_counts=TINY_COUNTS,
                          sha256=datasets.file_sha256(_tiny_archive(tmp_path / "good.tar.gz", TINY_POSTS, 0)))


def test_failing_counts_leave_no_parsed_cache(tmp_path, cache):
    home = tmp_path / "home"
    home.mkdir()
    archive = _tiny_archive(home / "20news-bydate.tar.gz", TINY_POSTS)
    with pytest.raises(ValueError, match="sci.space: 1 instead of 2"):
        load_20newsgroups("train", data_home=home, download=False, sha256=datasets.file_sha256(archive),
                          expected_counts={"rec.autos": (2, 1), "sci.space": (2, 1)})
    assert not cache.exists() or not list(cache.iterdir())


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "header", "other pickle"])
def test_a_damaged_cache_is_detected_and_rebuilt(tmp_path, cache, monkeypatch, damage):
    home = tmp_path / "home"
    home.mkdir()
    archive = _tiny_archive(home / "20news-bydate.tar.gz", TINY_POSTS)
    first = load_20newsgroups("all", data_home=home, download=False, **tiny(archive))
    (cached,) = cache.glob("*.pickle.gz")
    good = cached.read_bytes()
    if damage == "flip":
        _corrupt(cached, len(good) // 2)
    elif damage == "truncate":
        cached.write_bytes(good[: len(good) // 2])
    elif damage == "empty":
        cached.write_bytes(b"")
    elif damage == "header":
        cached.write_bytes(b"0" * 64 + good[64:])
    else:                        # a valid checksum over a pickle of something else
        import gzip
        import hashlib
        import pickle
        body = gzip.compress(pickle.dumps(["not", "posts"]))
        cached.write_bytes(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    monkeypatch.setattr(datasets, "_PARSED", {})
    again = load_20newsgroups("all", data_home=home, download=False, **tiny(archive))
    assert again.data == first.data and again.filenames == first.filenames
    assert cached.read_bytes() == good                   # rebuilt
