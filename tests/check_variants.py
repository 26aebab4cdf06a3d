#!/usr/bin/env python3
"""check_variants.py JOBS_DIR REPORT: jobs/cubecg_variants.py's built-in list equals the registry
cubecg wrote into the report ("available.variants"), and analyze.load_reports takes the variant
names and Table 1 from a report's "available" (a renamed variant in a report is what jobs see)."""
import copy
import json
import os
import sys
import tempfile

jobs, report_path = sys.argv[1], sys.argv[2]
sys.path.insert(0, jobs)
import analyze  # noqa: E402
import cubecg_variants as cv  # noqa: E402
import model  # noqa: E402

with open(report_path, encoding="utf-8") as f:
    report = json.load(f)
failures = []
if report["available"]["variants"] != cv.BUILTIN:
    failures.append(f"cubecg_variants.BUILTIN differs from {report_path}'s available.variants:\n"
                    f"  {cv.BUILTIN}\n  {report['available']['variants']}")
with tempfile.TemporaryDirectory() as d:
    other = copy.deepcopy(report)
    other["available"]["variants"][1]["name"] = "fifth"
    other["available"]["variants"][1]["table1"]["axpy"] = 11
    with open(os.path.join(d, "run.json"), "w", encoding="utf-8") as f:
        json.dump(other, f)
    analyze.load_reports(d)
    if analyze.SOLVERS[1] != "fifth" or model.TABLE1.get("fifth", {}).get("axpy") != 11:
        failures.append(f"analyze/model did not take the report's variants: {analyze.SOLVERS}, "
                        f"{model.TABLE1}")
for line in failures:
    print("FAIL", line)
print("check_variants:", "FAILED" if failures else "PASSED")
sys.exit(1 if failures else 0)
