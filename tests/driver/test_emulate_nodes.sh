#!/usr/bin/env bash
# test_emulate_nodes.sh REPO WORK: jobs/run-local.sh --emulate-nodes N, dry-run.
# Runs of 2 ranks go to two emulated nodes of 1 rank (fork launcher, unbound, no OMP_PROC_BIND
# pinning them to one core), 1-rank runs stay on one node, report names say "2nodes", and a bad N
# is refused with exit 2 naming the value.
set -u
repo=$1 work=$2
fail=0
rm -rf "$work" && mkdir -p "$work"
CUBECG_MAX_CORES=2 bash "$repo/jobs/run-local.sh" --quick --dry-run --emulate-nodes 2 --out "$work/r" >"$work/dry.txt" 2>&1 ||
  { echo "FAIL dry-run exit $?"; cat "$work/dry.txt"; exit 1; }
emulated=$(grep -c -- '-n 2 -bind-to none -launcher fork -hosts node1:1,node2:1 ' "$work/dry.txt")
two=$(grep -c -- 'mpiexec.mpich -n 2 ' "$work/dry.txt")
one=$(grep -- 'mpiexec.mpich -n 1 ' "$work/dry.txt" | grep -c -- '-launcher fork')
echo "2-rank launches: $two, emulated over node1:1,node2:1: $emulated; 1-rank launches emulated: $one"
((two > 0 && emulated == two)) || { echo "FAIL not every 2-rank run is spread over 2 nodes"; fail=1; }
((one == 0)) || { echo "FAIL a 1-rank run was given the fork launcher"; fail=1; }
if grep -- '-launcher fork' "$work/dry.txt" | grep -q 'OMP_PROC_BIND=close'; then
  echo "FAIL emulated runs keep OMP_PROC_BIND=close (every node's thread 0 on the same core)"; fail=1
fi
named=$(grep -- '-launcher fork' "$work/dry.txt" | grep -c -- '_2nodes[._]')
((named == emulated)) || { echo "FAIL emulated report names lack _2nodes ($named of $emulated)"; fail=1; }
for bad in 0 x -1; do
  out=$(bash "$repo/jobs/run-local.sh" --dry-run --emulate-nodes "$bad" 2>&1)
  code=$?
  if [[ $code -ne 2 ]] || ! grep -q -- "--emulate-nodes '$bad'" <<<"$out"; then
    echo "FAIL --emulate-nodes $bad: exit $code, '$out'"; fail=1
  fi
done
((fail == 0)) && echo PASS
exit $fail
