#!/bin/bash
# usage (as root, cgroup v1 with cpuacct): benchmarks/profile_make_test.sh NAME [BOOK_JOBS]
# A fresh clone; venv, lint and browser assets first; then the four lines of `make test`
# side by side (unit at nice 10, slow, browser-lab, site), each in its own cpuacct cgroup:
# wall and CPU per line -> /tmp/NAME.prof, each line's output in /tmp/NAME.LINE.log.
repo=$(cd "$(dirname "$0")/.." && pwd)
d=$(mktemp -d) && git clone -q "$repo" "$d/c" && ln -s "$(cd "$repo/../shared" && pwd)" "$d/shared"
echo "$d" > "/tmp/$1.dir"
cd "$d/c" || exit 1
make lint > "/tmp/$1.pre.log" 2>&1 && make browser-assets >> "/tmp/$1.pre.log" 2>&1
( while sleep 20; do echo "$(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)"; done ) > "/tmp/$1.load" &
mon=$!
t0=$(date +%s)
for line in unit slow browser-lab site; do
  cg=/sys/fs/cgroup/cpuacct/prof-$1-$line; mkdir -p "$cg"
  ( echo $BASHPID > "$cg/cgroup.procs"
    s=$(date +%s)
    if [ $line = unit ]; then make --no-print-directory UNIT_NICE="nice -n 10" unit > "/tmp/$1.$line.log" 2>&1
    else make --no-print-directory BOOK_JOBS="${2:-3}" $line > "/tmp/$1.$line.log" 2>&1; fi
    rc=$?; e=$(date +%s)
    echo "$line rc=$rc start=+$((s - t0))s wall=$((e - s))s cpu=$(( $(cat "$cg/cpuacct.usage") / 1000000000 ))s" >> "/tmp/$1.prof" ) &
done
wait
kill $mon
echo "total wall $(( $(date +%s) - t0 ))s" >> "/tmp/$1.prof"
