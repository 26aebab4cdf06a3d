"""Loading and validating cubecg-gasbench reports (kind "gasbench", docs/report-schema.md): the
files or folders given (a folder: every *.json under it that is a gasbench report), refused with
one line naming the file when malformed, of an unknown version or of another kind."""
import json
import os

from .reports import REPORT_VERSIONS, ReportError, printable_streams, printable


def validate(report, path):
    if not isinstance(report, dict):
        raise ReportError(f"{path}: not a JSON object")
    if report.get("cubecg_report_version") not in REPORT_VERSIONS:
        raise ReportError(f"{path}: cubecg_report_version {report.get('cubecg_report_version')!r}, "
                          f"expected one of {REPORT_VERSIONS}")
    if report.get("kind") != "gasbench":
        raise ReportError(f"{path}: kind {report.get('kind')!r}, expected 'gasbench'")
    for key in ("ranks", "results", "weak_scaling", "ratios"):
        if key not in report:
            raise ReportError(f"{path}: missing '{key}'")
    for i, row in enumerate(report["results"]):
        for key in ("op", "case", "size_bytes", "page_bytes", "bytes_per_s"):
            if key not in row:
                raise ReportError(f"{path}: results[{i}] has no '{key}'")


def load(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".json")]
        else:
            files.append(p)
    reports = []
    printable_streams()
    for real in files:
        f = printable(real)  # opened by its real name, named in every output by its printable one
        try:
            with open(real, encoding="utf-8") as fh:
                r = json.load(fh)
        except (OSError, ValueError) as e:  # ValueError: bad JSON or bytes that are not UTF-8
            raise ReportError(f"{f}: {e}") from e
        if os.path.isdir(paths[0]) and isinstance(r, dict) and r.get("kind") != "gasbench":
            continue  # a folder may hold other reports: only gasbench ones are ours
        validate(r, f)
        reports.append((f, r))
    if not reports:
        raise ReportError(f"no gasbench report in {', '.join(paths)}")
    return reports
