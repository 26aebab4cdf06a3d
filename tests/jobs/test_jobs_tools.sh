#!/bin/bash
# test_jobs_tools.sh REPO WORKDIR: the job tools as strict as the driver, in dry-run mode (seconds):
# submit-study.sh keeps the commas of a list: placement, takes a list of variants, refuses a bad
# placement or variant with one line, and its --help is the comment block only; a CUBECG_MPI other
# than the build's MPI is refused naming both; the Table 6 recipes of docs/study.md give the CPU
# numbers they promise.
set -u
repo=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
expect() # expect FILE REGEX WHAT
{
  if grep -Eq -- "$2" "$1"; then ok "$3"; else bad "$3: no line matches /$2/ in $1"; cat "$1"; fi
}
refused() # refused FILE RC REGEX WHAT: exit 2, one line on stderr matching REGEX
{
  if [[ $2 == 2 ]] && (($(wc -l <"$1") == 1)) && grep -Eq -- "$3" "$1"; then ok "$4"
  else bad "$4: exit $2, stderr:"; cat "$1"; fi
}
study=$repo/jobs/slurm/submit-study.sh sb=$repo/jobs/slurm/strong-scaling.sbatch
export CUBECG_RESULTS=$work/results CUBECG_BUILD=$work/nobuild
# a 2-socket node of 2 x 18 cores, 2 hardware threads each, numbered as Linux does (c + 36 k)
export CUBECG_HWLOC_INPUT="package:2 core:18 pu:2(indexes=2*36:36*1)" CUBECG_CORES_PER_NODE=36

# 1) --placements list:17,35 is one placement (its commas kept), beside inherit
bash "$study" --preset small --nodes 2 --progress on --placements inherit,list:17,35 --reserve per-rank \
  --layouts hybrid --repeat 1 --sweep t1 --dry-run >"$work/list.txt" 2>&1 || bad "list dry run exit $?"
expect "$work/list.txt" 'MPIR_CVAR_PROGRESS_THREAD_AFFINITY=17,35 CUBECG_PLACEMENT=list:17\+35 ' "list:17,35 kept whole"
expect "$work/list.txt" 'CUBECG_PLACEMENT=inherit ' "the placement before it"
expect "$work/list.txt" '2 run\(s\) \(dry run\)' "two placements, two runs"
[[ ! -e $work/results ]] && ok "dry run created nothing" || bad "dry run created $work/results"

# 2) --solver takes a list: one run per variant, each named after it
bash "$study" --preset small --nodes 2 --progress off --layouts flat --repeat 1 --solver pipecg,gropp \
  --reduction iar --sweep t2 --dry-run >"$work/solver.txt" 2>&1 || bad "solver list dry run exit $?"
expect "$work/solver.txt" '--solver pipecg --reduction iar .*_solver-pipecg\.json' "pipecg run"
expect "$work/solver.txt" '--solver gropp --reduction iar .*_solver-gropp\.json' "gropp run"
bash "$study" --preset small --nodes 2 --layouts flat --dry-run >"$work/all.txt" 2>&1
expect "$work/all.txt" '--solver all --reduction all .*_progress-off_rep1\.json' "default: every variant in one process, names unchanged"

# 3) refusals: one line, exit 2, nothing submitted
for case in "--solver pipecg,cg|--solver entry 'cg'" "--solver all,pcg|'all' cannot be combined" \
  "--solver pcg,pcg|names pcg twice" "--reduction both|--reduction 'both'" \
  "--placements list:a,b|placement 'list:a'" "--placements inherit,,free|placement ''" \
  "--placements smt,list:|placement 'list:'" "--placements=|unknown option" "--placements nowhere|placement 'nowhere'"; do
  args=${case%%|*} why=${case#*|}
  # shellcheck disable=SC2086
  bash "$study" --preset small --nodes 2 $args --dry-run >/dev/null 2>"$work/err.txt"
  refused "$work/err.txt" $? "$why" "refused: $args"
done

# 4) --help: the comment block, not the code after it
bash "$study" --help >"$work/help.txt" 2>&1 || bad "--help exit $?"
if grep -q 'set -euo\|^#' "$work/help.txt"; then bad "--help prints code or comment marks"; cat "$work/help.txt"
else ok "--help is the comment block only"; fi
expect "$work/help.txt" '--solver all\|LIST' "--help names --solver"

# 5) CUBECG_MPI against the build's MPI (cubecg-mpi.env beside the programs): refused naming both
mkdir -p "$work/mpich-build"
printf 'CUBECG_MPI=mpich\nCUBECG_MPIEXEC=/usr/bin/mpiexec.mpich\n' >"$work/mpich-build/cubecg-mpi.env"
for tool in "$sb" "$repo/jobs/run-local.sh --quick --out $work/local" "$repo/jobs/iosweep.sh --quick --out $work/io"; do
  # shellcheck disable=SC2086
  CUBECG_BUILD=$work/mpich-build CUBECG_MPI=intel CUBECG_DRY_RUN=1 bash $tool --dry-run >/dev/null 2>"$work/err.txt"
  refused "$work/err.txt" $? "CUBECG_MPI=intel, but the build in .*mpich-build is linked with mpich" \
    "CUBECG_MPI=intel over an MPICH build refused: ${tool##*/}"
done
CUBECG_BUILD=$work/mpich-build CUBECG_MPI=mpich CUBECG_LAYOUTS=flat CUBECG_PROGRESS=off CUBECG_DRY_RUN=1 \
  bash "$sb" >"$work/same.txt" 2>&1 || bad "CUBECG_MPI equal to the build's refused"
expect "$work/same.txt" 'mpiexec.mpich -n 36 ' "CUBECG_MPI equal to the build's MPI runs"

# 5b) make-figures.sh: --help is its own comment block; a bad option stops it before the analysis
bash "$repo/jobs/make-figures.sh" --help >"$work/mf-help.txt" 2>&1 || bad "make-figures.sh --help exit $?"
if grep -q '^jobs/make-figures.sh \[--out DIR\]\|^  jobs/make-figures.sh' "$work/mf-help.txt" && ! grep -q 'set -euo' "$work/mf-help.txt"; then
  ok "make-figures.sh --help"
else bad "make-figures.sh --help:"; cat "$work/mf-help.txt"; fi
bash "$repo/jobs/make-figures.sh" --bogus --out "$work/mf" >/dev/null 2>"$work/err.txt"
refused "$work/err.txt" $? "unknown option '--bogus'" "make-figures.sh --bogus refused before any figure"

# 6) the Table 6 recipes of docs/study.md on this node (2 ranks x 17 threads, hybrid): the progress
# thread of each rank on the last core of its socket (17, 35), the first cores, an SMT sibling
recipe() # recipe NAME REGEX ENV...: strong-scaling.sbatch dry run with ENV prints REGEX
{
  local name=$1 re=$2
  shift 2
  env "$@" CUBECG_LAYOUTS=hybrid CUBECG_DRY_RUN=1 bash "$sb" >"$work/recipe.txt" 2>&1 || bad "$name: exit $?"
  expect "$work/recipe.txt" "$re" "Table 6 recipe: $name"
}
recipe "last core of each socket" 'OMP_NUM_THREADS=17 .*AFFINITY=17,35 .*-bind-to user:0\+1\+.*\+17,18\+' \
  CUBECG_RESERVE=per-rank CUBECG_PROGRESS=on:free
recipe "the last cores of the node" 'OMP_NUM_THREADS=16 .*AFFINITY=32,33 ' CUBECG_RESERVE=4 CUBECG_PROGRESS=on:free
recipe "the first cores of the node" 'AFFINITY=0,1 .*-bind-to user:4\+' CUBECG_RESERVE=4 CUBECG_RESERVE_AT=first CUBECG_PROGRESS=on:free
recipe "both ends" 'AFFINITY=0,1 .*-bind-to user:2\+' CUBECG_RESERVE=4 CUBECG_RESERVE_AT=both CUBECG_PROGRESS=on:free
recipe "SMT sibling of the first compute core" 'OMP_NUM_THREADS=18 .*AFFINITY=36,54 ' CUBECG_PROGRESS=on:smt
recipe "on a compute core" 'AFFINITY=0,18 ' CUBECG_PROGRESS=on:compute
exit $fail
