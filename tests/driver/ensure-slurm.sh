#!/bin/bash
# ensure-slurm.sh [--stop]: a one-node Slurm cluster of this machine (tests/mpi/slurm_cluster.sh:
# munged, slurmctld and slurmd with a generated slurm.conf, ProctrackType=proctrack/linuxproc)
# under CUBECG_SLURM_DIR (default /tmp/cubecg-slurm), for the tests that launch with srun
# (driver_signal_repeat_srun). Idempotent: a cluster of that directory that answers is left as it
# is. Prints the SLURM_CONF=... line the clients need; exit 77 with the reason when slurm-wlm or
# munge is missing or the cluster does not come up. --stop ends that cluster's daemons.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${CUBECG_SLURM_DIR:-/tmp/cubecg-slurm}
if [[ ${1:-} == --stop ]]; then
  exec bash "$here/../mpi/slurm_cluster.sh" "$dir" stop
fi
conf=$dir/slurm.conf
export PATH=$PATH:/usr/sbin
if [[ -s $conf ]] && command -v sinfo >/dev/null; then
  state=$(SLURM_CONF=$conf timeout 10 sinfo -h -o %T 2>/dev/null | head -1)
  if [[ $state == idle* || $state == mixed* || $state == alloc* ]]; then
    echo "SLURM_CONF=$conf"
    exit 0
  fi
  bash "$here/../mpi/slurm_cluster.sh" "$dir" stop # a cluster of this directory that does not answer
fi
exec bash "$here/../mpi/slurm_cluster.sh" "$dir" start
