#!/bin/sh
# io_kill_commit.sh MPIEXEC NP PROGRAM BACKEND DIR: a checkpoint whose commit is killed by SIGKILL
# after its directory was renamed and before latest moved (CUBECG_IO_INJECT=kill-during-commit:2,
# see io/cc_io.h; offload: on rank 0's helper thread) leaves the previous one latest and restartable.
set -u
MPIEXEC=$1 NP=$2 PROGRAM=$3 BACKEND=$4 DIR=$5
LOG="${DIR}_np${NP}.killcommit.log"
mkdir -p "$(dirname "$DIR")"
CUBECG_IO_INJECT=kill-during-commit:2 "$MPIEXEC" -n "$NP" "$PROGRAM" kill-commit-write "$BACKEND" \
  "$DIR" >"$LOG" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then
  echo "io_kill_commit: the committing rank was not killed (exit 0)"; cat "$LOG"; exit 1
fi
if ! grep -q "kill-during-commit: raising SIGKILL" "$LOG"; then
  echo "io_kill_commit: the run failed (exit $rc) but not through the injected kill:"; cat "$LOG"; exit 1
fi
echo "io_kill_commit: killed inside the commit as planned (exit $rc); checking the previous checkpoint"
exec "$MPIEXEC" -n "$NP" "$PROGRAM" kill-commit-check "$BACKEND" "$DIR"
