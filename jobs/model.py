#!/usr/bin/env python3
"""jobs/model.py: the command line of earlier versions, kept for existing scripts; the same as
`cubecg-model` (cubecg_analysis.model.cli, docs/analysis-package.md). Python puts this folder first on
the module path, so the package beside it is found without installing it."""
import sys

from cubecg_analysis.model.cli import main

if __name__ == "__main__":
    sys.exit(main())
