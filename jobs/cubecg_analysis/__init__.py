"""cubecg_analysis: tables, figures and the latency-bandwidth model from cubecg's JSON reports
(docs/report-schema.md); docs/analysis-package.md. Laid out by concern:

  readers/   the reports (run, iobench, kernels; gasbench), the tidy rows and series, the
             published values (data/published.json)
  metrics/   the study's metrics: scaling (speed-up, Tables 4, 6, 7) and cost (checkpoint, I/O)
  tables/    the printed table of every solve, the headline, tables.md
  figures/   the figure / CSV writer and every figure: scaling, cost, the I/O study, the global
             store, the trace timeline
  model/     the latency-bandwidth model (preset, local, overlap, report, its command line)

Console scripts: cubecg-analyze (cli), cubecg-model (model.cli), cubecg-analyze-io
(figures.io_study), cubecg-analyze-store (figures.store), cubecg-timeline (figures.timeline).
common.py and variants.py are shared by all of them. The A/B runner cubecg-ab is apart
(jobs/cubecg_ab.py): it runs cubecg, it does not analyse reports."""
import os
import re


def _version():
    """The distribution's version from the one place it is written, [project] version of
    jobs/pyproject.toml: read beside the package (the source tree, an installed share/cubecg/jobs,
    an editable install), else from the metadata pip installed from it."""
    toml = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml")
    try:
        with open(toml, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        text = ""
    project = re.search(r"^\[project\]$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    found = project and re.search(r'^version\s*=\s*"([^"]+)"', project.group(1), re.M)
    if found:
        return found.group(1)
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("cubecg-analysis")
    except PackageNotFoundError:
        return "unknown"


__version__ = _version()
