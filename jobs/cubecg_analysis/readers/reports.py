"""Loading and validating cubecg's JSON reports (docs/report-schema.md, versions 1 and 2): every
*.json under a folder, refused with one line naming the file when malformed, of an unknown
version or kind, or missing a key the analysis reads."""
import json
import os
import sys

from .. import variants as cv
from ..common import BREAKDOWN, is_num as _is_num

REPORT_VERSION = 2  # newest version read; REPORT_VERSIONS are all read


REPORT_VERSIONS = (1, 2)


# what a version-1 report does not carry (said once per analysis when such reports are read)
V1_LACKS = ("topology (node count, ranks per node, cores per node, hosts, oversubscription per "
            "host, CPU affinity, progress-thread placement), build.launcher and build.git_commit: "
            "nodes are taken as 1, oversubscription as ranks x threads > rank 0's cores_online, "
            "and the placement from the file name (_pin-NAME) only")


KINDS = ("run", "iobench", "kernels", "gasbench")


class ReportError(Exception):
    """A report that cannot be used; the message names the file."""


def _get(obj, dotted):
    for part in dotted.split("."):
        if not isinstance(obj, dict) or part not in obj:
            raise KeyError(dotted)
        obj = obj[part]
    return obj


# required keys per kind: (dotted path, type) with type "num", "num?" (number or null),
# "int", "bool", "str", "list", "dict", "any"
REQUIRED = {
    "run": [("parameters", "dict"), ("problem.nx", "int"), ("problem.ny", "int"),
            ("problem.nz", "int"), ("problem.ranks", "int"), ("problem.threads", "int"),
            ("mpi.async_progress_active", "bool"), ("mpi.progress", "str"),
            ("mpi.injected_reduction_latency_us", "num"), ("platform.cores_online", "int"),
            ("solves", "list")],
    "solve": [("solver", "str"), ("reduction", "str"), ("iterations", "int"),
              ("converged", "bool"), ("time_s", "num"), ("time_per_iter_s", "num?"),
              ("breakdown_mean", "dict"), ("checkpoint", "any")]
    + [("breakdown_mean." + k, "num?") for k in BREAKDOWN if not k.endswith("_wait")],
    "checkpoint": [("backend", "str"), ("count", "int"), ("stall_s", "num?"), ("write_s", "num?"),
                   ("bytes", "int")],
    "topology": [("topology.nodes", "int"), ("topology.ranks_per_node_min", "int"),
                 ("topology.ranks_per_node_max", "int"), ("topology.cores_per_node", "int"),
                 ("topology.hosts", "int"), ("topology.oversubscribed", "bool")],
    "iobench": [("ranks", "int"), ("results", "list")],
    "ioresult": [("backend", "str"), ("op", "str"), ("size_bytes", "int"), ("ranks", "int"),
                 ("buffer_bytes", "int"), ("aggregate_bytes_per_s.median", "num"),
                 ("aggregate_bytes_per_s.min", "num?"), ("aggregate_bytes_per_s.max", "num?")],
    "kernels": [("ranks", "int"), ("threads", "int"), ("nx", "int"), ("ny", "int"), ("nz", "int"),
                ("stream_triad_bytes_per_s", "num?"), ("kernels", "list")],
    "kernel": [("name", "str"), ("seconds", "num?"), ("bytes", "num"), ("bytes_per_s", "num?")],
}


def _check(obj, spec, where):
    for path, kind in REQUIRED[spec]:
        try:
            v = _get(obj, path)
        except KeyError:
            raise ReportError(f"{where}: required key '{path}' is missing") from None
        ok = {"num": _is_num(v), "num?": v is None or _is_num(v),
              "int": isinstance(v, int) and not isinstance(v, bool), "bool": isinstance(v, bool),
              "str": isinstance(v, str), "list": isinstance(v, list), "dict": isinstance(v, dict),
              "any": True}[kind]
        if not ok:
            raise ReportError(f"{where}: key '{path}' = {json.dumps(v)[:40]} is not of type {kind}")


def validate(report, path):
    """Raise ReportError (naming the file) unless report is a usable version-1 or -2 report."""
    if not isinstance(report, dict) or "cubecg_report_version" not in report:
        raise ReportError(f"{path}: not a cubecg report (no 'cubecg_report_version')")
    version = report["cubecg_report_version"]
    if version not in REPORT_VERSIONS or isinstance(version, bool):
        raise ReportError(f"{path}: cubecg_report_version {json.dumps(version)}, this analyzer "
                          f"reads versions {', '.join(map(str, REPORT_VERSIONS))}")
    kind = report.get("kind")
    if kind not in KINDS:
        raise ReportError(f"{path}: unknown kind {json.dumps(kind)} (expected one of {', '.join(KINDS)})")
    if kind == "gasbench":  # drawn by figures/store.py, which checks its rows itself
        if not isinstance(report.get("results"), list):
            raise ReportError(f"{path}: gasbench report without a 'results' list")
        return
    _check(report, kind, path)
    if version >= 2 and kind == "run":
        _check(report, "topology", path)
    if kind == "run":
        if not report["solves"]:
            raise ReportError(f"{path}: run report with an empty 'solves' list")
        for i, s in enumerate(report["solves"]):
            _check(s, "solve", f"{path}: solves[{i}]")
            if s["checkpoint"] is not None:
                _check(s["checkpoint"], "checkpoint", f"{path}: solves[{i}].checkpoint")
    elif kind == "iobench":
        for i, r in enumerate(report["results"]):
            _check(r, "ioresult", f"{path}: results[{i}]")
    else:
        for i, k in enumerate(report["kernels"]):
            _check(k, "kernel", f"{path}: kernels[{i}]")


def printable(path):
    """path as text every output can hold: a name that is not UTF-8 reaches Python with its bytes
    as surrogates (os.fsdecode's surrogateescape), which no UTF-8 file or stream may write; they are
    shown as \\xNN escapes (caf\\xe9/r.json), the rest of the name unchanged."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def printable_streams():
    """stdout and stderr escape what they cannot encode instead of raising: the folder named on
    the command line, printed by every tool, may itself not be UTF-8."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def load_reports(folder):
    """All reports under folder as (path, dict), validated; each path printable() (the file is
    opened by its real name). Raises ReportError."""
    printable_streams()
    if not os.path.isdir(folder):
        raise ReportError(f"{folder}: not a directory")
    paths = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        paths += [os.path.join(root, f) for f in sorted(files) if f.endswith(".json")]
    if not paths:
        raise ReportError(f"{folder}: no cubecg reports (*.json) found; run jobs/run-local.sh "
                          "or point cubecg-analyze at a results folder")
    reports = []
    for real in paths:
        p = printable(real)
        try:
            with open(real, encoding="utf-8") as f:
                data = json.load(f)
        except json.JSONDecodeError as e:
            raise ReportError(f"{p}: malformed JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
        except (OSError, UnicodeDecodeError) as e:
            raise ReportError(f"{p}: cannot read ({e})") from None
        validate(data, p)
        if data.get("kind", "run") == "run" and (data.get("in_progress") or data.get("interrupted")):
            # a partial report (the run was killed, or stopped by a signal): its solves are not
            # whole runs, so it never enters a median
            print(f"cubecg-analyze: {p}: skipped, the run did not finish "
                  f"({'interrupted by ' + str(data.get('signal')) if data.get('interrupted') else 'in progress'})",
                  file=sys.stderr)
            continue
        reports.append((p, data))
    if not reports:
        raise ReportError(f"{folder}: every report is partial (in progress or interrupted)")
    try:
        cv.use_reports(reports)
    except cv.VariantsError as e:
        raise ReportError(str(e)) from None
    return reports


def version_notes(reports):
    """One line per report version that lacks something the analysis uses (version 1)."""
    v1 = [p for p, r in reports if r["cubecg_report_version"] == 1 and r["kind"] != "gasbench"]
    if not v1:
        return []
    return [f"cubecg-analyze: {len(v1)} version-1 report(s) (e.g. {os.path.basename(v1[0])}) lack "
            f"{V1_LACKS}"]


def load_or_complain(prog, folder):
    """load_reports, or None after one line on stderr naming what is wrong (the caller exits 2)."""
    try:
        return load_reports(folder)
    except ReportError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return None
