#!/usr/bin/env bash
# Publish the built website (GitHub Pages, the gh-pages branch) with ghp-import, never a
# build that shows the solutions.
#
#   tools/publish_site.sh [--check] [SITE]      (SITE defaults to _build/html; make publish)
#
# Refuses, before anything is pushed, a folder that is not a built site or that carries the
# instructor edition's marker INSTRUCTOR_EDITION (written by _ext/edition.py: its exercise
# pages show the solutions; `make book EDITION=instructor` builds into _build/instructor).
# --check: only the check (what .github/workflows/publish.yml runs before its upload).
set -euo pipefail
check_only=0
[ "${1:-}" = "--check" ] && { check_only=1; shift; }
[ $# -le 1 ] || { echo "usage: $0 [--check] [SITE]" >&2; exit 2; }
site=${1:-_build/html}
[ -f "$site/index.html" ] || { echo "$site is not a built site (no index.html): make book" >&2; exit 2; }
if [ -e "$site/INSTRUCTOR_EDITION" ]; then
  echo "refusing to publish $site: it is the instructor edition (its exercise pages show the solutions)." >&2
  echo "Build the student edition (make book) and publish _build/html." >&2
  sed 's/^/  /' "$site/INSTRUCTOR_EDITION" >&2
  exit 1
fi
[ $check_only = 1 ] && { echo "$site is a student edition: it may be published"; exit 0; }
ghp=$(command -v ghp-import || echo "$(dirname "$0")/../.venv/bin/ghp-import")
[ -x "$ghp" ] || { echo "ghp-import is not installed: .venv/bin/pip install ghp-import" >&2; exit 2; }
"$ghp" -n -p -f "$site"
