"""The ARD-SVM from Python: it finds the informative features among noise, reports their
relevance, and beats scikit-learn's tuned RBF SVM there on paired splits."""

import warnings

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC as SkSVC

import kernlearn


def circle_with_noise(n, noise, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 2 + noise))
    y = np.where((X[:, 0] - 0.5) ** 2 + (X[:, 1] - 0.5) ** 2 < 0.1, 1, -1)
    return X, y


def test_ard_finds_the_informative_features_and_beats_a_tuned_rbf_svm():
    X, y = circle_with_noise(240, 8, 1)
    Xt, yt = circle_with_noise(600, 8, 2)
    ard = kernlearn.ARDClassifier(select="grid").fit(X, y)
    assert not ard.fell_back_
    relevance = ard.feature_relevance_
    assert relevance.shape == (10,)
    assert relevance.sum() == pytest.approx(1.0)
    assert relevance[:2].sum() > 0.8, relevance
    grid = {"C": 2.0 ** np.arange(-5, 6), "gamma": 2.0 ** np.arange(-10, 11, 2)}
    svm = GridSearchCV(SkSVC(), grid, cv=5).fit(X, y)
    assert ard.score(Xt, yt) > svm.score(Xt, yt) + 0.03


def test_relevance_of_a_method_that_learns_none_is_an_attribute_error():
    X, y = circle_with_noise(80, 1, 3)
    model = kernlearn.KNPLClassifier(sigma=1.0).fit(X, y)
    with pytest.raises(AttributeError, match="learns no per-feature relevance"):
        model.feature_relevance_


def test_after_a_fallback_the_relevance_is_the_declined_kernels():
    # Every column relevant: SVM-CV is as good, the selection falls back.
    rng = np.random.default_rng(4)
    X = rng.normal(size=(120, 3))
    y = np.where(X.sum(axis=1) > 0, 1, -1)
    est = make_pipeline(MinMaxScaler(), kernlearn.ARDClassifier(select="grid"))
    with pytest.warns(kernlearn.FallbackWarning):
        est.fit(X, y)
    ard = est[-1]
    assert ard.fell_back_
    assert ard.feature_relevance_.shape == (3,)


def test_ard_svr_finds_the_informative_features_and_beats_a_tuned_rbf_svr():
    """ARD-SVR on y = sin(2π x₀) + x₁ among six noise features: the relevance goes to
    the two real features and the held-out R² beats scikit-learn's grid-searched SVR."""
    from sklearn.svm import SVR as SkSVR

    def wave(n, seed):
        rng = np.random.default_rng(seed)
        X = rng.uniform(size=(n, 8))
        return X, np.sin(2 * np.pi * X[:, 0]) + X[:, 1] + 0.05 * rng.normal(size=n)

    X, y = wave(240, 1)
    Xt, yt = wave(600, 2)
    ard = kernlearn.ARDRegressor(select="grid").fit(X, y)
    assert not ard.fell_back_
    assert ard.feature_relevance_[:2].sum() > 0.8, ard.feature_relevance_
    grid = {"C": 2.0 ** np.arange(-5, 6, 2), "gamma": 2.0 ** np.arange(-10, 11, 2),
            "epsilon": [0.01, 0.1]}
    svr = GridSearchCV(SkSVR(), grid, cv=5).fit(X, y)
    assert ard.score(Xt, yt) > svr.score(Xt, yt) + 0.05, (ard.score(Xt, yt), svr.score(Xt, yt))


def _one_hot_data(n, seed):
    """A 3-valued attribute one-hot encoded (columns 1-3: its value decides the class
    with column 0), beside two noise columns."""
    rng = np.random.default_rng(seed)
    value = rng.integers(0, 3, size=n)
    X = np.column_stack([rng.uniform(size=n), np.eye(3)[value], rng.uniform(size=(n, 2))])
    y = np.where((value == 1) ^ (X[:, 0] > 0.5), 1, -1)
    return X, y


@pytest.mark.parametrize("groups", ["1-3", "auto"])
def test_the_columns_of_a_one_hot_attribute_share_one_width(groups):
    """With ``ard_groups`` the three columns of one attribute get one width: each
    column's relevance is that width times the column's own spread 2·Var(x_k), so
    relevance / variance is the same for the three. ``"auto"`` finds the block from a
    DataFrame's column names; ``"none"`` learns three different widths."""
    X, y = _one_hot_data(300, 5)
    if groups == "auto":
        pd = pytest.importorskip("pandas")
        X = pd.DataFrame(X, columns=["x", "color_red", "color_green", "color_blue", "n1", "n2"])
    est = kernlearn.ARDClassifier(ard_groups=groups).fit(X, y)
    per_spread = est.feature_relevance_[1:4] / np.var(np.asarray(X)[:, 1:4], axis=0)
    np.testing.assert_allclose(per_spread, per_spread[0], rtol=1e-9)
    free = kernlearn.ARDClassifier(ard_groups="none").fit(np.asarray(X), y)
    per_spread = free.feature_relevance_[1:4] / np.var(np.asarray(X)[:, 1:4], axis=0)
    assert np.ptp(per_spread) > 1e-3 * per_spread.max()


def test_a_dataframe_fit_raises_no_feature_name_warning():
    """Fitted on a DataFrame, the fit's own check of its training accuracy reads the
    validated rows: no "X does not have valid feature names" warning; predicting on
    the DataFrame is silent too."""
    pd = pytest.importorskip("pandas")
    X, y = circle_with_noise(120, 2, 3)
    df = pd.DataFrame(X, columns=[f"f{k}" for k in range(X.shape[1])])
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*feature names.*")
        est = kernlearn.ARDClassifier().fit(df, y)
        est.predict(df)
    assert list(est.feature_names_in_) == list(df.columns)


def test_the_radius_margin_refinement_fits_and_keeps_the_relevance_on_the_circle():
    """``ard_objective="radius-margin"`` refines the alignment's widths on the
    radius–margin bound: the fit still finds the circle's two features."""
    X, y = circle_with_noise(200, 4, 7)
    est = kernlearn.ARDClassifier(ard_objective="radius-margin", C=4.0).fit(X, y)
    assert est.feature_relevance_[:2].sum() > 0.8, est.feature_relevance_
    assert est.score(X, y) > 0.9
