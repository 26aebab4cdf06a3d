#!/bin/sh
# io_kill.sh MPIEXEC NP PROGRAM BACKEND DIR: a checkpoint killed by SIGKILL in the middle of its
# write (CUBECG_IO_INJECT=kill-during-write:2, see io/cc_io.h) leaves the previous one restartable.
set -u
MPIEXEC=$1 NP=$2 PROGRAM=$3 BACKEND=$4 DIR=$5
LOG="${DIR}_np${NP}.kill.log"
mkdir -p "$(dirname "$DIR")"
CUBECG_IO_INJECT=kill-during-write:2 "$MPIEXEC" -n "$NP" "$PROGRAM" kill-write "$BACKEND" "$DIR" \
  >"$LOG" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then
  echo "io_kill: the writer was not killed (exit 0)"; cat "$LOG"; exit 1
fi
if ! grep -q "raising SIGKILL" "$LOG"; then
  echo "io_kill: the writer failed (exit $rc) but not through the injected kill:"; cat "$LOG"; exit 1
fi
echo "io_kill: writer killed as planned (exit $rc); checking the previous checkpoint"
exec "$MPIEXEC" -n "$NP" "$PROGRAM" kill-check "$BACKEND" "$DIR"
