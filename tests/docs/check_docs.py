#!/usr/bin/env python3
"""check_docs.py: the documentation against the programs and the repository. Standard library only.

  check_docs.py options GUIDE.md PROGRAM [PROGRAM ...]
      runs `PROGRAM --help` for each; every option it prints (--name in the option column of a
      line that starts with spaces and --) and every environment variable it names (an upper-case
      word with an underscore, e.g. CUBECG_TRACE) must appear in GUIDE.md as `--name` / the name.
  check_docs.py links ROOT FILE.md|DIR [...]
      every relative link of each file ([text](target), ![alt](target), [name]: target) must name a
      file or directory inside ROOT (the repository), and its #anchor, if any, must name a heading
      of the target Markdown file (GitHub's rule: lower case, punctuation dropped, spaces to -);
      a DIR stands for its *.md files; web links are skipped.
      No file may point at a path outside ROOT.
  check_docs.py size FILE BYTES
      FILE (the README, a user's document) is at most BYTES long; details belong in docs/.
Exit 0 when all hold, 1 otherwise (each miss printed on its own line)."""
import os
import re
import subprocess
import sys

OPTION_LINE = re.compile(r"^\s+(--[a-z].*?)(?:\s{2,}|$)")
OPTION = re.compile(r"--[a-z][a-z0-9-]*")
ENV_VAR = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b")


def help_names(program):
    out = subprocess.run([program, "--help"], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise SystemExit(f"{program} --help exited {out.returncode}: {out.stderr.strip()}")
    options, env = set(), set()
    for line in out.stdout.splitlines():
        m = OPTION_LINE.match(line)
        if m:
            options.update(OPTION.findall(m.group(1)))
    env.update(ENV_VAR.findall(out.stdout))
    return options, env


def check_options(guide, programs):
    with open(guide) as f:
        text = f.read()
    missing = []
    total = 0
    for program in programs:
        options, env = help_names(program)
        if not options:
            missing.append(f"{program} --help: no option found (did its format change?)")
        total += len(options) + len(env)
        name = os.path.basename(program)
        for opt in sorted(options):
            if not re.search(re.escape(opt) + r"(?![a-z0-9-])", text):
                missing.append(f"{name}: option {opt} is not in {guide}")
        for var in sorted(env):
            if not re.search(r"\b" + re.escape(var) + r"\b", text):
                missing.append(f"{name}: environment variable {var} is not in {guide}")
    for m in missing:
        print(m)
    print(f"{total} options and variables of {len(programs)} programs checked, {len(missing)} missing")
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


def main(argv):
    if len(argv) >= 3 and argv[0] == "options":
        return check_options(argv[1], argv[2:])
    if len(argv) == 3 and argv[0] == "size":
        size = os.path.getsize(argv[1])
        print(f"{argv[1]}: {size} bytes, limit {argv[2]}")
        return 0 if size <= int(argv[2]) else 1
    if len(argv) >= 3 and argv[0] == "links":
        return check_links(argv[1], argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
