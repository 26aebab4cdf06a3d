#!/usr/bin/env bash
# slurm_cluster.sh DIR start|stop: a one-node Slurm cluster of this machine for the batch tests,
# all of it under DIR (munge key, socket and logs, slurm.conf, spool and state): munged with a key
# from mungekey, slurmctld and slurmd on ports of their own. start prints the SLURM_CONF line the
# clients need and exits 77 (ctest's skip code) with the reason when Slurm or munge is missing or
# does not come up. Debian packages: slurm-wlm, munge.
set -u
dir=$1 action=$2
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
conf=$dir/slurm.conf
skip()
{
  echo "SKIP: $*"
  exit 77
}

if [[ $action == stop ]]; then
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munged.pid"; do
    [[ -s $pidfile ]] && kill "$(cat "$pidfile")" 2>/dev/null
  done
  # a daemon whose pid file was not written yet: the ones started with this cluster's files
  for proc in /proc/[0-9]*; do
    if tr '\0' ' ' 2>/dev/null <"$proc/cmdline" | grep -qE "^(slurmd|slurmctld|munged) .*$dir/"; then
      kill "${proc#/proc/}" 2>/dev/null
    fi
  done
  sleep 1
  exit 0
fi

for program in mungekey munged slurmctld slurmd sbatch scontrol sinfo; do
  command -v "$program" >/dev/null || PATH=$PATH:/usr/sbin command -v "$program" >/dev/null ||
    skip "$program not found (Debian packages slurm-wlm and munge: ./setup.sh installs them)"
done
export PATH=$PATH:/usr/sbin
[[ $(id -u) -eq 0 ]] || skip "the one-node cluster runs its daemons as root (slurmd needs it)"

mkdir -p "$dir/munge" "$dir/spool" "$dir/state" "$dir/log"
chmod 700 "$dir/munge"
[[ -s $dir/munge/munge.key ]] || mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null 2>&1 ||
  skip "mungekey could not create a key"
chmod 600 "$dir/munge/munge.key"
socket=$dir/munge/munge.socket
munged --force --key-file="$dir/munge/munge.key" --socket="$socket" --pid-file="$dir/munged.pid" \
  --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" >/dev/null 2>&1 ||
  skip "munged did not start (see $dir/log/munged.log)"

host=$(hostname -s)
cpus=$(nproc --all)
# ports of this cluster: a block above the default 6817/6818 chosen from the directory's name, so
# two build folders' tests do not meet
base=$((17000 + $(cksum <<<"$dir" | cut -d' ' -f1) % 2000 * 2))
cat >"$conf" <<EOF
ClusterName=cubecg-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$base
SlurmdPort=$((base + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobRequeue=1
MinJobAge=600
KillWait=5
InactiveLimit=0
EOF
cat >>"$conf" <<EOF
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
export SLURM_CONF=$conf
slurmctld -f "$conf" -i >/dev/null 2>&1 || skip "slurmctld did not start (see $dir/log/slurmctld.log)"
slurmd -f "$conf" >/dev/null 2>&1 || skip "slurmd did not start (see $dir/log/slurmd.log)"
for ((i = 0; i < 60; i++)); do
  state=$(sinfo -h -o %T 2>/dev/null | head -1)
  [[ $state == idle* || $state == mixed* ]] && break
  sleep 1
done
[[ $state == idle* || $state == mixed* ]] ||
  skip "the node is '$state' after 60 s (see $dir/log/slurmctld.log, slurmd.log)"
echo "SLURM_CONF=$conf"
