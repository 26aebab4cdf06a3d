#!/usr/bin/env python3
"""check_docs.py: the documentation against the programs and the repository. Standard library only.

  check_docs.py options GUIDE.md PROGRAM [PROGRAM ...]
      runs `PROGRAM --help` for each; every option it prints (--name in the option column of a
      line that starts with spaces and --) and every environment variable it names (an upper-case
      word with an underscore, e.g. CUBECG_TRACE) must appear in GUIDE.md as `--name` / the name;
      every choice of an option (its {a|b|c} list, a (0|1), a word given a meaning as in
      "(0 = off; auto = ...)") must appear in backquotes in a table row of GUIDE.md whose first
      cell names the option (`--solver pcg` or `a\|b` spans count word by word).
  check_docs.py links ROOT FILE.md|DIR [...]
      every relative link of each file ([text](target), ![alt](target), [name]: target) must name a
      file or directory inside ROOT (the repository), and its #anchor, if any, must name a heading
      of the target Markdown file (GitHub's rule: lower case, punctuation dropped, spaces to -);
      a DIR stands for its *.md files; web links are skipped.
      No file may point at a path outside ROOT.
  check_docs.py columns DOC.md FILE.csv NAME
      every column of FILE.csv's header line (a study.csv the analyzer wrote) must be named in the
      table row of DOC.md whose first cell is `NAME`.
  check_docs.py exits README.md BUILD_DIR
      every exit code of the README's "| exit code | meaning |" table is asserted by a ctest test
      of BUILD_DIR: one that runs tests/common/expect_exit.sh with that code.
  check_docs.py size FILE BYTES
      FILE (the README, a user's document) is at most BYTES long; details belong in docs/.
Exit 0 when all hold, 1 otherwise (each miss printed on its own line)."""
import json
import os
import re
import subprocess
import sys

OPTION_LINE = re.compile(r"^\s+(--[a-z].*?)(?:\s{2,}|$)")
OPTION = re.compile(r"--[a-z][a-z0-9-]*")
ENV_VAR = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b")


CHOICES = re.compile(r"\{([a-z0-9|-]+)\}\s*$")
BOOL_CHOICES = re.compile(r"\((0\|1)\)")
NAMED_VALUE = re.compile(r"(?:\(|; )([a-z][a-z0-9-]*) = ")
NOT_A_VALUE = {"empty"}  # "(empty = ...)" describes leaving the value out, not a word to type


def help_names(program):
    """(options, environment variables, {option: choices}) of `program --help`."""
    out = subprocess.run([program, "--help"], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise SystemExit(f"{program} --help exited {out.returncode}: {out.stderr.strip()}")
    options, env, choices = set(), set(), {}
    for line in out.stdout.splitlines():
        m = OPTION_LINE.match(line)
        if m:
            names = OPTION.findall(m.group(1))
            options.update(names)
            rest = line[m.end(1):]
            found = [c for g in CHOICES.findall(rest) + BOOL_CHOICES.findall(rest)
                     for c in g.split("|")]
            found += [w for w in NAMED_VALUE.findall(rest) if w not in NOT_A_VALUE]
            if found and names:
                choices[names[0]] = sorted(set(found))
    env.update(ENV_VAR.findall(out.stdout))
    return options, env, choices


def row_words(text, option):
    """The backquoted words of every table row of text whose first cell names option."""
    words = set()
    for line in text.splitlines():
        cells = line.split(" | ")
        if not line.startswith("| ") or not re.search(re.escape(option) + r"(?![a-z0-9-])", cells[0]):
            continue
        for span in re.findall(r"`([^`]*)`", line):
            words.update(w for w in re.split(r"\\\||\||,|\s+", span) if w)
    return words


def check_choices(text, guide, name, choices):
    missing = []
    for opt, values in sorted(choices.items()):
        words = row_words(text, opt)
        if not words:
            missing.append(f"{name}: option {opt} has no table row in {guide} (its choices: {', '.join(values)})")
            continue
        missing += [f"{name}: option {opt}: choice '{v}' is not in its row of {guide} (as `{v}`)"
                    for v in values if v not in words]
    return missing


def check_options(guide, programs):
    with open(guide) as f:
        text = f.read()
    missing = []
    total = 0
    for program in programs:
        options, env, choices = help_names(program)
        if not options:
            missing.append(f"{program} --help: no option found (did its format change?)")
        total += len(options) + len(env) + sum(len(v) for v in choices.values())
        name = os.path.basename(program)
        missing += check_choices(text, guide, name, choices)
        for opt in sorted(options):
            if not re.search(re.escape(opt) + r"(?![a-z0-9-])", text):
                missing.append(f"{name}: option {opt} is not in {guide}")
        for var in sorted(env):
            if not re.search(r"\b" + re.escape(var) + r"\b", text):
                missing.append(f"{name}: environment variable {var} is not in {guide}")
    for m in missing:
        print(m)
    print(f"{total} options, choices and variables of {len(programs)} programs checked, "
          f"{len(missing)} missing")
    return 1 if missing else 0


LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.M)
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")


def anchors(path):
    """The anchors GitHub gives the headings of a Markdown file (duplicates get -1, -2, ...)."""
    with open(path) as f:
        text = FENCE.sub("", f.read())
    seen, out = {}, set()
    for m in re.finditer(r"^#{1,6}\s+(.*?)\s*#*\s*$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def check_links(root, files):
    root = os.path.realpath(root)
    bad, count = [], 0
    files = [
        p
        for f in files
        for p in (sorted(os.path.join(f, n) for n in os.listdir(f) if n.endswith(".md"))
                  if os.path.isdir(f) else [f])
    ]
    for path in files:
        with open(path) as f:
            text = f.read()
        prose = INLINE_CODE.sub("", FENCE.sub("", text))
        targets = LINK.findall(prose) + REF_LINK.findall(prose)
        here = os.path.dirname(os.path.realpath(path))
        for target in targets:
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # http:, https:, mailto: ...
            count += 1
            file_part, _, anchor = target.partition("#")
            resolved = os.path.realpath(os.path.join(here, file_part)) if file_part else os.path.realpath(path)
            rel = os.path.relpath(path, root)
            if os.path.commonpath([root, resolved]) != root:
                bad.append(f"{rel}: link '{target}' points outside the repository")
            elif not os.path.exists(resolved):
                bad.append(f"{rel}: link '{target}' names no file ({os.path.relpath(resolved, root)})")
            elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                bad.append(f"{rel}: link '{target}': no heading with anchor #{anchor}")
        if re.search(r"\.\./shared/|\bshared/(algorithms|reference-results|conventions)\.md", text):
            bad.append(f"{os.path.relpath(path, root)}: refers to shared/ outside the repository")
    for b in bad:
        print(b)
    print(f"{count} relative links in {len(files)} files checked, {len(bad)} bad")
    return 1 if bad else 0


def check_columns(doc, csv_path, name):
    with open(csv_path, encoding="utf-8") as f:
        columns = f.readline().strip().split(",")
    with open(doc, encoding="utf-8") as f:
        rows = [l for l in f if l.startswith(f"| `{name}` |")]
    if not rows:
        print(f"{doc}: no table row for `{name}`")
        return 1
    words = set(re.findall(r"[a-z_][a-z0-9_]*", " ".join(rows)))
    missing = [c for c in columns if c not in words]
    for c in missing:
        print(f"{name}: column {c} is not in its row of {doc}")
    print(f"{len(columns)} columns of {csv_path} checked against {doc}, {len(missing)} missing")
    return 1 if missing else 0


def check_exits(readme, build):
    """Every code of the README's exit-code table against the ctest tests that assert it."""
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    table = text.split("| exit code | meaning |", 1)
    if len(table) != 2:
        print(f"{readme}: no '| exit code | meaning |' table")
        return 1
    codes = []
    for line in table[1].splitlines()[2:]:
        m = re.match(r"^\| (\d+) \|", line)
        if not m:
            break
        codes.append(m.group(1))
    out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, capture_output=True,
                         text=True, timeout=120)
    if out.returncode != 0:
        print(f"ctest --show-only in {build}: {out.stderr.strip()}")
        return 1
    asserted = {}
    for t in json.loads(out.stdout)["tests"]:
        cmd = t.get("command") or []
        for i, word in enumerate(cmd[:-1]):
            if os.path.basename(word) == "expect_exit.sh":
                asserted.setdefault(cmd[i + 1], []).append(t["name"])
    missing = [c for c in codes if c not in asserted]
    for c in codes:
        names = asserted.get(c, [])
        print(f"exit code {c}: {len(names)} test(s){' e.g. ' + names[0] if names else ''}")
    for c in missing:
        print(f"{readme}: exit code {c} is asserted by no ctest test (tests/common/expect_exit.sh {c} ...)")
    if not codes:
        print(f"{readme}: the exit-code table lists no code")
    return 1 if missing or not codes else 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "options":
        return check_options(argv[1], argv[2:])
    if len(argv) == 3 and argv[0] == "size":
        size = os.path.getsize(argv[1])
        print(f"{argv[1]}: {size} bytes, limit {argv[2]}")
        return 0 if size <= int(argv[2]) else 1
    if len(argv) == 4 and argv[0] == "columns":
        return check_columns(*argv[1:])
    if len(argv) == 3 and argv[0] == "exits":
        return check_exits(argv[1], argv[2])
    if len(argv) >= 3 and argv[0] == "links":
        return check_links(argv[1], argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
