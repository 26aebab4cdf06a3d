#!/bin/sh
# expect_stderr_contains.sh CODE PATTERN -- COMMAND...: COMMAND must exit with CODE, and (PATTERN not empty) its
# stderr must contain PATTERN (fixed string). Prints the first stderr line.
set -u
want=$1 pattern=$2
shift 3
err=$(mktemp)
"$@" >/dev/null 2>"$err"
code=$?
echo "exit $code (expected $want); stderr: $(grep -v '^  \[' "$err" | head -n 2)"
found=1
[ -z "$pattern" ] || grep -qF -- "$pattern" "$err" || found=0
rm -f "$err"
[ "$code" -eq "$want" ] || { echo "FAIL: exit code $code"; exit 1; }
[ "$found" -eq 1 ] || { echo "FAIL: stderr does not contain '$pattern'"; exit 1; }
echo "PASS"
