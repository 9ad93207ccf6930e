"""Loaders for the data sets of the course.

The 20 Newsgroups corpus (Chapter 5, "Learning to classify text") is too big to ship
with the course. :func:`load_20newsgroups` finds the standard ``20news-bydate`` archive
in this order:

1. ``data_home`` when it is given (the archive is downloaded there if it is missing);
2. the folder named by the environment variable ``BAYES_COURSE_DATA`` (the Makefile
   sets it to ``../shared/data`` seen from the project root);
3. ``../shared/data`` beside the project folder (a checkout next to the shared data);
4. the cache folder (``$BAYES_COURSE_CACHE``, default ``~/.cache/bayes-course``),
   where the official archive is downloaded once when it is not there yet.

Checks, in order: the archive's SHA-256 must be one of :data:`NEWSGROUPS_SHA256` (the
official archive, or the course's re-packed copy of it) before anything is parsed; the
whole gzip stream is read, so a damaged archive fails its CRC check instead of loading
altered posts; the number of posts per group and subset must equal
:data:`NEWSGROUPS_COUNTS`. A download goes to a temporary file that only becomes the
archive once it has passed the checksum, so a failed download or check leaves nothing
behind. The parsed posts are kept in the cache folder as a compressed pickle named after
the archive's SHA-256 and carrying a SHA-256 of its own bytes; a damaged cache file is
detected, deleted and rebuilt.
"""
import gzip
import hashlib
import os
import pickle
import sys
import tarfile
import tempfile
import time
import urllib.request
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

NEWSGROUPS_URL = "http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz"
NEWSGROUPS_ARCHIVE = "20news-bydate.tar.gz"

#: SHA-256 of the archives that are accepted.
NEWSGROUPS_SHA256 = {
    # the official archive (the one scikit-learn's fetch_20newsgroups checks)
    "8f1b2514ca22a5ade8fbb9cfa5727df95fa587f4c87b786e15c759fa66d95610": "official archive",
    # the course's re-packed copy in ../shared/data (same posts, different bytes)
    "7be6e5585b4d19176f33a9bb43d88a9efe6476aa0a63d6c372dba36d2fcee0a7": "course's re-packed copy",
}

#: Number of posts per group in the canonical 20news-bydate split, as (train, test).
NEWSGROUPS_COUNTS = {
    "alt.atheism": (480, 319),
    "comp.graphics": (584, 389),
    "comp.os.ms-windows.misc": (591, 394),
    "comp.sys.ibm.pc.hardware": (590, 392),
    "comp.sys.mac.hardware": (578, 385),
    "comp.windows.x": (593, 395),
    "misc.forsale": (585, 390),
    "rec.autos": (594, 396),
    "rec.motorcycles": (598, 398),
    "rec.sport.baseball": (597, 397),
    "rec.sport.hockey": (600, 399),
    "sci.crypt": (595, 396),
    "sci.electronics": (591, 393),
    "sci.med": (594, 396),
    "sci.space": (593, 394),
    "soc.religion.christian": (599, 398),
    "talk.politics.guns": (546, 364),
    "talk.politics.mideast": (564, 376),
    "talk.politics.misc": (465, 310),
    "talk.religion.misc": (377, 251),
}

_SUBSETS = ("train", "test", "all")
_CACHE_FORMAT = 2  # bump when the parsed-corpus layout changes


@dataclass
class TextCorpus:
    """A labelled collection of documents.

    Used in: Chapter 5, section "The 20 Newsgroups corpus".

    Attributes
    ----------
    data : list of str
        The documents (whole Usenet posts, headers included).
    target : numpy.ndarray of int
        ``target[i]`` is the index in ``target_names`` of document ``i``'s class.
    target_names : list of str
        The class names, sorted alphabetically.
    filenames : list of str
        Where each document lives inside the archive (``split/group/id``).
    """

    data: list
    target: np.ndarray
    target_names: list
    filenames: list

    def __len__(self):
        return len(self.data)

    def counts(self):
        """Number of documents per class, as a ``{name: count}`` dict."""
        per_class = np.bincount(self.target, minlength=len(self.target_names))
        return dict(zip(self.target_names, per_class.tolist()))


def cache_dir():
    """The folder for downloads and parsed corpora.

    ``$BAYES_COURSE_CACHE`` when it is set, otherwise ``~/.cache/bayes-course``.
    Used in: Chapter 5 (through :func:`load_20newsgroups`).
    """
    env = os.environ.get("BAYES_COURSE_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "bayes-course"


def find_newsgroups_archive(data_home=None):
    """Path of a local ``20news-bydate.tar.gz``, or ``None`` when there is none.

    Looks in ``data_home`` only when it is given; otherwise in ``$BAYES_COURSE_DATA``,
    then in ``../shared/data`` beside the project folder, then in :func:`cache_dir`.
    Used in: Chapter 5 (through :func:`load_20newsgroups`).
    """
    if data_home is not None:
        folders = [Path(data_home).expanduser()]
    else:
        folders = []
        if os.environ.get("BAYES_COURSE_DATA"):
            folders.append(Path(os.environ["BAYES_COURSE_DATA"]).expanduser())
        folders.append(Path(__file__).resolve().parents[1].parent / "shared" / "data")
        folders.append(cache_dir())
    for folder in folders:
        if (folder / NEWSGROUPS_ARCHIVE).is_file():
            return folder / NEWSGROUPS_ARCHIVE
    return None


def file_sha256(path):
    """The SHA-256 of a file's bytes, as a hex string."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _verify_sha256(path, sha256, fix):
    """The file's SHA-256; ``ValueError`` unless it is one of ``sha256`` (None: no check)."""
    found = file_sha256(path)
    if sha256 is None:
        return found
    accepted = [sha256] if isinstance(sha256, str) else list(sha256)
    if found not in accepted:
        raise ValueError(f"{path} has SHA-256 {found}, expected one of {', '.join(accepted)}: "
                         f"the file is damaged or is not the 20news-bydate archive; {fix}")
    return found


def _progress(done, total, name, out):
    size = f"{done / 1e6:.1f} / {total / 1e6:.1f} MB" if total else f"{done / 1e6:.1f} MB"
    print(f"\rdownloading {name}: {size}", end="", file=out, flush=True)


def download_file(url, dest, sha256=None, timeout=60, progress=True):
    """Download ``url`` to the file ``dest``, checking its SHA-256 when ``sha256`` (a hex
    digest or a collection of accepted ones) is given.

    The bytes go to a temporary file beside ``dest`` that is renamed only once the
    download is complete and checked: a failed download or check leaves nothing.
    ``progress`` prints the megabytes received so far to standard error.
    Used in: Chapter 5 (through :func:`load_20newsgroups`).
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=dest.name, suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as response:
            total, done, shown = int(response.headers.get("Content-Length") or 0), 0, 0.0
            while chunk := response.read(1 << 16):
                out.write(chunk)
                done += len(chunk)
                if progress and time.monotonic() - shown > 0.2:
                    _progress(done, total, dest.name, sys.stderr)
                    shown = time.monotonic()
            if progress:
                _progress(done, total, dest.name, sys.stderr)
                print(file=sys.stderr)
        if total and done != total:
            raise OSError(f"download of {url} stopped after {done} of {total} bytes; try again")
        _verify_sha256(tmp, sha256, f"the download from {url} was not kept; try again later "
                                   "or download the archive by hand")
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return dest


def read_newsgroups_archive(path):
    """Parse a 20news-bydate archive into ``{"train": [...], "test": [...]}``.

    Each list holds ``(group, post_id, text)`` triples sorted by group and then by
    post number. Posts are decoded as Latin-1, which never fails and is right for
    the few posts that are not plain ASCII. The whole gzip stream is read, up to its
    trailer, so that a damaged archive fails its CRC check.
    Used in: Chapter 5 (through :func:`load_20newsgroups`).
    """
    posts = {"train": [], "test": []}
    try:
        with gzip.open(path, "rb") as stream:
            with tarfile.open(fileobj=stream, mode="r|") as archive:
                for member in archive:
                    if not member.isfile():
                        continue
                    parts = member.name.strip("./").split("/")
                    if len(parts) != 3 or not parts[0].startswith("20news-bydate-"):
                        continue
                    split = parts[0].removeprefix("20news-bydate-")
                    if split not in posts:
                        continue
                    text = archive.extractfile(member).read().decode("latin-1")
                    posts[split].append((parts[1], parts[2], text))
            while stream.read(1 << 20):        # the rest, up to the CRC in the trailer
                pass
    except (tarfile.TarError, EOFError, OSError, zlib.error) as err:
        raise ValueError(f"{path} is not a readable 20news-bydate archive ({type(err).__name__}: "
                         f"{err}); delete it and load again to download a fresh copy") from err
    for split in posts:
        posts[split].sort(key=lambda p: (p[0], int(p[1]) if p[1].isdigit() else p[1]))
    return posts


def check_newsgroups_counts(posts, expected=NEWSGROUPS_COUNTS):
    """Raise ``ValueError`` unless the posts per group and split equal ``expected``.

    ``expected`` maps group names to ``(n_train, n_test)``.
    Used in: Chapter 5 (through :func:`load_20newsgroups`).
    """
    for i, split in enumerate(("train", "test")):
        found = {}
        for group, _, _ in posts[split]:
            found[group] = found.get(group, 0) + 1
        want = {group: counts[i] for group, counts in expected.items() if counts[i]}
        if found != want:
            wrong = sorted(set(found) | set(want))
            wrong = [g for g in wrong if found.get(g, 0) != want.get(g, 0)]
            details = ", ".join(f"{g}: {found.get(g, 0)} instead of {want.get(g, 0)}" for g in wrong[:5])
            raise ValueError(f"the {split} posts of the archive do not match the 20news-bydate corpus ({details})")


# ---------------------------------------------------------------- the parsed-posts cache
# A cache file is one line "<sha256 of the rest>\n" followed by a gzip-compressed pickle.
def _parsed_cache_path(archive_sha256):
    return cache_dir() / f"20news-bydate-{archive_sha256[:16]}.v{_CACHE_FORMAT}.pickle.gz"


def _read_cache(path):
    """The posts stored in ``path``, or ``None`` if there is no such file or it is damaged
    (a damaged file is deleted, so that it is rebuilt)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    head, _, body = raw.partition(b"\n")
    try:
        if head.decode("ascii") != hashlib.sha256(body).hexdigest():
            raise ValueError("checksum")
        posts = pickle.loads(gzip.decompress(body))
        if not (isinstance(posts, dict) and set(posts) == {"train", "test"}):
            raise ValueError("layout")
        return posts
    except (ValueError, UnicodeDecodeError, OSError, EOFError, zlib.error, pickle.UnpicklingError):
        path.unlink(missing_ok=True)
        return None


def _write_cache(path, posts):
    body = gzip.compress(pickle.dumps(posts, protocol=pickle.HIGHEST_PROTOCOL), compresslevel=1, mtime=0)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".part")
        with os.fdopen(fd, "wb") as f:
            f.write(hashlib.sha256(body).hexdigest().encode("ascii") + b"\n" + body)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache folder only costs speed


_PARSED = {}  # parsed posts already read in this process, by archive path, size and time


def _load_posts(archive, sha256, expected_counts, use_cache):
    """Check and parse ``archive`` (or read its parsed posts from the cache)."""
    stat = Path(archive).stat()
    key = (str(Path(archive).resolve()), stat.st_size, stat.st_mtime_ns, str(sha256), str(expected_counts))
    if use_cache and key in _PARSED:
        return _PARSED[key]
    fix = "delete it and load again to download a fresh copy (or pass sha256=None to skip this check)"
    digest = _verify_sha256(archive, sha256, fix)
    cached = _parsed_cache_path(digest) if use_cache else None
    posts = _read_cache(cached) if cached is not None else None
    if posts is None:
        posts = read_newsgroups_archive(archive)
        if expected_counts is not None:
            check_newsgroups_counts(posts, expected_counts)
        if cached is not None:
            _write_cache(cached, posts)
    elif expected_counts is not None:
        check_newsgroups_counts(posts, expected_counts)
    if use_cache:
        _PARSED.clear()
        _PARSED[key] = posts
    return posts


def load_20newsgroups(subset="train", data_home=None, *, url=NEWSGROUPS_URL, download=True,
                      use_cache=True, expected_counts=NEWSGROUPS_COUNTS, sha256=tuple(NEWSGROUPS_SHA256),
                      progress=True):
    """Load the 20 Newsgroups corpus (20news-bydate split) as a :class:`TextCorpus`.

    Used in: Chapter 5, section "The 20 Newsgroups corpus".

    Parameters
    ----------
    subset : {"train", "test", "all"}
        The 11,314 training posts, the 7,532 test posts (written later in time), or all
        18,846 posts (training posts first).
    data_home : path, optional
        Folder holding (or receiving) ``20news-bydate.tar.gz``. By default the archive
        is looked for as described in the module docstring.
    url : str
        Where to download the archive from when there is no local copy.
    download : bool
        Whether a missing archive may be downloaded.
    use_cache : bool
        Keep (and reuse) the parsed posts in :func:`cache_dir`.
    expected_counts : dict or None
        ``{group: (n_train, n_test)}`` that the posts must match; ``None`` skips the check.
    sha256 : str, collection of str, or None
        The accepted SHA-256 digests of the archive (default: :data:`NEWSGROUPS_SHA256`);
        ``None`` skips the check (the gzip CRC and the counts are still checked).
    progress : bool
        Show the progress of a download on standard error.

    Examples
    --------
    >>> train = load_20newsgroups("train")  # doctest: +SKIP
    >>> len(train), train.target_names[0]  # doctest: +SKIP
    (11314, 'alt.atheism')
    """
    if subset not in _SUBSETS:
        raise ValueError(f"subset must be one of {_SUBSETS}, got {subset!r}")
    archive = find_newsgroups_archive(data_home)
    if archive is None:
        folder = Path(data_home).expanduser() if data_home is not None else cache_dir()
        if not download:
            raise ValueError(f"no {NEWSGROUPS_ARCHIVE} in {folder} and download=False")
        archive = download_file(url, folder / NEWSGROUPS_ARCHIVE, sha256=sha256, progress=progress)
        try:
            posts = _load_posts(archive, sha256, expected_counts, use_cache)
        except ValueError:
            archive.unlink(missing_ok=True)  # do not keep a bad download
            raise
    else:
        posts = _load_posts(archive, sha256, expected_counts, use_cache)

    splits = ("train", "test") if subset == "all" else (subset,)
    chosen = [(split, post) for split in splits for post in posts[split]]
    names = sorted({group for split in posts.values() for group, _, _ in split})
    index = {name: i for i, name in enumerate(names)}
    return TextCorpus(
        data=[text for _, (_, _, text) in chosen],
        target=np.array([index[group] for _, (group, _, _) in chosen], dtype=np.int64),
        target_names=names,
        filenames=[f"20news-bydate-{split}/{group}/{post_id}" for split, (group, post_id, _) in chosen],
    )


# ----------------------------------------------------------------------------------------
# Small data sets shipped in data/ (Chapter 4, "Naive Bayes and Bayes classifiers").
# Provenance of both: data/README.md.
def _read_small_csv(name):
    import csv

    path = Path(__file__).resolve().parent / "data" / name
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def load_playtennis(variant="seed"):
    """The 14-day PlayTennis (weather) data: ``X`` (14, 4) strings, ``y``, attribute names.

    ``variant="classic"`` is the data of Quinlan (1986) and Mitchell (1997, table 3.2);
    ``variant="seed"`` differs in one row (day 12 has temperature ``cool`` instead of
    ``mild``) and reproduces the probability table of the source notes. Attributes:
    outlook, temp, humidity, windy; class ``play`` is ``good`` or ``bad``.
    Used in: Chapter 4, section "A worked example".

    Examples
    --------
    >>> X, y, names = load_playtennis()
    >>> X.shape, names
    ((14, 4), ['outlook', 'temp', 'humidity', 'windy'])
    """
    files = {"seed": "playtennis_seed.csv", "classic": "playtennis_classic.csv"}
    if variant not in files:
        raise ValueError(f"variant must be 'seed' or 'classic', got {variant!r}")
    header, rows = _read_small_csv(files[variant])
    table = np.array(rows, dtype=object)
    return table[:, 1:5], table[:, 5].astype(str), header[1:5]


def load_iris_uci(columns=("petal_length", "petal_width")):
    """Fisher's iris data as in the UCI repository (150 rows): ``X``, ``y``, column names.

    The UCI copy differs from Fisher's paper (and from scikit-learn's ``load_iris``)
    in rows 35 and 38 (1-based); see data/README.md. ``columns`` selects measurements
    (default petal length and width, the "Iris2" data); ``y`` holds the species names
    ``Iris-setosa``, ``Iris-versicolor``, ``Iris-virginica``.
    Used in: Chapter 4, section "Gaussian classes: Iris2".
    """
    header, rows = _read_small_csv("iris_uci.csv")
    columns = list(columns)
    unknown = [c for c in columns if c not in header[:4]]
    if unknown or not columns:
        raise ValueError(f"unknown iris columns {unknown}; choose from {header[:4]}")
    table = np.array(rows, dtype=object)
    X = table[:, [header.index(c) for c in columns]].astype(float)
    return X, table[:, 4].astype(str), columns


NETWORKS = ("alarm", "asia", "sachs")


def load_network(name):
    """A standard Bayesian network shipped in ``data/networks/`` as a ``lib.bn.BayesNet``.

    ``name`` is ``"alarm"`` (37 variables), ``"asia"`` (8) or ``"sachs"`` (11): the bnlearn
    repository's BIF files as packaged by pgmpy (provenance: data/README.md). The path is
    found from the package, so it works from any working folder.
    Used in: Chapter 6, sections on variable elimination and structure learning.

    Examples
    --------
    >>> len(load_network("asia").names)
    8
    """
    from lib.bn import read_bif

    if name not in NETWORKS:
        raise ValueError(f"unknown network {name!r}; choose from {NETWORKS}")
    return read_bif(Path(__file__).resolve().parent / "data" / "networks" / f"{name}.bif.gz")


def heart_disease_network():
    """A heart-disease network shaped like Figure 20.10 of Russell & Norvig (2010): three
    causes (Smoking, Diet, Exercise) -> HeartDisease -> three symptoms, every variable
    with the states low, mid, high (78 free parameters). The numbers are ours (the book
    gives none): HeartDisease's state follows the sum of the causes' codes (0 to 6),
    ``P(HD = k) proportional to exp(-0.75 (s - 3k)^2)`` for ``k = 0, 1, 2``, and each
    symptom matches HeartDisease's state with probability 0.6 to 0.8.
    Used in: Chapter 7, section "Structural EM with a hidden variable".

    Examples
    --------
    >>> heart_disease_network().n_parameters()
    78
    """
    from lib.bn import BayesNet

    three = ["low", "mid", "high"]
    causes = ["Smoking", "Diet", "Exercise"]
    s = np.add.outer(np.add.outer(np.arange(3), np.arange(3)), np.arange(3))
    hd = np.exp(-0.75 * (s[..., None] - np.array([0, 3, 6])) ** 2)
    symptoms = [[[.8, .15, .05], [.15, .7, .15], [.05, .15, .8]],
                [[.7, .2, .1], [.2, .6, .2], [.1, .2, .7]],
                [[.75, .2, .05], [.1, .8, .1], [.05, .2, .75]]]
    return BayesNet([(c, three, [], [1 / 3] * 3) for c in causes]
                    + [("HeartDisease", three, causes, hd / hd.sum(axis=-1, keepdims=True))]
                    + [(f"Symptom{k}", three, ["HeartDisease"], t) for k, t in enumerate(symptoms, 1)])
