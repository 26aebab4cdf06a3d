#!/usr/bin/env bash
# expect_error.sh PATTERN OUTFILE -- COMMAND...: COMMAND must exit non-zero (2 = bad input), print a
# first stderr line matching PATTERN, and leave OUTFILE (the report it was asked to write) absent.
# With EXPECT_EXIT set in the environment the exit code must be exactly that.
set -u
pattern=$1 outfile=$2
shift 3
rm -f "$outfile"
err=$(mktemp)
"$@" >/dev/null 2>"$err"
code=$?
first=$(head -n 1 "$err")
rm -f "$err"
echo "exit $code; first stderr line: $first"
[ "$code" -ne 0 ] || { echo "FAIL: exit code 0"; exit 1; }
[ -z "${EXPECT_EXIT:-}" ] || [ "$code" -eq "$EXPECT_EXIT" ] ||
  { echo "FAIL: exit code $code, expected $EXPECT_EXIT"; exit 1; }
echo "$first" | grep -qE -- "$pattern" || { echo "FAIL: message does not match '$pattern'"; exit 1; }
[ ! -e "$outfile" ] || { echo "FAIL: $outfile was written"; exit 1; }
echo "PASS"
