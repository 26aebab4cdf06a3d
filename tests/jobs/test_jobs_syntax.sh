#!/bin/bash
# test_jobs_syntax.sh REPO: every job script parses (bash -n) and the Python tools compile.
set -u
repo=$1
fail=0
for f in "$repo"/jobs/*.sh "$repo"/jobs/lib/*.sh "$repo"/jobs/slurm/*.sh "$repo"/jobs/slurm/*.sbatch \
  "$repo"/tests/jobs/test_jobs_*.sh; do
  [[ -e $f ]] || continue
  if bash -n "$f"; then echo "ok   bash -n $f"; else echo "FAIL bash -n $f"; fail=1; fi
done
shopt -s globstar # the package and its subpackages
for f in "$repo"/jobs/*.py "$repo"/jobs/cubecg_analysis/**/*.py; do
  if python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$f"; then
    echo "ok   python3 parse $f"
  else
    echo "FAIL python3 parse $f"; fail=1
  fi
done
# the scripts a user runs directly must be executable
for f in "$repo"/jobs/run-local.sh "$repo"/jobs/ensure-python.sh "$repo"/jobs/make-figures.sh \
  "$repo"/jobs/slurm/submit-sweep.sh "$repo"/jobs/slurm/submit-study.sh "$repo"/jobs/slurm/analyze.sbatch \
  "$repo"/jobs/slurm/strong-scaling.sbatch "$repo"/jobs/analyze.py "$repo"/jobs/model.py \
  "$repo"/jobs/iosweep.sh "$repo"/jobs/analyze_io.py "$repo"/jobs/slurm/iosweep.sbatch; do
  if [[ -x $f ]]; then echo "ok   executable $f"; else echo "FAIL not executable: $f"; fail=1; fi
done
exit $fail
