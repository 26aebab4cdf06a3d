#!/usr/bin/env python3
"""jobs/analyze_gas.py: the command line of earlier versions, kept for existing scripts; the same as
`cubecg-analyze-store` (cubecg_analysis.figures.store, docs/analysis-package.md). Python puts this folder first on
the module path, so the package beside it is found without installing it."""
import sys

from cubecg_analysis.figures.store import main

if __name__ == "__main__":
    sys.exit(main())
