#!/bin/bash
# io_ckpt_safety.sh MPIEXEC CUBECG PYTHON NP CASE DIR: a checkpoint directory is the user's data.
#   rerun      the same command again (without --restart) is refused (exit 2, naming --restart DIR)
#              and changes nothing; --restart DIR continues; --checkpoint-overwrite replaces
#   userfiles  a file ckpt.2, a directory ckpt.1 of the user's, a file the user put inside a
#              checkpoint: retention and --checkpoint-overwrite leave them (and say so)
#   concurrent a second job on a directory a live job holds is refused (exit 2, naming the holder's
#              host and PID) before it touches anything, the live job's temporary included; the
#              live job, stopped by SIGTERM afterwards, reports interrupted (verification not run)
#   requeue    a job killed (SIGKILL) while writing a checkpoint, run again as Slurm's requeue does:
#              the same command is refused naming the --restart command (the stale lock reported);
#              that command continues from the newest complete checkpoint and converges
#   ownership  a user's file named cubecg.lock, latest or latest.tmp, a user's file inside a
#              checkpoint this run would replace, and a same-problem rerun: each refused (exit 2)
#              before the mesh is built, with or without --checkpoint-overwrite, the file unchanged
#   killsteps  SIGKILL at each step of the commit protocol (writing, manifest written, directory
#              renamed, latest moved, inside retention): a restart continues from a complete
#              checkpoint and nothing is left half-removed
# REPEAT=N in the environment runs the case N times in a row (the 20x figure of the docs).
set -u
mpiexec=$1 cubecg=$2 python=$3 np=$4 case=$5 base=$6
export OMP_NUM_THREADS=1
fail() { echo "io_ckpt_safety.sh $case np$np: FAIL: $*"; [ -f "$base/err" ] && cat "$base/err"; exit 1; }
problem="--nx 10 --ny 9 --nz 8 --quiet"

# expect CODE PATTERN -- COMMAND...: exit CODE and a stderr line matching PATTERN (grep -E)
expect() {
  local want=$1 pattern=$2
  shift 3
  "$@" >"$base/out" 2>"$base/err"
  local code=$?
  [ "$code" -eq "$want" ] || fail "exit $code, expected $want: $*"
  [ -z "$pattern" ] || grep -qE -- "$pattern" "$base/err" || fail "no stderr line matching '$pattern': $*"
}
# the directory's content: names, sizes and the manifests' text (what a refused run must not change)
snapshot() { (cd "$1" && find . -print0 | sort -z | xargs -0 ls -ld --time-style=+ | awk '{print $1, $5, $NF}'; cat ./*/manifest.json 2>/dev/null) | grep -v cubecg.lock; }
report_field() { "$python" -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }

case_rerun() {
  local dir=$base/ck run="$mpiexec -n $np $cubecg $problem --checkpoint posix --checkpoint-dir $base/ck"
  expect 0 "" -- $run --checkpoint-every 10
  local before
  before=$(snapshot "$dir")
  expect 2 "holds ckpt\.[0-9]+ of this problem.*--restart $dir" -- $run --checkpoint-every 10
  expect 2 "continue it with --restart $dir" -- $run --checkpoint-every 5 --maxit 12
  [ "$before" = "$(snapshot "$dir")" ] || fail "a refused run changed $dir"
  [ ! -e "$dir/cubecg.lock" ] || fail "the lock outlived the runs"
  expect 0 "" -- $run --checkpoint-every 10 --restart "$dir" --report "$base/r.json"
  [ "$(report_field "$base/r.json" "r['solves'][0]['start_iteration'] > 0")" = True ] ||
    fail "the restart did not continue from the newest checkpoint"
  expect 0 "checkpoint-overwrite: removing the checkpoints of $dir newer than iteration 0" -- \
    $run --checkpoint-every 10 --checkpoint-overwrite
}

case_userfiles() {
  local dir=$base/ck run="$mpiexec -n $np $cubecg $problem --checkpoint posix --checkpoint-dir $base/ck"
  mkdir -p "$dir/ckpt.1" && echo "user data" >"$dir/ckpt.2" && echo "notes" >"$dir/ckpt.1/notes.txt"
  # maxit 12: not converged (exit 3), checkpoints 5 and 10 kept
  expect 3 "ckpt\.[12] is named like a checkpoint but is not one of cubecg's" -- $run --checkpoint-every 5 --maxit 12
  [ -f "$dir/ckpt.5/manifest.json" ] && [ -f "$dir/ckpt.10/manifest.json" ] || fail "ckpt.5 and ckpt.10 expected"
  echo "results" >"$dir/ckpt.5/my-results.csv"
  # continued to 20: retention removes ckpt.5's files and ckpt.10, keeps the user's file
  expect 3 "kept $dir/ckpt.5: it holds my-results.csv, which cubecg did not write" -- \
    $run --checkpoint-every 5 --maxit 20 --restart "$dir"
  [ "$(cat "$dir/ckpt.5/my-results.csv")" = results ] || fail "the user's file inside ckpt.5 was removed"
  [ ! -e "$dir/ckpt.5/manifest.json" ] && [ ! -e "$dir/ckpt.10" ] || fail "retention left cubecg's files"
  ls "$dir"/ckpt.5/rank.* >/dev/null 2>&1 && fail "retention left rank files in ckpt.5"
  # ckpt.5 is the user's now: a run that would checkpoint there is refused before it starts
  expect 2 "$dir/ckpt.5 is not a cubecg checkpoint, and this run \(--checkpoint-every 5\)" -- \
    $run --checkpoint-every 5 --checkpoint-overwrite --E 2
  expect 0 "removing the checkpoints in $dir" -- $run --checkpoint-every 3 --checkpoint-overwrite --E 2
  [ "$(cat "$dir/ckpt.2")" = "user data" ] || fail "the user's file ckpt.2 was removed"
  [ "$(cat "$dir/ckpt.1/notes.txt")" = notes ] || fail "the user's directory ckpt.1 was removed"
  [ "$(cat "$dir/ckpt.5/my-results.csv")" = results ] || fail "--checkpoint-overwrite removed the user's file"
}

# expect_before_work PATTERN -- COMMAND...: refused (exit 2) naming PATTERN before the mesh stage
expect_before_work() {
  expect 2 "$@"
  ! grep -q "mesh + partition" "$base/out" || fail "refused only after the mesh was built: ${*:3}"
}

case_ownership() {
  local dir=$base/ck run="$mpiexec -n $np $cubecg --nx 10 --ny 9 --nz 8 --checkpoint posix --checkpoint-dir $base/ck"
  mkdir -p "$dir"
  for name in cubecg.lock latest latest.tmp; do
    echo "the user's $name" >"$dir/$name"
    expect_before_work "$dir/$name (is|does) not" -- $run --checkpoint-every 5
    expect_before_work "$dir/$name (is|does) not" -- $run --checkpoint-every 5 --checkpoint-overwrite
    [ "$(cat "$dir/$name")" = "the user's $name" ] || fail "the user's $name was changed"
    rm "$dir/$name"
  done
  expect 0 "" -- $run --checkpoint-every 5 --quiet
  [ ! -e "$dir/cubecg.lock" ] || fail "cubecg's own lock outlived the run"
  local newest
  newest=$(cat "$dir/latest")
  expect_before_work "holds $newest of this problem" -- $run --checkpoint-every 5
  echo "mine" >"$dir/$newest/mine.txt"
  expect_before_work "$dir/$newest holds mine.txt, and this run" -- $run --checkpoint-every 5 --checkpoint-overwrite
  [ "$(cat "$dir/$newest/mine.txt")" = mine ] && [ -f "$dir/$newest/manifest.json" ] ||
    fail "a refused --checkpoint-overwrite changed $dir/$newest"
}

case_concurrent() {
  local dir=$base/ck
  # job A: only a signal ends it (tol 1e-15, no preconditioner), its lock held meanwhile
  "$mpiexec" -n "$np" "$cubecg" --nx 24 --ny 24 --nz 24 --precond none --tol 1e-15 --maxit 1000000 \
    --quiet --monitor 20 --checkpoint posix --checkpoint-dir "$dir" --checkpoint-every 1000000 \
    --report "$base/a.json" >"$base/a.out" 2>&1 &
  local a=$!
  for _ in $(seq 600); do # the solve runs: its checkpointer has taken the directory over
    grep -q "pcg-ar .*|r|/|b|" "$base/a.out" 2>/dev/null && break
    kill -0 $a 2>/dev/null || fail "job A ended early: $(cat "$base/a.out")"
    sleep 0.1
  done
  local holder
  holder=$(cat "$dir/cubecg.lock") || fail "job A took no lock"
  local pid=${holder##* pid }
  # A's checkpoint in the making (what a second job used to remove before refusing)
  mkdir -p "$dir/ckpt.77.tmp" && echo partial >"$dir/ckpt.77.tmp/rank.0.bin"
  local run="$mpiexec -n $np $cubecg $problem --checkpoint posix --checkpoint-dir $dir"
  expect 2 "in use by another cubecg job \(host [^,]+, PID $pid holds" -- $run --E 2
  expect 2 "in use by another cubecg job" -- "$mpiexec" -n "$np" "$cubecg" --nx 24 --ny 24 --nz 24 \
    --precond none --quiet --checkpoint posix --checkpoint-dir "$dir"
  [ "$(cat "$dir/ckpt.77.tmp/rank.0.bin")" = partial ] || fail "the refused job removed the live temporary"
  kill -0 $a 2>/dev/null || fail "job A died: $(cat "$base/a.out")"
  kill -TERM $a
  wait $a
  local code=$?
  [ "$code" -eq 4 ] || [ "$code" -eq 0 ] || fail "job A: exit $code after SIGTERM (Hydra: 4 or its own 0)"
  [ "$(report_field "$base/a.json" "(r['interrupted'], r['checks']['verification'], r['checks']['passed'])")" = \
    "(True, 'not run', False)" ] || fail "job A's report: $(report_field "$base/a.json" "r['checks']")"
  [ ! -e "$dir/cubecg.lock" ] || fail "job A left its lock"
  rm -rf "$dir" # the next repeat starts afresh
}

case_requeue() {
  local dir=$base/ck run="$mpiexec -n $np $cubecg $problem --checkpoint posix --checkpoint-dir $base/ck --checkpoint-every 5"
  CUBECG_IO_INJECT=kill-during-write:3 $run >"$base/out" 2>"$base/err" && fail "the injected kill did not happen"
  grep -q "kill-during-write: raising SIGKILL" "$base/err" || fail "killed otherwise"
  [ -e "$dir/cubecg.lock" ] || fail "a killed job's lock file is expected to stay (stale)"
  # the requeue: the same command
  expect 2 "holds ckpt\.10 of this problem.*continue it with --restart $dir" -- $run
  grep -q "stale lock $dir/cubecg.lock (host .*, PID [0-9]*) is no longer held" "$base/err" ||
    fail "the stale lock was not reported"
  # the command it names
  expect 0 "" -- $run --restart "$dir" --report "$base/r.json"
  [ "$(report_field "$base/r.json" "(r['solves'][0]['start_iteration'], r['checks']['passed'])")" = "(10, True)" ] ||
    fail "restart: $(report_field "$base/r.json" "r['solves'][0]['start_iteration']")"
  ls -d "$dir"/*.tmp >/dev/null 2>&1 && fail "a temporary was left: $(ls "$dir")"
  # requeued again with --restart in its command: continues from the newest, never refused
  expect 0 "" -- $run --restart "$dir"
  rm -rf "$dir"
}

case_killsteps() {
  local step start steps=("kill-during-write:3|10" "kill-at-manifest:3|10" "kill-during-commit:3|10"
    "kill-at-latest:3|15" "kill-at-retention:3|15")
  # at 4 ranks (oversubscribed in CI) the two steps the other rank counts do not cover alone
  [ "$np" -ge 4 ] && steps=("kill-at-manifest:3|10" "kill-at-retention:3|15")
  for step in "${steps[@]}"; do
    start=${step#*|} step=${step%|*}
    local dir=$base/ck_${step%%:*}
    local run="$mpiexec -n $np $cubecg $problem --checkpoint posix --checkpoint-dir $dir --checkpoint-every 5"
    CUBECG_IO_INJECT=$step $run >"$base/out" 2>"$base/err" && fail "$step: not killed"
    grep -q "${step%%:*}: raising SIGKILL" "$base/err" || fail "$step: killed otherwise"
    expect 2 "continue it with --restart $dir" -- $run
    expect 0 "" -- $run --restart "$dir" --report "$base/r.json"
    local got
    got=$(report_field "$base/r.json" "(r['solves'][0]['start_iteration'], r['checks']['passed'])")
    [ "$got" = "($start, True)" ] || fail "$step: restart (start_iteration, passed) = $got, expected ($start, True)"
    ls -d "$dir"/*.tmp >/dev/null 2>&1 && fail "$step: a temporary was left: $(ls "$dir")"
    for c in "$dir"/ckpt.*; do
      [ -f "$c/manifest.json" ] || fail "$step: $c is left without its manifest"
    done
  done
}

for i in $(seq "${REPEAT:-1}"); do
  rm -rf "$base" && mkdir -p "$base" || exit 1
  "case_$case"
  [ "${REPEAT:-1}" -gt 1 ] && echo "repeat $i: ok"
done
echo "io_ckpt_safety.sh $case np$np: PASS"
