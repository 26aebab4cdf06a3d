#!/usr/bin/env bash
# expect_exit.sh CODE PATTERN [LINES] -- COMMAND...: COMMAND must exit with CODE and print on stderr
# exactly LINES lines (default 1: the one-line error, no trace), the first matching PATTERN.
set -u
code_wanted=$1 pattern=$2
shift 2
lines_wanted=1
if [ "$1" != "--" ]; then lines_wanted=$1; shift; fi
shift
err=$(mktemp)
"$@" >/dev/null 2>"$err"
code=$?
first=$(head -n 1 "$err")
lines=$(wc -l <"$err")
echo "exit $code; $lines stderr line(s); first: $first"
rm -f "$err"
[ "$code" -eq "$code_wanted" ] || { echo "FAIL: exit $code, expected $code_wanted"; exit 1; }
echo "$first" | grep -qE -- "$pattern" || { echo "FAIL: message does not match '$pattern'"; exit 1; }
if [ "$lines_wanted" != "any" ] && [ "$lines" -ne "$lines_wanted" ]; then
  echo "FAIL: $lines stderr lines, expected $lines_wanted"; exit 1
fi
echo PASS
