#!/usr/bin/env python3
"""readme_sample.py: the README's sample summary, cut from a real run of cubecg. Standard library.

  readme_sample.py make README MPIEXEC CUBECG
      runs the default job of ./run.sh (32^3 nodes, 2 ranks x 1 thread, --solver all --reduction
      all), cuts its summary (cut() below) and writes it into README between the markers
      <!-- readme-sample: begin --> and <!-- readme-sample: end -->.
  readme_sample.py check README MPIEXEC CUBECG
      runs the same job on 6^3 nodes (seconds) and checks that the README's block has the format
      the program prints today: the same lines with the same words, numbers free to differ.
Exit 0 when it holds (make: when written), 1 otherwise, printing each difference."""
import os
import re
import subprocess
import sys
import tempfile

BEGIN, END = "<!-- readme-sample: begin -->", "<!-- readme-sample: end -->"
DEFAULT_JOB = ["--solver", "all", "--reduction", "all"]
# the rows the README explains: Alg.1 (the baseline of 'vs A1') and Alg.3 with its overlap
ROWS = (("pcg", "ar"), ("pipecg", "iar"))
HEADER = ("  ranks x threads", "  preconditioner")
SKIP = "  ..."


def run(mpiexec, cubecg, n):
    """The summary lines of one default-like run on n^3 nodes (from 'cubecg VERSION' on)."""
    with tempfile.TemporaryDirectory(prefix="cubecg-readme-") as tmp:
        cmd = [mpiexec, "-n", "2", os.path.abspath(cubecg), "--nx", str(n), "--ny", str(n), "--nz", str(n)]
        out = subprocess.run(cmd + DEFAULT_JOB, capture_output=True, text=True, cwd=tmp,
                             env=dict(os.environ, OMP_NUM_THREADS="1"), timeout=3600)
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd + DEFAULT_JOB)}: exit {out.returncode}\n{out.stderr}")
    lines = out.stdout.splitlines()
    first = next(i for i, l in enumerate(lines) if l.startswith("cubecg "))
    return lines[first:]


def cut(summary):
    """The README's shortened summary: the first line, the header lines of HEADER, the table's
    column line, the rows of ROWS each with its 'modelled' line, the verification line; '  ...'
    where lines were left out."""
    out = [summary[0]] + [l for l in summary if l.startswith(HEADER)] + [SKIP]
    table = next(i for i, l in enumerate(summary) if l.startswith("  solver  red"))
    out.append(summary[table])
    for i, line in enumerate(summary[table + 1:], table + 1):
        words = line.split()
        if tuple(words[:2]) in ROWS:
            out += [line] + ([summary[i + 1]] if summary[i + 1].lstrip().startswith("modelled") else [])
    out += [SKIP] + [l for l in summary if l.startswith("  verification:")]
    return out


NUMBER = re.compile(r"(?<![A-Za-z0-9.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[-+]?\d+)?")


def shape(line):
    """A line with every number replaced by '#' and runs of spaces by one: what must not drift."""
    return " ".join(NUMBER.sub("#", line).split())


def block(readme):
    text = open(readme, encoding="utf-8").read()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{readme}: no {BEGIN} ... {END} block")
    head, rest = text.split(BEGIN, 1)
    inner, tail = rest.split(END, 1)
    return head, inner, tail


def make(readme, mpiexec, cubecg):
    sample = cut(run(mpiexec, cubecg, 32))
    head, _, tail = block(readme)
    with open(readme, "w", encoding="utf-8") as f:
        f.write(head + BEGIN + "\n```text\n" + "\n".join(sample) + "\n```\n" + END + tail)
    print(f"{readme}: sample summary of {len(sample)} lines written")
    return 0


def check(readme, mpiexec, cubecg):
    inner = block(readme)[1].strip().splitlines()
    documented = [l for l in inner if not l.startswith("```")]
    printed = cut(run(mpiexec, cubecg, 6))
    bad = []
    if len(documented) != len(printed):
        bad.append(f"README sample has {len(documented)} lines, the program's cut {len(printed)}")
    for k, (d, p) in enumerate(zip(documented, printed)):
        if shape(d) != shape(p):
            bad.append(f"line {k + 1}: README   '{d.strip()}'\n         program  '{p.strip()}'")
    for b in bad:
        print(b)
    print(f"README sample: {len(documented)} lines against the program's output, {len(bad)} "
          f"differences{' (regenerate: tests/docs/readme_sample.py make README.md mpiexec.mpich build/src/cubecg)' if bad else ''}")
    return 1 if bad else 0


def main(argv):
    if len(argv) == 4 and argv[0] in ("make", "check"):
        return (make if argv[0] == "make" else check)(*argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
