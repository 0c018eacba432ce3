"""scipy.sparse input for the SVM estimators: the sparse fit equals the dense fit."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris

import kernlearn


def _data():
    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[X < 2.0] = 0.0  # about a third of the entries are zeros
    return X, y


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly", "laplacian"])
def test_svc_sparse_fit_equals_dense_fit(fmt, kernel):
    X, y = _data()
    Xs = sp.csr_matrix(X).asformat(fmt)
    dense = kernlearn.SVC(kernel=kernel, probability=True, random_state=0).fit(X, y)
    sparse = kernlearn.SVC(kernel=kernel, probability=True, random_state=0).fit(Xs, y)
    np.testing.assert_array_equal(dense.support_, sparse.support_)
    assert sp.issparse(sparse.support_vectors_) and sp.issparse(sparse.dual_coef_)
    np.testing.assert_allclose(dense.support_vectors_, sparse.support_vectors_.toarray())
    np.testing.assert_allclose(dense.dual_coef_, sparse.dual_coef_.toarray(), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(dense.intercept_, sparse.intercept_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(
        dense.decision_function(X), sparse.decision_function(Xs), rtol=1e-6, atol=1e-7
    )
    np.testing.assert_allclose(dense.predict_proba(X), sparse.predict_proba(Xs), atol=1e-6)
    np.testing.assert_array_equal(dense.predict(X), sparse.predict(Xs))
    # A sparse fit predicts dense input too.
    np.testing.assert_array_equal(sparse.predict(X), dense.predict(X))


@pytest.mark.parametrize("cls", [kernlearn.NuSVC, kernlearn.SVR, kernlearn.NuSVR, kernlearn.OneClassSVM])
def test_other_svms_sparse_equal_dense(cls):
    X, y = _data()
    y = y.astype(float)
    dense = cls().fit(X, y)
    sparse = cls().fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.support_, sparse.support_)
    np.testing.assert_allclose(
        dense.predict(X), sparse.predict(sp.csr_matrix(X)), rtol=1e-6, atol=1e-7
    )


def test_sparse_errors_use_scikit_learn_types():
    X, y = _data()
    with pytest.raises(TypeError, match="precomputed"):
        kernlearn.SVC(kernel="precomputed").fit(sp.csr_matrix(np.eye(3)), [0, 1, 1])
    dense = kernlearn.SVC().fit(X, y)
    with pytest.raises(ValueError, match="trained on dense data"):
        dense.predict(sp.csr_matrix(X))
    sparse = kernlearn.SVC().fit(sp.csr_matrix(X), y)
    with pytest.raises(ValueError, match="features"):
        sparse.predict(sp.csr_matrix(X[:, :3]))
    # Estimators without sparse kernels keep scikit-learn's TypeError.
    with pytest.raises(TypeError, match="[Ss]parse"):
        kernlearn.KNPLClassifier().fit(sp.csr_matrix(X), y)


def test_sparse_model_pickles_and_saves(tmp_path):
    import pickle

    X, y = _data()
    Xs = sp.csr_matrix(X)
    model = kernlearn.SVC(C=4).fit(Xs, y)
    back = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(back.predict(Xs), model.predict(Xs))
    model.save(tmp_path / "m.json")
    assert "sparse_support_vectors" in (tmp_path / "m.json").read_text()


def test_a_model_fitted_sparse_and_loaded_predicts_sparse_input(tmp_path):
    X, y = _data()
    Xs = sp.csr_matrix(X)
    est = kernlearn.SVC(probability=True, random_state=0).fit(Xs, y)
    path = tmp_path / "m.json"
    est.save(path)
    loaded = kernlearn.load(path)
    for fmt in ("csr", "csc", "coo"):
        Xf = Xs.asformat(fmt)
        np.testing.assert_array_equal(loaded.predict(Xf), est.predict(Xf))
        np.testing.assert_allclose(
            loaded.decision_function(Xf), est.decision_function(Xf), rtol=1e-12, atol=1e-12
        )
        np.testing.assert_allclose(loaded.predict_proba(Xf), est.predict_proba(Xf), atol=1e-12)
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))


# Run in a child interpreter: an allocation abort there fails this test instead of
# killing pytest.
_HUGE_WIDTH = """
import numpy as np, scipy.sparse as sp, kernlearn
n = 10
rows = np.repeat(np.arange(n), 2)
cols = np.tile([3, 2**31 - 1], n)
vals = np.concatenate([[1.0 + i % 2, 0.5 * i] for i in range(n)])
X = sp.csr_matrix((vals, (rows, cols)), shape=(n, 2**31))
y = np.arange(n) % 2
try:
    est = kernlearn.SVC(kernel={kernel!r}).fit(X, y)
    print("FITTED", est.predict(X).shape == (n,))
except (ValueError, MemoryError) as e:
    print("REFUSED", type(e).__name__, e)
"""


@pytest.mark.parametrize("kernel", ["rbf", "linear", "laplacian"])
def test_a_csr_matrix_of_2_31_columns_fits_or_is_refused_never_aborts(kernel):
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", _HUGE_WIDTH.format(kernel=kernel)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, f"rc {proc.returncode}: {proc.stderr[-2000:]}"
    assert proc.stdout.startswith("FITTED True"), proc.stdout + proc.stderr[-2000:]
