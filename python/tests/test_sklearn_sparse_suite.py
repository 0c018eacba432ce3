"""scikit-learn's own sparse SVM tests with kernlearn's estimators.

Runs ``sklearn/svm/tests/test_sparse.py`` of the installed scikit-learn with kernlearn's
``SVC``, ``NuSVC``, ``SVR``, ``NuSVR`` and ``OneClassSVM`` in place of ``sklearn.svm``'s
(``scripts/sklearn_sparse_tests.py`` does the substitution), in a child interpreter.
Every test of that file must pass: sparse fits compared with dense ones, sparse
``coef_``, sample weights, callable kernels on sparse input and the convergence
warning.
"""

import os
import subprocess
import sys

import pytest
import sklearn

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "sklearn_sparse_tests.py")
SOURCE = os.path.join(os.path.dirname(sklearn.__file__), "svm", "tests", "test_sparse.py")


def test_sklearn_sparse_svm_tests_pass_with_kernlearn():
    if not os.path.exists(SOURCE):
        pytest.skip(f"scikit-learn {sklearn.__version__} is installed without its tests")
    run = subprocess.run(
        [sys.executable, SCRIPT, "-x"], capture_output=True, text=True, timeout=600
    )
    tail = (run.stdout + run.stderr)[-3000:]
    assert run.returncode == 0, tail
    assert " passed" in run.stdout and " failed" not in run.stdout, tail
