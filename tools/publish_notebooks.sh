#!/usr/bin/env bash
# Publish the launch tree (`make launch-tree`) as the `notebooks` branch the launch buttons open.
#
#   tools/publish_notebooks.sh REMOTE [BRANCH]      (BRANCH defaults to notebooks)
#
# Fetches BRANCH of REMOTE, replaces its files by the launch tree ($LAUNCH_TREE, default
# _build/launch-tree) and commits on top of it, then pushes without force: history stays
# linear, so a reader's copy (nbgitpuller's clone on a hub) always merges the new commit.
# The first publish (no BRANCH on REMOTE yet) creates the branch. Nothing new: no commit.
# It refuses to publish a tree whose .gitignore would leave notebooks out of the commit.
# Extra git options (the workflow's auth header) come in $PUBLISH_GIT_CONFIG, e.g.
# "http.https://github.com/.extraheader=AUTHORIZATION: basic ...".
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 REMOTE [BRANCH]" >&2; exit 2; }
remote=$1 branch=${2:-notebooks}
tree=$(cd "${LAUNCH_TREE:-_build/launch-tree}" && pwd)
source_commit=$(git rev-parse --short HEAD 2>/dev/null || echo "a working copy")
message=${PUBLISH_MESSAGE:-"Notebooks generated from $source_commit"}
[ -f "$tree/pyproject.toml" ] || { echo "$tree is not a launch tree (make launch-tree)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run_git() {  # git with its repository in $work and the launch tree as work tree
  if [ -n "${PUBLISH_GIT_CONFIG:-}" ]; then
    git -c "$PUBLISH_GIT_CONFIG" --git-dir="$work" --work-tree="$tree" "$@"
  else
    git --git-dir="$work" --work-tree="$tree" "$@"
  fi
}
git init -q --bare "$work"
git --git-dir="$work" config core.bare false
set +e
run_git ls-remote --exit-code --heads "$remote" "refs/heads/$branch" >/dev/null
found=$?
set -e
if [ $found -eq 0 ]; then
  run_git fetch -q --depth=1 "$remote" "refs/heads/$branch"
  run_git update-ref "refs/heads/$branch" FETCH_HEAD
  run_git symbolic-ref HEAD "refs/heads/$branch"
elif [ $found -eq 2 ]; then
  echo "$remote has no branch $branch: this publish creates it"
  run_git symbolic-ref HEAD "refs/heads/$branch"
else
  echo "cannot read $remote" >&2
  exit 1
fi

run_git add -A   # the index starts empty: it becomes exactly the launch tree
ignored=$(run_git ls-files --others --ignored --exclude-standard -- '*.ipynb' ':!:**/.ipynb_checkpoints/**')
if [ -n "$ignored" ]; then
  echo "the launch tree's .gitignore leaves these notebooks out of the branch:" >&2
  echo "$ignored" | head -20 >&2
  exit 1
fi
if [ $found -eq 0 ] && run_git diff --cached --quiet HEAD; then
  echo "$branch of $remote already holds this launch tree: nothing to publish"
  exit 0
fi
run_git -c user.name="${GIT_AUTHOR_NAME:-course-bot}" \
        -c user.email="${GIT_AUTHOR_EMAIL:-course-bot@users.noreply.github.com}" commit -q -m "$message"
run_git push -q "$remote" "HEAD:refs/heads/$branch"
echo "published $(run_git rev-parse --short HEAD) to $branch of $remote"
