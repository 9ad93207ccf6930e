#!/bin/bash
# usage (as root, cgroup v1 with cpuacct): benchmarks/cpu_of.sh NAME CMD...
# Runs CMD in its own cpuacct cgroup and prints its wall time and the CPU of every process
# it started, servers and kernels that outlive their parent included (/usr/bin/time counts
# only the children it waits for). Output: /tmp/cg.NAME.log, summary line in /tmp/cg.summary.
n=$1; shift
cg=/sys/fs/cgroup/cpuacct/cg-$n-$$; mkdir -p "$cg"
s=$(date +%s.%N)
( echo $BASHPID > "$cg/cgroup.procs"; exec "$@" ) > "/tmp/cg.$n.log" 2>&1
rc=$?
e=$(date +%s.%N)
sleep 2
echo "$n rc=$rc wall=$(echo "$e - $s" | bc)s cpu=$(echo "scale=1; $(cat "$cg/cpuacct.usage") / 1000000000" | bc)s load=$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a /tmp/cg.summary
