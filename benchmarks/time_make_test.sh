#!/bin/bash
# usage: benchmarks/time_make_test.sh NAME: a fresh clone of this repository in a 0700
# `mktemp -d` folder (../shared linked beside it), `CI=true bash .ci/run` under
# /usr/bin/time -v; every 20 s the load average, the machine's busy CPU seconds since
# the last line (both cores: 40 at most) and the run's own (cgroup). Output: /tmp/NAME.log,
# /tmp/NAME.load.
# As root with cgroup v1's cpuacct, the run is in a cgroup of its own and the log ends with
# the CPU of every process it started ("cgroup CPU"): servers, kernels, Chromium and
# sandboxes that outlive their parent included, which /usr/bin/time does not count.
# The machine's speed, before and after ("calibration"): the median CPU seconds of a fixed
# pure-Python loop over three tries (3.3-3.6 s on this VM at idle), to tell a slow machine
# from a slow suite.
repo=$(cd "$(dirname "$0")/.." && pwd)
d=$(mktemp -d) && git clone -q "$repo" "$d/c" && ln -s "$(cd "$repo/../shared" && pwd)" "$d/shared"
echo "$d" > "/tmp/$1.dir"
calibrate() { for _ in 1 2 3; do python3 -c 'import time
t = time.process_time(); s = 0
for i in range(30_000_000): s += i * i
print(round(time.process_time() - t, 2))'; done | sort -n | sed -n 2p; }
cd "$d/c" && git log --oneline -1 > "/tmp/$1.log" && uptime >> "/tmp/$1.log"
echo "calibration before: $(calibrate) s" >> "/tmp/$1.log"
cg=/sys/fs/cgroup/cpuacct/time-make-test-$1-$$
busy() { awk '/^cpu /{print int(($2 + $3 + $4 + $7 + $8) / 100)}' /proc/stat; }
( b=$(busy); u=0; while sleep 20; do
    n=$(busy); v=$(( $(cat "$cg/cpuacct.usage" 2>/dev/null || echo 0) / 1000000000 ))
    echo "$(date +%T) $(cut -d' ' -f1-3 /proc/loadavg) busy $((n - b)) run $((v - u))"; b=$n; u=$v
  done ) > "/tmp/$1.load" &
mon=$!
if mkdir -p "$cg" 2>/dev/null; then
  ( echo $BASHPID > "$cg/cgroup.procs"; exec /usr/bin/time -v env CI=true bash .ci/run ) >> "/tmp/$1.log" 2>&1
else
  /usr/bin/time -v env CI=true bash .ci/run >> "/tmp/$1.log" 2>&1
fi
echo "rc $?" >> "/tmp/$1.log"
[ -f "$cg/cpuacct.usage" ] && sleep 2 && echo "cgroup CPU $(( $(cat "$cg/cpuacct.usage") / 1000000000 )) s" >> "/tmp/$1.log"
echo "calibration after: $(calibrate) s" >> "/tmp/$1.log"
kill $mon
