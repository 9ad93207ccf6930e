#!/bin/bash
# usage (as root, cgroup v1 with cpuacct): benchmarks/profile_tests.sh NAME
# A fresh clone (0700 mktemp -d, ../shared linked beside it) runs `CI=true bash .ci/run`
# with the pytest plugin benchmarks/cgprof.py: the CPU of each test, every process it
# started included, and each worker's timeline. Output: /tmp/NAME.log, /tmp/NAME.load,
# /tmp/NAME.tests, and the report of `python benchmarks/cgprof.py NAME` in /tmp/NAME.report.
repo=$(cd "$(dirname "$0")/.." && pwd)
d=$(mktemp -d) && git clone -q "$repo" "$d/c" && ln -s "$(cd "$repo/../shared" && pwd)" "$d/shared"
echo "$d" > "/tmp/$1.dir"
cd "$d/c" || exit 1
mkdir -p "/sys/fs/cgroup/cpuacct/$1/main" && echo $$ > "/sys/fs/cgroup/cpuacct/$1/main/cgroup.procs"
rm -f "/tmp/$1.tests"
git log --oneline -1 > "/tmp/$1.log"
( while sleep 20; do echo "$(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)"; done ) > "/tmp/$1.load" &
mon=$!
s=$(date +%s)
CGPROF=$1 PYTHONPATH="$d/c/benchmarks" PYTEST_ADDOPTS="-p cgprof" /usr/bin/time -v env CI=true bash .ci/run >> "/tmp/$1.log" 2>&1
echo "rc $? wall $(( $(date +%s) - s )) s" >> "/tmp/$1.log"
kill $mon
.venv/bin/python benchmarks/cgprof.py "$1" > "/tmp/$1.report"
