#!/usr/bin/env python3
"""Runs scikit-learn's own sparse SVM tests (sklearn/svm/tests/test_sparse.py) with
kernlearn's SVC, NuSVC, SVR, NuSVR and OneClassSVM in place of sklearn.svm's (LinearSVC
and the rest stay scikit-learn's), in a temporary directory; prints pytest's summary.

    target/python-venv/bin/python scripts/sklearn_sparse_tests.py [pytest args]
"""

import os
import subprocess
import sys
import tempfile

import sklearn

SWAP = (
    "from sklearn import base, datasets, linear_model, svm as _sksvm\n"
    "import types, kernlearn\n"
    "svm = types.SimpleNamespace(**{k: getattr(_sksvm, k) for k in dir(_sksvm) "
    "if not k.startswith('_')})\n"
    "for _n in ['SVC', 'NuSVC', 'SVR', 'NuSVR', 'OneClassSVM']:\n"
    "    setattr(svm, _n, getattr(kernlearn, _n))\n"
)


def main():
    src = os.path.join(os.path.dirname(sklearn.__file__), "svm", "tests", "test_sparse.py")
    text = open(src).read()
    original = "from sklearn import base, datasets, linear_model, svm\n"
    if original not in text:
        sys.exit(f"{src}: the import line to replace was not found (scikit-learn changed it)")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "test_sparse_kernlearn.py")
        with open(path, "w") as f:
            f.write(text.replace(original, SWAP))
        cmd = [sys.executable, "-m", "pytest", path, "-q", "-p", "no:cacheprovider", *sys.argv[1:]]
        sys.exit(subprocess.run(cmd, cwd=d).returncode)


if __name__ == "__main__":
    main()
