"""Per-sample weights (``sample_weight``) against scikit-learn: the same duals, so the
same decision values to solver tolerance, directly, through a Pipeline and in the grid
search's folds."""

import numpy as np
import pytest
from sklearn import svm as sk
from sklearn.datasets import load_diabetes, load_iris
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import kernlearn as kl
from conftest import dataset, scaled

TOL = 1e-6  # both solvers stop at tol=1e-3 on the same iterates; far below that


def _weights(n, seed, zeros=False):
    rng = np.random.RandomState(seed)
    w = rng.uniform(0.1, 3.0, size=n)
    if zeros:
        w[rng.choice(n, size=n // 10, replace=False)] = 0.0
    return w


def _decision(est, X):
    return est.decision_function(X) if hasattr(est, "decision_function") else est.predict(X)


@pytest.mark.parametrize("zeros", [False, True], ids=["positive", "with-zeros"])
@pytest.mark.parametrize(
    "name, params",
    [
        ("SVC", {}),
        ("SVC", {"class_weight": "balanced", "kernel": "linear"}),
        ("NuSVC", {"nu": 0.3}),
        ("SVR", {"epsilon": 0.05}),
        ("NuSVR", {"nu": 0.4}),
        ("OneClassSVM", {"nu": 0.2}),
    ],
)
def test_weighted_fit_equals_scikit_learn(name, params, zeros):
    X, y = load_iris(return_X_y=True) if "SV" in name and "R" not in name else load_diabetes(return_X_y=True)
    X = scaled(X)
    if name == "OneClassSVM":
        y = None
    w = _weights(len(X), 3, zeros)
    ours = getattr(kl, name)(**params).fit(X, y, sample_weight=w)
    theirs = getattr(sk, name)(**params).fit(X, y, sample_weight=w)
    scale = max(1.0, np.abs(_decision(theirs, X)).max())
    np.testing.assert_allclose(_decision(ours, X), _decision(theirs, X), atol=TOL * scale)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=TOL * scale)
    np.testing.assert_array_equal(ours.n_support_, theirs.n_support_)
    np.testing.assert_array_equal(np.asarray(ours.n_iter_), np.asarray(theirs.n_iter_))


def test_integer_weights_equal_repeated_samples():
    """Weight 2 is the sample twice (the box of its α doubles): the same decision values."""
    X, y = load_iris(return_X_y=True)
    X, y = scaled(X)[::3], y[::3]
    w = np.where(np.arange(len(y)) % 4 == 0, 2.0, 1.0)
    weighted = kl.SVC(kernel="linear", tol=1e-8).fit(X, y, sample_weight=w)
    repeat = np.repeat(np.arange(len(y)), w.astype(int))
    repeated = kl.SVC(kernel="linear", tol=1e-8).fit(X[repeat], y[repeat])
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X), atol=1e-5)


def test_weights_through_a_pipeline():
    X, y = load_iris(return_X_y=True)
    w = _weights(len(X), 5)
    ours = make_pipeline(StandardScaler(), kl.SVC()).fit(X, y, svc__sample_weight=w)
    theirs = make_pipeline(StandardScaler(), sk.SVC()).fit(X, y, svc__sample_weight=w)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), atol=1e-6)


def test_weights_on_magic():
    X, y = dataset("magic")
    idx = np.random.RandomState(0).choice(len(y), size=1500, replace=False)
    X, y = scaled(X)[idx], y[idx]
    w = _weights(len(y), 7, zeros=True)
    ours = kl.SVC(C=2.0).fit(X, y, sample_weight=w)
    theirs = sk.SVC(C=2.0).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), atol=1e-6)
    np.testing.assert_array_equal(ours.n_support_, theirs.n_support_)


def test_bad_weights_are_refused():
    X, y = load_iris(return_X_y=True)
    # scikit-learn's checks and wording (``_check_sample_weight``).
    with pytest.raises(ValueError, match=r"sample_weight.shape == \(3,\), expected \(150,\)"):
        kl.SVC().fit(X, y, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="sample_weight contains NaN"):
        kl.SVC().fit(X, y, sample_weight=np.full(len(y), np.nan))
    # Two weights per sample are not 2n weights: a 1-D array of n is required.
    for cls in (kl.SVC, kl.SVR, kl.NuSVC, kl.OneClassSVM):
        with pytest.raises(ValueError, match="Sample weights must be 1D array or scalar"):
            cls().fit(X, y, sample_weight=np.ones((len(y), 2)))
    with pytest.raises(ValueError, match="Sample weights must be 1D array or scalar"):
        kl.GridSearch(kl.SVC(), {"C": [1.0]}).fit(X, y, sample_weight=np.ones((len(y), 2)))
    with pytest.raises(ValueError, match="all samples have zero or negative weights"):
        kl.SVR().fit(X, y, sample_weight=np.zeros(len(y)))
    w = np.where(y == 0, 1.0, 0.0)
    with pytest.raises(ValueError, match="belong to the same class"):
        kl.SVC().fit(X, y, sample_weight=w)
    w = np.where(y == 2, 0.0, 1.0)
    with pytest.raises(ValueError, match="class 2.* no sample of positive weight"):
        kl.SVC().fit(X, y, sample_weight=w)


def test_weighted_grid_search_equals_grid_search_cv():
    X, y = load_iris(return_X_y=True)
    X = scaled(X)
    w = _weights(len(y), 11, zeros=True)
    grid = {"C": [0.25, 1.0, 4.0, 16.0], "gamma": [0.5, 2.0, 8.0]}
    ours = kl.GridSearch(kl.SVC(), grid, cv=5, random_state=0).fit(X, y, sample_weight=w)
    splits = [(np.setdiff1d(np.arange(len(y)), f), f) for f in ours.folds_]
    theirs = GridSearchCV(sk.SVC(), grid, cv=splits).fit(X, y, sample_weight=w)
    key = lambda p: (p["C"], round(p["gamma"], 9))  # noqa: E731
    ours_scores = dict(zip(map(key, ours.cv_results_["params"]), ours.cv_results_["mean_test_score"]))
    their_scores = dict(zip(map(key, theirs.cv_results_["params"]), theirs.cv_results_["mean_test_score"]))
    assert ours_scores.keys() == their_scores.keys()
    for k in ours_scores:
        assert ours_scores[k] == pytest.approx(their_scores[k], abs=1e-12), k
    best = max(their_scores.values())
    tied = [k for k, v in their_scores.items() if v == best]
    assert key(ours.best_params_) in tied
    if len(tied) == 1:
        assert key(ours.best_params_) == key(theirs.best_params_)
    np.testing.assert_allclose(
        ours.best_estimator_.decision_function(X),
        sk.SVC(**ours.best_params_).fit(X, y, sample_weight=w).decision_function(X),
        atol=1e-6,
    )


# The learned kernels whose kernel learning has a weighted form (the catalogue's
# ``sample_weights``): UNIFORM, SPG-GMKL and LMKL, whose objectives are the C-SVM dual
# with the box C * w_i. At a tight solver tolerance the duals' optima are compared.
_LEARNED = [
    ("uniform", {"tol": 1e-10}),
    ("spg-gmkl", {"tol": 1e-10}),
]
_KERNELS = "linear@all;rbf(gamma=1)@all"


@pytest.mark.parametrize("method, params", _LEARNED, ids=[m for m, _ in _LEARNED])
def test_learned_integer_weights_equal_repeated_samples(method, params):
    """Integer weights (zeros among them) give the decision function of the data with
    each sample repeated as often as its weight, to 1e-6 relative, on wine (three
    classes); all-one weights give the unweighted fit."""
    X, y = dataset("wine")
    X = scaled(X)
    w = np.arange(len(y)) * 7 % 4
    est = lambda: kl.MKLClassifier(method, kernels=_KERNELS, C=2.0, **params)  # noqa: E731
    weighted = est().fit(X, y, sample_weight=w)
    repeated = est().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    a, b = weighted.decision_function(X), repeated.decision_function(X)
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-6 * np.abs(b).max())
    np.testing.assert_allclose(weighted.weights_, repeated.weights_, atol=1e-6)
    ones = est().fit(X, y, sample_weight=np.ones(len(y)))
    plain = est().fit(X, y)
    np.testing.assert_allclose(ones.decision_function(X), plain.decision_function(X), atol=1e-9)


@pytest.mark.filterwarnings("ignore::kernlearn.FallbackWarning")
def test_learned_zero_weights_are_removed_samples():
    """A zero weight is an absent sample; a grid search with weights runs them through
    every fold (scored by weighted accuracy) and the fallback's SVM."""
    X, y = dataset("heart")
    X = scaled(X)
    w = np.where(np.arange(len(y)) % 5 == 0, 0.0, 1.0)
    est = lambda: kl.MKLClassifier("uniform", kernels=_KERNELS, tol=1e-10)  # noqa: E731
    weighted = est().fit(X, y, sample_weight=w)
    removed = est().fit(X[w > 0], y[w > 0])
    np.testing.assert_allclose(weighted.decision_function(X), removed.decision_function(X), atol=1e-9)
    searched = kl.MKLClassifier("uniform", kernels=_KERNELS, select="grid", cv=3,
                                grid={"sigma": [1.0], "C": [1.0, 4.0]})
    searched.fit(X, y, sample_weight=np.where(w > 0, 1.0 + np.arange(len(y)) % 3, 0.0))
    assert "cv_score" in searched.chosen_


def test_lmkl_zero_weights_are_removed_samples():
    """LMKL takes weights (its gate descends the weighted C-SVM's dual value): a zero
    weight is an absent sample, other weights change the fit."""
    X, y = dataset("wine")
    X = scaled(X)
    w = np.where(np.arange(len(y)) % 4 == 0, 0.0, 1.0)
    est = lambda: kl.LocalizedMKLClassifier("lmkl", kernels=_KERNELS)  # noqa: E731
    weighted = est().fit(X, y, sample_weight=w)
    removed = est().fit(X[w > 0], y[w > 0])
    a, b = weighted.decision_function(X), removed.decision_function(X)
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-6 * np.abs(b).max())
    other = est().fit(X, y, sample_weight=1.0 + np.arange(len(y)) % 3)
    assert not np.allclose(other.decision_function(X), est().fit(X, y).decision_function(X))


@pytest.mark.parametrize(
    "estimator",
    [
        kl.MKLClassifier("mwumkl"),
        kl.MKLClassifier("easymkl"),
        kl.MKLClassifier("nystrom-linear"),
        kl.LocalizedMKLClassifier("ldmkl"),
        kl.DANKClassifier(),
        kl.ARDRegressor(),
    ],
    ids=lambda e: e._method_name(),
)
def test_learned_methods_without_a_weighted_form_refuse_weights(estimator):
    """A method whose kernel learning has no weighted form refuses weights with a
    ValueError naming it, never fitting as if every weight were 1; weights of the wrong
    shape or all zero are scikit-learn's errors first."""
    X, y = dataset("heart")
    if estimator._regression:
        X, y = dataset("housing")
    X, y = scaled(X)[:60], y[:60]
    with pytest.raises(ValueError, match=f"method '{estimator._method_name()}' cannot honour sample_weight"):
        estimator.fit(X, y, sample_weight=np.ones(len(y)))
    with pytest.raises(ValueError, match="zero"):
        estimator.fit(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError):
        estimator.fit(X, y, sample_weight=np.ones(3))
    assert {m["name"]: m for m in kl.methods()}[estimator._method_name()]["sample_weights"] is False
