#!/usr/bin/env python3
"""check_variants.py JOBS_DIR REPORT: the analysis package's built-in variant list
(cubecg_analysis/variants.py) equals the registry cubecg wrote into the report
("available.variants"), and reports.load_reports takes the variant names and Table 1 from a
report's "available" (a renamed variant in a report is what the analysis and the model see)."""
import copy
import importlib.util
import json
import os
import sys
import tempfile

jobs, report_path = sys.argv[1], sys.argv[2]
# the package of the source tree given on the command line (not an installed copy)
spec = importlib.util.spec_from_file_location(
    "cubecg_analysis", os.path.join(jobs, "cubecg_analysis", "__init__.py"),
    submodule_search_locations=[os.path.join(jobs, "cubecg_analysis")])
sys.modules["cubecg_analysis"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sys.modules["cubecg_analysis"])
from cubecg_analysis.model import preset as model  # noqa: E402
from cubecg_analysis.readers import reports  # noqa: E402
from cubecg_analysis import variants as cv  # noqa: E402

with open(report_path, encoding="utf-8") as f:
    report = json.load(f)
failures = []
if report["available"]["variants"] != cv.BUILTIN:
    failures.append(f"variants.BUILTIN differs from {report_path}'s available.variants:\n"
                    f"  {cv.BUILTIN}\n  {report['available']['variants']}")
with tempfile.TemporaryDirectory() as d:
    other = copy.deepcopy(report)
    other["available"]["variants"][1]["name"] = "fifth"
    other["available"]["variants"][1]["table1"]["axpy"] = 11
    with open(os.path.join(d, "run.json"), "w", encoding="utf-8") as f:
        json.dump(other, f)
    reports.load_reports(d)
    if cv.NAMES[1] != "fifth" or model.TABLE1.get("fifth", {}).get("axpy") != 11:
        failures.append(f"the analysis / model did not take the report's variants: {cv.NAMES}, "
                        f"{model.TABLE1}")
for line in failures:
    print("FAIL", line)
print("check_variants:", "FAILED" if failures else "PASSED")
sys.exit(1 if failures else 0)
