#!/usr/bin/env python3
"""check_schema.py: docs/report-schema.md against real reports, both ways (the schema
cannot drift). Standard library only.

  check_schema.py SCHEMA.md [--help-text FILE] KIND=REPORT [KIND=REPORT ...]

SCHEMA.md holds ```keys NAME blocks: one key path per line (object keys joined by '.', array
elements marked '[]'), then its type; a type ending in '?' marks a key present only in some runs.
Block 'common' applies to every kind. For each KIND given:
  - every key path in its reports must be listed (in 'common' or in block KIND);
  - every listed key without '?' must appear in at least one of its reports;
  - with --help-text, the keys of 'parameters' must be exactly the options of `cubecg --help`.
Exit 0 when all hold, 1 otherwise (each drift printed on its own line)."""
import json
import re
import sys


def read_blocks(path):
    blocks, name = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"^```keys\s+(\S+)", line)
            if m:
                name = m.group(1)
                blocks.setdefault(name, {})
            elif line.startswith("```"):
                name = None
            elif name and line.strip():
                parts = line.split()
                blocks[name][parts[0]] = parts[1].endswith("?") if len(parts) > 1 else False
    return blocks


def flatten(value, prefix, out):
    if prefix:
        out.add(prefix)
    if isinstance(value, dict):
        for key, item in value.items():
            if prefix in ("parameters", "parameter_sources"):  # one key per option
                out.add(prefix + ".*")
                continue
            flatten(item, f"{prefix}.{key}" if prefix else key, out)
    elif isinstance(value, list):
        for item in value:
            flatten(item, prefix + "[]", out)


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    blocks = read_blocks(argv[0])
    help_text, reports = None, {}
    args = argv[1:]
    while args:
        if args[0] == "--help-text":
            with open(args[1]) as f:
                help_text = f.read()
            args = args[2:]
            continue
        kind, _, path = args[0].partition("=")
        reports.setdefault(kind, []).append(path)
        args = args[1:]
    ok = True
    if "common" not in blocks:
        print(f"FAIL {argv[0]}: no ```keys common block")
        return 1
    for kind, paths in sorted(reports.items()):
        if kind not in blocks:
            print(f"FAIL {argv[0]}: no ```keys {kind} block")
            ok = False
            continue
        documented, ok_before = dict(blocks["common"], **blocks[kind]), ok
        ok = True
        seen = set()
        for path in paths:
            with open(path) as f:
                report = json.load(f)
            if report.get("kind") != kind:
                print(f"FAIL {path}: kind {report.get('kind')!r}, expected {kind!r}")
                ok = False
            keys = set()
            flatten(report, "", keys)
            for key in sorted(keys - set(documented)):
                print(f"FAIL {path}: key '{key}' is not documented in {argv[0]} (block {kind} or common)")
                ok = False
            seen |= keys
            if help_text is not None and "parameters" in report:
                options = set(re.findall(r"^\s+--([A-Za-z][A-Za-z0-9-]*)", help_text, re.M))
                params = set(report["parameters"])
                if "parameter_sources" in report and set(report["parameter_sources"]) != params:
                    print(f"FAIL {path}: parameter_sources does not name exactly the parameters")
                    ok = False
                for key in sorted(params - options):
                    print(f"FAIL {path}: parameters.{key} is not an option of cubecg --help")
                    ok = False
                for key in sorted(options - params):
                    print(f"FAIL {path}: option --{key} of cubecg --help is missing from parameters")
                    ok = False
        for key, optional in sorted(documented.items()):
            if not optional and key not in seen:
                print(f"FAIL {argv[0]}: documented key '{key}' ({kind}) appears in no {kind} report")
                ok = False
        if ok:
            print(f"PASS {kind}: {len(seen)} key paths, all documented; every documented key seen")
        ok = ok and ok_before
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
