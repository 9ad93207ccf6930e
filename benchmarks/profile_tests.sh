#!/bin/bash
# usage (as root, cgroup v1 with cpuacct): benchmarks/profile_tests.sh NAME
# benchmarks/time_make_test.sh NAME (a fresh clone's `CI=true bash .ci/run`) with the
# pytest plugin benchmarks/cgprof.py: the CPU of each test, every process it started
# included, and each worker's timeline; what no test started counts in NAME/main.
# Output: as time_make_test.sh, and /tmp/NAME.tests, /tmp/NAME.report.
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "/sys/fs/cgroup/cpuacct/$1/main" && echo $$ > "/sys/fs/cgroup/cpuacct/$1/main/cgroup.procs"
rm -f "/tmp/$1.tests"
# the plugin alone on the path (not benchmarks/, whose modules could shadow the book's _ext)
plugin=$(mktemp -d) && ln -s "$here/cgprof.py" "$plugin/cgprof.py"
CGPROF=$1 PYTHONPATH="$plugin" PYTEST_ADDOPTS="-p cgprof" bash "$here/time_make_test.sh" "$1"
"$(cat "/tmp/$1.dir")/c/.venv/bin/python" "$here/cgprof.py" "$1" > "/tmp/$1.report"
