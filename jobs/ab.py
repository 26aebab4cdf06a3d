#!/usr/bin/env python3
"""jobs/ab.py: the command line of earlier versions, kept for existing scripts; the same as
`cubecg-ab` (cubecg_ab, docs/analysis-package.md). Python puts this folder first on
the module path, so the module beside it is found without installing it."""
import sys

from cubecg_ab import main

if __name__ == "__main__":
    sys.exit(main())
