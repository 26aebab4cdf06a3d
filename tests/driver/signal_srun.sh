#!/bin/bash
# signal_srun.sh CUBECG PYTHON OUTDIR TARGET RUNS: signal_repeat.sh with srun --mpi=pmi2 as the
# launcher, on the Slurm that SLURM_CONF names when it answers, else on a one-node cluster of its
# own beside OUTDIR (OUTDIR.slurm; tests/mpi/slurm_cluster.sh: ports chosen from the directory's
# name, so it never meets another test's cluster), stopped when the test ends. Exit 77 (skip) with
# a loud line when slurm-wlm or munge is missing or that cluster does not come up.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cubecg=$1 python=$2 out=$3 target=$4 runs=$5
export PATH=$PATH:/usr/sbin
conf=${SLURM_CONF:-${CUBECG_SLURM_DIR:-/tmp/cubecg-slurm}/slurm.conf}
skip() {
  echo "SKIP: ======== driver_signal_repeat_srun did NOT run: $* (start one with" \
    "tests/driver/ensure-slurm.sh) ========"
  exit 77
}
command -v srun >/dev/null || skip "no srun (Debian package slurm-wlm)"
answers() {
  local state
  state=$(SLURM_CONF=$1 timeout 10 sinfo -h -o %T 2>/dev/null | head -1)
  [[ $state == idle* || $state == mixed* || $state == alloc* ]]
}
if ! [[ -s $conf ]] || ! answers "$conf"; then
  cluster=$out.slurm # beside OUTDIR, which signal_repeat.sh empties first
  line=$(bash "$here/../mpi/slurm_cluster.sh" "$cluster" start) ||
    skip "no one-node Slurm came up under $cluster: ${line:-see its logs}"
  trap 'bash "$here/../mpi/slurm_cluster.sh" "$cluster" stop >/dev/null' EXIT
  conf=${line#SLURM_CONF=}
fi
export SLURM_CONF=$conf
answers "$conf" || skip "the Slurm of $conf does not answer"
# the step's tasks inherit this environment; --kill-on-bad-exit=0: one rank's exit 4 is not a
# reason for srun to kill the other before it has written its part; no --overcommit and
# --cpu-bind=none: two ranks on one CPU busy-poll each other's reductions (250-450 ms an
# iteration here), and 10 iterations then outlast the KillWait after which srun, signalled
# itself, kills the step
"$here/signal_repeat.sh" "srun --mpi=pmi2 --cpu-bind=none --kill-on-bad-exit=0 -t 10" "$cubecg" \
  "$python" "$out" "$target" "$runs"
exit $?
