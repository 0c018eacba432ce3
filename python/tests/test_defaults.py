"""Honest defaults: every estimator takes the features as given unless told otherwise, and
a learned kernel that fell back to the SVM on the base kernel says so and keeps what it
learned inspectable."""

import inspect
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.preprocessing import MinMaxScaler

import kernlearn
from kernlearn import FallbackWarning


def exported_estimators():
    """Every estimator class ``kernlearn`` exports."""
    return [getattr(kernlearn, name) for name in kernlearn.__all__
            if inspect.isclass(getattr(kernlearn, name))
            and issubclass(getattr(kernlearn, name), BaseEstimator)]


def test_every_estimator_with_a_scale_parameter_defaults_to_no_scaling():
    """One scaling default across the package, scikit-learn's: none. An estimator with a
    ``scale`` parameter that defaulted to scaling would compare unscaled SVC/GridSearch
    fits against scaled ones."""
    defaults = {}
    for cls in exported_estimators():
        param = inspect.signature(cls).parameters.get("scale")
        if param is not None:
            defaults[cls.__name__] = param.default
    assert defaults, "no exported estimator has a scale parameter"
    assert set(defaults.values()) == {"none"}, defaults


# Fixed kernel widths: with gamma="scale" an RBF kernel adapts to a multiplicative change
# of the features, which would hide the difference this test looks for.
UNSCALED = [
    kernlearn.SVC(gamma=1.0),
    kernlearn.NuSVC(gamma=1.0, nu=0.3),
    kernlearn.SVR(gamma=1.0),
    kernlearn.NuSVR(gamma=1.0),
    kernlearn.OneClassSVM(gamma=1.0),
    kernlearn.GridSearch(kernlearn.SVC(), {"C": [1.0], "gamma": [1.0]}, cv=3),
    kernlearn.MKLClassifier("uniform", kernels="rbf(gamma=1)@all"),
    kernlearn.KNPLClassifier(sigma=1.0, C=1.0),
]


@pytest.mark.parametrize("estimator", UNSCALED, ids=lambda e: type(e).__name__)
def test_estimators_take_the_features_as_given(estimator):
    """Without a ``scale`` parameter (and with the default one), an estimator sees the
    features as given: fitted on the columns stretched and shifted, its decision values
    change; a fitted [0, 1] scaling would undo the change and leave them equal."""
    X, y = make_blobs(n_samples=40, centers=2, n_features=3, cluster_std=1.5, random_state=1)
    X = MinMaxScaler().fit_transform(X)
    if "scale" not in inspect.signature(type(estimator)).parameters:
        assert type(estimator).__name__ in {"SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM", "GridSearch"}
    stretched = X * np.array([3.0, 0.5, 7.0]) + np.array([1.0, -2.0, 5.0])
    target = y.astype(np.float64)
    def outputs(features):
        fitted = clone(estimator).fit(features, target)
        return (fitted.decision_function if hasattr(fitted, "decision_function") else fitted.predict)(features)

    a, b = outputs(X), outputs(stretched)
    assert not np.allclose(a, b), f"{type(estimator).__name__} scaled its features"


def blobs():
    """Two well-separated blobs: the tuned SVM is as good as any learned kernel, so a
    grid-selected learned kernel falls back to it."""
    X, y = make_blobs(n_samples=60, centers=2, n_features=2, cluster_std=1.0, random_state=0)
    return MinMaxScaler().fit_transform(X), y


GRID = dict(select="grid", grid={"sigma": [0.5, 1.0], "C": [1.0, 4.0]}, cv=3, random_state=0)


def test_a_fallback_warns_and_keeps_the_declined_learned_kernel():
    X, y = blobs()
    with pytest.warns(FallbackWarning, match=r"MKLClassifier: mwumkl.*SVM-CV model"):
        mkl = kernlearn.MKLClassifier("mwumkl", **GRID).fit(X, y)
    assert mkl.fell_back_ is True
    assert mkl.chosen_["other"]["fell_back_to_base_svm"] == 1.0
    assert json_info(mkl.model_)["method"] == "c-svc"
    # What the learned kernel chose stays visible: the declined model's weights (the
    # selection's candidates are UNIFORM and MWUMKL at SVM-CV's C).
    declined = json_info(mkl.declined_model_)["method"]
    assert declined in ("mwumkl", "uniform")
    assert mkl.weights_.shape[0] == 1 and np.allclose(mkl.weights_.sum(axis=1), 1.0)
    np.testing.assert_allclose(mkl.weights_, mkl.learned_kernel()["weights"])
    # The predictions are the SVM's: the same as GridSearch(SVC()) at the chosen σ and C.
    svm = kernlearn.SVC(C=mkl.chosen_["c"], gamma=1.0 / mkl.chosen_["sigma"] ** 2).fit(X, y)
    np.testing.assert_array_equal(mkl.predict(X), svm.predict(X))
    # Pickling keeps both models.
    restored = pickle.loads(pickle.dumps(mkl))
    np.testing.assert_array_equal(restored.weights_, mkl.weights_)
    assert json_info(restored.declined_model_)["method"] == declined
    np.testing.assert_array_equal(restored.predict(X), mkl.predict(X))


def test_every_learned_view_reads_the_declined_model_after_a_fallback():
    X, y = blobs()
    with pytest.warns(FallbackWarning, match="LocalizedMKLClassifier: lmkl"):
        lmkl = kernlearn.LocalizedMKLClassifier("lmkl", **GRID).fit(X, y)
    assert lmkl.fell_back_
    gates = lmkl.gates(X[:5])
    assert gates.shape[0] == 5 and np.allclose(gates.sum(axis=1), 1.0)
    with pytest.warns(FallbackWarning, match="DANKClassifier: dank"):
        dank = kernlearn.DANKClassifier(**GRID).fit(X, y)
    support, rows = dank.learned_matrix()
    assert rows.shape == (len(support), len(y))


def test_no_fallback_no_warning():
    X, y = blobs()
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        kept = kernlearn.MKLClassifier("mwumkl", fallback=False, **GRID).fit(X, y)
        plain = kernlearn.MKLClassifier("mwumkl").fit(X, y)
        hyper = kernlearn.HyperkernelClassifier(rank=20).fit(X, y)
    for est in (kept, plain, hyper):
        assert est.fell_back_ is False and est.declined_model_ is None
    assert json_info(kept.model_)["method"] == "mwumkl"
    assert np.allclose(kept.weights_.sum(axis=1), 1.0)
    assert "fell_back_to_base_svm" not in kept.chosen_.get("other", {})


def test_a_fit_stopped_by_its_warning_leaves_the_estimator_unfitted():
    X, y = blobs()
    mkl = kernlearn.MKLClassifier("mwumkl", **GRID)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        with pytest.raises(FallbackWarning):
            mkl.fit(X, y)
    assert not hasattr(mkl, "model_") and not hasattr(mkl, "classes_")
    with pytest.raises(NotFittedError):
        mkl.predict(X)
    # A refit stopped the same way keeps the previous, complete fit.
    with pytest.warns(FallbackWarning):
        mkl.fit(X, y)
    before = mkl.predict(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        with pytest.raises(FallbackWarning):
            mkl.fit(X, y)
    np.testing.assert_array_equal(mkl.predict(X), before)
    assert mkl.n_features_in_ == X.shape[1]
    # The same for the SVMs' own warning.
    svc = kernlearn.SVC(max_iter=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        with pytest.raises(ConvergenceWarning):
            svc.fit(X, y)
    with pytest.raises(NotFittedError):
        svc.predict(X)


def test_fallback_warning_is_a_user_warning():
    assert issubclass(FallbackWarning, UserWarning)
    assert "FallbackWarning" in kernlearn.__all__


def json_info(model):
    import json

    return json.loads(model.info())
