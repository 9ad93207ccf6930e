#!/bin/bash
# usage: benchmarks/time_make_test.sh NAME: a fresh clone of this repository in a 0700
# `mktemp -d` folder (../shared linked beside it), `CI=true bash .ci/run` under
# /usr/bin/time -v, the load average every 20 s. Output: /tmp/NAME.log, /tmp/NAME.load.
repo=$(cd "$(dirname "$0")/.." && pwd)
d=$(mktemp -d) && git clone -q "$repo" "$d/c" && ln -s "$(cd "$repo/../shared" && pwd)" "$d/shared"
echo "$d" > "/tmp/$1.dir"
cd "$d/c" && git log --oneline -1 > "/tmp/$1.log" && uptime >> "/tmp/$1.log"
( while sleep 20; do echo "$(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)"; done ) > "/tmp/$1.load" &
mon=$!
/usr/bin/time -v env CI=true bash .ci/run >> "/tmp/$1.log" 2>&1
echo "rc $?" >> "/tmp/$1.log"
kill $mon
