"""Working with scikit-learn: pipelines, GridSearchCV, pickling, bad input, the grid
search, the learned-kernel estimators, the README (test_catalogue.py: their coverage of
the method catalogue)."""

import inspect
import os
import pickle
import re
import tempfile

import joblib
import numpy as np
import pytest
import scipy.sparse
from sklearn import svm
from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import GridSearchCV, StratifiedShuffleSplit, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.utils.validation import NotFittedError

import kernlearn
from conftest import dataset, scaled
from kernlearn.kernels import RBF, Family12, Polynomial


def heart_split():
    X, y = dataset("heart")
    return train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)


def test_pipeline_and_gridsearchcv_round_trip():
    X_train, X_test, y_train, y_test = heart_split()
    pipe = make_pipeline(MinMaxScaler(), kernlearn.SVC())
    grid = {"svc__C": [0.5, 5], "svc__gamma": [0.1, 1.0]}
    ours = GridSearchCV(pipe, grid, cv=3, n_jobs=2).fit(X_train, y_train)
    ref = GridSearchCV(make_pipeline(MinMaxScaler(), svm.SVC()), grid, cv=3).fit(X_train, y_train)
    assert ours.best_params_ == ref.best_params_
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"])
    np.testing.assert_array_equal(ours.predict(X_test), ref.predict(X_test))


@pytest.mark.parametrize(
    "estimator",
    [kernlearn.SVC(probability=True, random_state=1), kernlearn.NuSVR(), kernlearn.OneClassSVM(),
     kernlearn.DANKClassifier(), kernlearn.MKLClassifier("mwumkl"), kernlearn.LocalizedMKLClassifier()],
    ids=lambda e: type(e).__name__,
)
def test_pickle_and_joblib_round_trip(estimator, tmp_path):
    X_train, X_test, y_train, _ = heart_split()
    fitted = clone(estimator).fit(X_train, y_train)
    for restored in (pickle.loads(pickle.dumps(fitted)),
                     joblib.load(joblib.dump(fitted, tmp_path / "m.joblib")[0])):
        np.testing.assert_array_equal(restored.predict(X_test), fitted.predict(X_test))
        if hasattr(fitted, "decision_function"):
            np.testing.assert_array_equal(restored.decision_function(X_test), fitted.decision_function(X_test))


@pytest.mark.parametrize(
    "ours, theirs",
    [(kernlearn.SVC(C=4), svm.SVC(C=4)), (kernlearn.SVR(C=4), svm.SVR(C=4))],
    ids=["SVC", "SVR"],
)
def test_pickles_stay_within_one_and_a_half_times_sklearns(ours, theirs):
    """The model's JSON is pickled compressed and support_vectors_, which the model holds,
    is rebuilt on unpickling: every fitted attribute comes back equal, and the pickle is
    at most 1.5 times scikit-learn's."""
    X, y = dataset("glass")  # six classes: one-vs-one layout of the support vectors
    X = scaled(X)
    if isinstance(ours, kernlearn.SVR):
        y = X[:, 0] + np.sin(3 * X[:, 1])
    fitted = ours.fit(X, y)
    data = pickle.dumps(fitted)
    assert len(data) <= 1.5 * len(pickle.dumps(theirs.fit(X, y)))
    restored = pickle.loads(data)
    for name in ("support_vectors_", "support_", "dual_coef_", "intercept_", "n_support_"):
        np.testing.assert_array_equal(getattr(restored, name), getattr(fitted, name))
        assert getattr(restored, name).dtype == getattr(fitted, name).dtype
    np.testing.assert_array_equal(restored.predict(X), fitted.predict(X))
    # An altered support_vectors_ is pickled as it is (scikit-learn's checks see it).
    fitted.support_vectors_ = fitted.support_vectors_[:-1]
    assert pickle.loads(pickle.dumps(fitted)).support_vectors_.shape == fitted.support_vectors_.shape


def test_pickles_with_the_model_json_as_text_still_load():
    """Earlier pickles held the model file's JSON uncompressed."""
    X_train, X_test, y_train, _ = heart_split()
    fitted = kernlearn.SVC().fit(X_train, y_train)
    state = fitted.__getstate__()
    state["_model_json"] = fitted.model_.to_json()
    state["support_vectors_"] = fitted.support_vectors_
    restored = kernlearn.SVC()
    restored.__setstate__(state)
    np.testing.assert_array_equal(restored.decision_function(X_test), fitted.decision_function(X_test))


def test_saved_model_is_a_kernlearn_model_file(tmp_path):
    X_train, X_test, y_train, _ = heart_split()
    model = kernlearn.SVC(C=2).fit(X_train, y_train)
    path = tmp_path / "model.json"
    model.save(path)
    with pytest.raises(FileExistsError):
        model.save(path)
    loaded = kernlearn.load(path)
    np.testing.assert_array_equal(loaded.predict(X_test), model.predict(X_test))
    other = kernlearn.SVC(C=20).fit(X_train, y_train)
    other.save(path, force=True)
    np.testing.assert_array_equal(kernlearn.load(path).predict(X_test), other.predict(X_test))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json"]  # no temp file left


def test_bad_input_raises_what_sklearn_raises():
    X, y = dataset("heart")
    nan = X.copy()
    nan[3, 2] = np.nan
    for ours, ref in [(kernlearn.SVC(), svm.SVC()), (kernlearn.SVR(), svm.SVR())]:
        for Xb, yb in [(nan, y), (X[:, 0], y), (X, y[:-1])]:  # NaN, 1-D X, lengths
            with pytest.raises(Exception) as theirs:
                clone(ref).fit(Xb, yb)
            with pytest.raises(type(theirs.value)):
                clone(ours).fit(Xb, yb)
        # Both take sparse input, and predict alike from it.
        Xs = scipy.sparse.csr_matrix(X)
        np.testing.assert_allclose(
            clone(ours).fit(Xs, y).predict(Xs), clone(ref).fit(Xs, y).predict(Xs),
            rtol=1e-3, atol=1e-3,
        )
    # Estimators without sparse kernels refuse it as scikit-learn's dense-only ones do.
    with pytest.raises(TypeError, match="[Ss]parse"):
        kernlearn.KNPLClassifier().fit(scipy.sparse.csr_matrix(X), y)
    with pytest.raises(ValueError, match="only one class"):
        kernlearn.SVC().fit(X, np.ones(len(y)))
    with pytest.raises(ValueError, match="Unknown label type"):
        kernlearn.SVC().fit(X, np.linspace(0, 1, len(y)))
    with pytest.raises(NotFittedError):
        kernlearn.SVC().predict(X)
    with pytest.raises(ValueError, match="features"):
        kernlearn.SVC().fit(X, y).predict(X[:, :5])
    with pytest.raises(ValueError, match="C"):
        kernlearn.SVC(C=-1).fit(X, y)


def test_library_errors_name_the_option():
    X, y = dataset("heart")
    with pytest.raises(ValueError, match="mwu-epsilon"):
        kernlearn.MKLClassifier("easymkl", mwu_epsilon=0.1).fit(X, y)
    with pytest.raises(ValueError, match="tau"):
        kernlearn.DANKClassifier(tau=-1).fit(X, y)
    with pytest.raises(ValueError, match="method"):
        kernlearn.MKLClassifier("simplemkl").fit(X, y)


def test_grid_search_picks_what_gridsearchcv_picks_on_the_same_folds():
    X, y = dataset("heart")
    X = scaled(X)
    grid = {"C": [2.0**e for e in range(-3, 6, 2)], "gamma": [2.0**e for e in range(-6, 2, 2)]}
    ours = kernlearn.GridSearch(kernlearn.SVC(), grid, cv=5, random_state=3).fit(X, y)
    folds = [(np.setdiff1d(np.arange(len(y)), test), test) for test in ours.folds_]
    ref = GridSearchCV(svm.SVC(), grid, cv=folds).fit(X, y)
    by_params = {tuple(sorted(p.items())): s for p, s in zip(ref.cv_results_["params"], ref.cv_results_["mean_test_score"])}
    for params, score in zip(ours.cv_results_["params"], ours.cv_results_["mean_test_score"]):
        key = tuple(sorted((k, v) for k, v in params.items()))
        match = [s for p, s in by_params.items() if all(np.isclose(dict(p)[k], v) for k, v in key)]
        assert len(match) == 1 and abs(match[0] - score) < 1e-12, (params, score, match)
    assert np.isclose(ours.best_score_, ref.best_score_)
    assert np.isclose(ours.best_params_["C"], ref.best_params_["C"])
    assert np.isclose(ours.best_params_["gamma"], ref.best_params_["gamma"])
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


def test_grid_search_regression_and_errors():
    X, y = dataset("housing")
    X = scaled(X)
    gs = kernlearn.GridSearch(kernlearn.SVR(), {"C": [1, 10], "sigma": [0.5, 2], "epsilon": [0.5]}, cv=3).fit(X, y)
    assert gs.best_score_ <= 0 and set(gs.best_params_) == {"C", "gamma", "epsilon"}
    with pytest.raises(TypeError):
        kernlearn.GridSearch(svm.SVC()).fit(X, y)
    with pytest.raises(ValueError, match="param_grid is required"):
        kernlearn.GridSearch(kernlearn.SVC(kernel="linear")).fit(X, y > y.mean())


def assert_same_search(ours, ref, tol=1e-9):
    """Every grid point's mean CV score (to ``tol``) and the pick equal ``GridSearchCV``'s."""
    key = lambda p: tuple(sorted((k, round(float(v), 12)) for k, v in p.items()))  # noqa: E731
    ref_scores = {key(p): s for p, s in zip(ref.cv_results_["params"], ref.cv_results_["mean_test_score"])}
    for params, score in zip(ours.cv_results_["params"], ours.cv_results_["mean_test_score"]):
        assert abs(ref_scores[key(params)] - score) < tol, (params, score)
    assert key(ours.best_params_) == key(ref.best_params_)
    assert np.isclose(ours.best_score_, ref.best_score_)


def test_grid_search_takes_scikit_learn_splitters_and_iterables_on_the_fast_path():
    from sklearn.model_selection import KFold, ShuffleSplit, StratifiedKFold

    X, y = dataset("heart")
    X = scaled(X)
    grid = {"C": [0.5, 4.0, 32.0], "gamma": [1 / 64, 1 / 8, 1.0]}
    for cv in (StratifiedKFold(4), KFold(3, shuffle=True, random_state=1)):
        ours = kernlearn.GridSearch(kernlearn.SVC(), grid, cv=cv).fit(X, y)
        assert ours.fast_path_ and ours.n_splits_ == cv.get_n_splits()
        assert_same_search(ours, GridSearchCV(svm.SVC(), grid, cv=cv).fit(X, y))
    folds = list(StratifiedKFold(3).split(X, y))
    ours = kernlearn.GridSearch(kernlearn.SVC(), grid, cv=iter(folds)).fit(X, y)
    assert_same_search(ours, GridSearchCV(svm.SVC(), grid, cv=folds).fit(X, y))
    with pytest.raises(ValueError, match="ShuffleSplit"):
        kernlearn.GridSearch(kernlearn.SVC(), grid, cv=ShuffleSplit(3, test_size=0.2, train_size=0.5, random_state=0)).fit(X, y)


def test_grid_search_on_sparse_rows_runs_the_library_search_and_equals_gridsearchcv():
    """scipy.sparse X takes the fast path (the library's search on CSR rows): every
    point's score and the pick equal GridSearchCV's over scikit-learn's sparse SVC, and
    the dense search's."""
    from sklearn.model_selection import StratifiedKFold

    X, y = dataset("heart")
    X = scaled(X)
    X[X < 0.3] = 0.0  # a third of the entries zero
    Xs = scipy.sparse.csr_matrix(X)
    grid = {"C": [0.5, 4.0, 32.0], "gamma": [1 / 64, 1 / 8, 1.0]}
    cv = StratifiedKFold(4)
    w = 1.0 + np.arange(len(y)) % 3
    ours = kernlearn.GridSearch(kernlearn.SVC(), grid, cv=cv).fit(Xs, y, sample_weight=w)
    assert ours.fast_path_
    assert scipy.sparse.issparse(ours.best_estimator_.support_vectors_)
    assert_same_search(ours, GridSearchCV(svm.SVC(), grid, cv=cv).fit(Xs, y, sample_weight=w))
    assert_same_search(ours, kernlearn.GridSearch(kernlearn.SVC(), grid, cv=cv).fit(X, y, sample_weight=w))


def test_grid_search_of_a_pipeline_and_balanced_accuracy_run_the_library_search():
    """A Pipeline ending in an RBF SVM (preprocessing fitted on each split's training
    rows) and the scorers of predictions (balanced accuracy, MAE) take the fast path and
    score every point as GridSearchCV does on the same folds."""
    from sklearn.model_selection import KFold, StratifiedKFold
    from sklearn.preprocessing import StandardScaler

    X, y = dataset("heart")
    cv = StratifiedKFold(3)
    grid = {"C": [0.5, 4.0, 32.0], "gamma": [1 / 64, 1 / 8, 1.0]}
    pipe_grid = {"svc__" + k: v for k, v in grid.items()}
    ours = kernlearn.GridSearch(make_pipeline(StandardScaler(), kernlearn.SVC()), pipe_grid, cv=cv, n_jobs=2).fit(X, y)
    assert ours.fast_path_ and set(ours.best_params_) == {"svc__C", "svc__gamma"}
    ref = GridSearchCV(make_pipeline(StandardScaler(), svm.SVC()), pipe_grid, cv=cv).fit(X, y)
    assert_same_search(ours, ref)
    assert ours.best_params_ == ref.best_params_  # the grid's values as given, not 1/σ²
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    # A grid over another step's parameters is GridSearchCV's; a key naming no step is
    # its error, not a silently default grid.
    from sklearn.decomposition import PCA

    pca_grid = {"pca__n_components": [3, 5], "svc__C": [1.0, 4.0]}
    ours = kernlearn.GridSearch(make_pipeline(StandardScaler(), PCA(), kernlearn.SVC()), pca_grid, cv=cv).fit(X, y)
    assert not ours.fast_path_
    assert_same_search(ours, GridSearchCV(make_pipeline(StandardScaler(), PCA(), svm.SVC()), pca_grid, cv=cv).fit(X, y))
    with pytest.raises(ValueError, match="Invalid parameter 'C'"):
        kernlearn.GridSearch(make_pipeline(StandardScaler(), kernlearn.SVC()), {"C": [1.0]}, cv=cv).fit(X, y)
    # An integer cv: the folds of the plain search with the same cv and random_state.
    plain = kernlearn.GridSearch(kernlearn.SVC(), grid, cv=4, random_state=2).fit(scaled(X), y)
    piped = kernlearn.GridSearch(make_pipeline(MinMaxScaler(), kernlearn.SVC()), pipe_grid, cv=4, random_state=2).fit(X, y)
    assert [f.tolist() for f in piped.folds_] == [f.tolist() for f in plain.folds_]
    ours = kernlearn.GridSearch(kernlearn.SVC(), grid, cv=cv, scoring="balanced_accuracy").fit(scaled(X), y)
    assert ours.fast_path_ and ours.selection_["metric"] == "balanced_accuracy"
    ref = GridSearchCV(svm.SVC(), grid, cv=cv, scoring="balanced_accuracy").fit(scaled(X), y)
    assert_same_search(ours, ref)
    assert np.isclose(ours.score(scaled(X), y), ref.score(scaled(X), y))
    Xr, yr = dataset("housing")
    reg_grid = {"C": [1.0, 10.0], "gamma": [0.1, 1.0], "epsilon": [0.5]}
    kf = KFold(3, shuffle=True, random_state=0)
    ours = kernlearn.GridSearch(kernlearn.SVR(), reg_grid, cv=kf, scoring="neg_mean_absolute_error").fit(scaled(Xr), yr)
    assert ours.fast_path_ and ours.best_score_ < 0
    # Regression values agree to the solvers' stopping tolerance (1e-3), not to the bit.
    ref = GridSearchCV(svm.SVR(), reg_grid, cv=kf, scoring="neg_mean_absolute_error").fit(scaled(Xr), yr)
    assert_same_search(ours, ref, tol=1e-4)


def test_grid_search_takes_other_scorers_kernels_and_pipelines_through_gridsearchcv(capsys):
    from sklearn.model_selection import StratifiedKFold
    from sklearn.preprocessing import StandardScaler

    X, y = dataset("heart")
    cv = StratifiedKFold(3)
    grid = {"C": [0.5, 4.0], "gamma": [1 / 64, 1 / 8]}
    ours = kernlearn.GridSearch(kernlearn.SVC(), grid, scoring="roc_auc", cv=cv, verbose=1).fit(scaled(X), y)
    assert not ours.fast_path_ and "GridSearchCV" in capsys.readouterr().out
    ref = GridSearchCV(svm.SVC(), grid, scoring="roc_auc", cv=cv).fit(scaled(X), y)
    assert_same_search(ours, ref)
    assert np.isclose(ours.score(scaled(X), y), ref.score(scaled(X), y))
    pipe_grid = {"svc__C": [0.5, 4.0], "svc__gamma": [1 / 64, 1 / 8]}
    w = 1.0 + np.arange(len(y)) % 2  # weights: GridSearchCV around the pipeline
    ours = kernlearn.GridSearch(make_pipeline(StandardScaler(), kernlearn.SVC()), pipe_grid, cv=cv).fit(X, y, sample_weight=w)
    assert not ours.fast_path_
    ref = GridSearchCV(make_pipeline(StandardScaler(), svm.SVC()), pipe_grid, cv=cv).fit(X, y, svc__sample_weight=w)
    assert_same_search(ours, ref)
    poly = {"C": [0.5, 4.0], "degree": [2, 3]}
    ours = kernlearn.GridSearch(kernlearn.SVC(kernel="poly"), poly, cv=cv).fit(scaled(X), y)
    assert_same_search(ours, GridSearchCV(svm.SVC(kernel="poly"), poly, cv=cv).fit(scaled(X), y))
    with pytest.raises(TypeError, match="Pipeline ending"):
        kernlearn.GridSearch(make_pipeline(StandardScaler(), svm.SVC()), pipe_grid).fit(X, y)


def test_learned_kernels_fit_real_data_and_expose_what_they_learned():
    X_train, X_test, y_train, y_test = heart_split()
    svm_acc = kernlearn.SVC(gamma=1.0, C=1.0).fit(scaled(X_train), y_train)
    # The papers' [0, 1] scaling, asked for (the estimators take the features as given).
    mkl = kernlearn.MKLClassifier("mwumkl", kernels=[Family12()], scale="01").fit(X_train, y_train)
    assert mkl.weights_.ndim == 2 and np.allclose(mkl.weights_.sum(axis=1), 1.0)
    assert mkl.score(X_test, y_test) > 0.7
    lmkl = kernlearn.LocalizedMKLClassifier("lmkl", kernels=[RBF(sigma=0.5), Polynomial(degree=2)], scale="01").fit(X_train, y_train)
    gates = lmkl.gates(X_test)
    assert gates.shape == (len(X_test), 2) and np.allclose(gates.sum(axis=1), 1.0)
    # A saved and loaded model offers the same per-row artefact.
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "lmkl.json")
        lmkl.model_.save(path)
        loaded = kernlearn.load(path)
    assert np.array_equal(loaded.gates(X_test), gates)
    assert np.array_equal(loaded.representation(X_test, "gates"), gates)
    dank = kernlearn.DANKClassifier(select="grid", grid={"sigma": [1, 4], "C": [1, 10]}, scale="01", random_state=0).fit(X_train, y_train)
    assert set(dank.chosen_) >= {"sigma", "c"} and dank.selection_ is not None
    assert dank.score(X_test, y_test) > 0.7
    knpl = kernlearn.KNPLClassifier(sigma=2.0, C=1.0, scale="01").fit(X_train, y_train)
    assert knpl.score(X_test, y_test) > 0.7
    support, rows = knpl.learned_matrix()
    assert rows.shape == (len(support), len(y_train)) and np.all(np.isfinite(rows))
    # G is symmetric: the learned values between two support vectors agree both ways
    position = {int(i): s for s, i in enumerate(support)}
    a, b = int(support[0]), int(support[-1])
    assert np.isclose(rows[position[a], b], rows[position[b], a])
    reg = kernlearn.DANKRegressor(sigma=1.0, C=10.0, epsilon=0.5, scale="01")
    Xh, yh = dataset("housing")
    assert reg.fit(Xh, yh).score(Xh, yh) > 0.5
    assert svm_acc.score(scaled(X_test), y_test) > 0.7


def test_readme_python_quickstart_runs(tmp_path, monkeypatch):
    """The README's ```python block runs as written (in a scratch copy of data/)."""
    from conftest import BUNDLED, ROOT

    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    blocks = readme.split("```python\n")[1:]
    assert blocks, "README has no python block"
    (tmp_path / "data").mkdir()
    for name in ("heart.csv", "banana.csv"):
        (tmp_path / "data" / name).write_bytes(open(os.path.join(BUNDLED, name), "rb").read())
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        exec(compile(block.split("```")[0], "README.md", "exec"), {})
    assert (tmp_path / "svc.json").exists()


def test_paired_comparison_against_scipy():
    """compare() runs both estimators on the same splits; its Wilcoxon test is the
    library's, checked here against scipy.stats.wilcoxon on the same differences."""
    from scipy.stats import wilcoxon

    X, y = dataset("heart")
    X = scaled(X)
    result = kernlearn.compare(kernlearn.SVC(C=0.05), kernlearn.SVC(C=1.0), X, y, n_splits=8)
    d = result["differences"]
    assert len(d) == 8 and result["wins"] + result["ties"] + result["losses"] == 8
    assert np.isclose(result["mean_difference"], result["estimator_mean"] - result["baseline_mean"])
    if np.any(d != 0):
        ref = wilcoxon(d)
        assert np.isclose(result["wilcoxon"]["p_value"], ref.pvalue, rtol=1e-6)
    for diffs in ([0.02, -0.01, 0.03, 0.05, 0.01, -0.02, 0.04], [0.1, 0.1, -0.05, 0.2, 0.3]):
        ours = kernlearn._core.wilcoxon(diffs)
        assert np.isclose(__import__("json").loads(ours)["p_value"], wilcoxon(diffs).pvalue, rtol=1e-6)


def test_compare_counts_the_splits_on_which_each_side_fell_back():
    """A fallback is not a win: compare() says on how many splits each side fell back
    (None for an estimator without a fallback), counted against the fitted estimators
    themselves, and replaces the per-split FallbackWarnings by that count."""
    import warnings

    from kernlearn.exceptions import FallbackWarning

    X, y = dataset("heart")
    X = scaled(X)
    grid = dict(select="grid", grid={"sigma": [1.0, 4.0], "C": [1.0, 10.0]}, cv=3)
    learned = kernlearn.MKLClassifier("uniform", kernels="rbf(gamma=0.5)@all;linear@all", **grid)
    base = kernlearn.GridSearch(kernlearn.SVC(), param_grid={"C": [1.0, 10.0], "gamma": [1 / 16, 1.0]}, cv=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        result = kernlearn.compare(make_pipeline(MinMaxScaler(), learned), base, X, y, n_splits=3)
    assert result["baseline_fell_back"] is None
    expected = 0
    splits = StratifiedShuffleSplit(n_splits=3, test_size=0.5, random_state=0).split(X, y)
    for train, _ in splits:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FallbackWarning)
            expected += clone(make_pipeline(MinMaxScaler(), learned)).fit(X[train], y[train])[-1].fell_back_
    assert result["estimator_fell_back"] == expected


def test_near_uniform_mkl_weights_say_so_instead_of_reporting_equal_shares():
    """MWUMKL's thesis game at ε = 0.2 barely moves the weights: the fit warns, flags
    weights_near_uniform_ and reports no feature relevance; the default sparse MWUMKL
    moves them and reports it."""
    X_train, X_test, y_train, y_test = heart_split()
    with pytest.warns(UserWarning, match="within 0.1 of uniform"):
        dense = kernlearn.MKLClassifier(kernels="family12@each", C=1.0, mwu_epsilon=0.2, mwu_prune=False,
                                        scale="01").fit(X_train, y_train)
    assert dense.weights_near_uniform_ is True
    with pytest.raises(AttributeError, match="within 0.1 of uniform"):
        dense.feature_relevance_
    sparse = kernlearn.MKLClassifier(kernels="family12@each", C=1.0, scale="01").fit(X_train, y_train)
    assert sparse.weights_near_uniform_ is False
    assert np.isclose(sparse.feature_relevance_.sum(), 1.0)
    assert np.count_nonzero(sparse.weights_) < sparse.weights_.size / 4


def test_spg_gmkl_on_one_kernel_is_scikit_learns_svc_and_learns_weights_on_two():
    """SPG-GMKL with a single (trace-normalised, so unchanged) Gaussian kernel has only
    the weight 1 to learn: it is the SVM, here checked against scikit-learn's SVC."""
    X_train, X_test, y_train, y_test = heart_split()
    lo, span = X_train.min(axis=0), np.ptp(X_train, axis=0)
    span = np.where(span > 0, span, 1.0)
    Xs_train, Xs_test = (X_train - lo) / span, (X_test - lo) / span
    one = kernlearn.MKLClassifier("spg-gmkl", kernels="rbf(gamma=0.5)@all", C=2.0, scale="none").fit(Xs_train, y_train)
    assert np.allclose(one.weights_, 1.0)
    sk = svm.SVC(C=2.0, gamma=0.5, tol=1e-6).fit(Xs_train, y_train)
    agree = np.mean(one.predict(Xs_test) == sk.predict(Xs_test))
    assert agree >= 0.98, agree
    two = kernlearn.MKLClassifier("spg-gmkl", kernels="linear@all;rbf(gamma=0.5)@all", C=2.0, scale="01").fit(X_train, y_train)
    assert two.weights_.shape == (1, 2) and np.allclose(two.weights_.sum(axis=1), 1.0)
    assert two.score(X_test, y_test) > 0.7
    with pytest.raises(ValueError, match="gmkl-p"):
        kernlearn.MKLClassifier("spg-gmkl", kernels="linear@all", gmkl_p=3.0).fit(X_train, y_train)


def test_dkmo_fused_representation_is_what_the_softmax_reads():
    from sklearn.linear_model import LogisticRegression

    X_train, X_test, y_train, y_test = heart_split()
    dkmo = kernlearn.DKMOClassifier(hidden=[16], landmarks=10, epochs=40, random_state=0)
    dkmo.fit(X_train, y_train)
    fused_train = dkmo.fused_representation(X_train)
    fused_test = dkmo.fused_representation(X_test)
    assert fused_test.shape[0] == len(X_test) and fused_test.shape[1] >= 16
    assert np.all(np.isfinite(fused_test))
    assert np.array_equal(fused_test, dkmo.fused_representation(X_test))
    # A linear read-out of the fused layer classifies as well as the network's own head.
    readout = LogisticRegression(max_iter=2000).fit(fused_train, y_train)
    assert readout.score(fused_test, y_test) >= dkmo.score(X_test, y_test) - 0.1
    with pytest.raises(ValueError, match="dkmo"):
        kernlearn.KNPLClassifier(sigma=2.0, C=1.0).fit(X_train, y_train).model_.representation(
            np.ascontiguousarray(X_test, dtype=np.float64), "fused", 0)


def test_dkmo_refits_on_all_rows_unless_told_not_to():
    """``refit`` (default True) reaches the library: the kept network learnt from every
    training row; ``refit=False`` keeps the one trained outside the validation split."""
    X_train, _, y_train, _ = heart_split()
    rows = {}
    for refit in (True, False):
        dkmo = kernlearn.DKMOClassifier(hidden=[8], landmarks=10, epochs=8, refit=refit,
                                        random_state=0).fit(X_train, y_train)
        rows[refit] = dkmo.chosen_["other"]["dkmo_train_rows"]
    assert rows[True] == len(X_train) > rows[False]


def test_readme_estimator_list_names_every_exported_estimator():
    """README's "Estimators:" list (up to its first ``;``) names exactly the estimator
    classes ``kernlearn`` exports: `Name` or `Name(arguments)` in backticks."""
    from conftest import ROOT

    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    found = re.search(r"^Estimators:(.*?);", readme, re.M | re.S)
    assert found, "README has no 'Estimators:' list"
    named = set()
    for span in re.findall(r"`([^`]*)`", found.group(1)):
        entry = re.fullmatch(r"([A-Za-z_]\w*)(\(.*\))?", span, re.S)
        if entry is None:
            assert span == "sklearn.svm", f"README estimator list: {span!r} is no estimator"
            continue
        named.add(entry.group(1))
    exported = {name for name in kernlearn.__all__
                if inspect.isclass(getattr(kernlearn, name))
                and issubclass(getattr(kernlearn, name), BaseEstimator)}
    assert named == exported, (
        f"README lists {sorted(named - exported)} that kernlearn does not export and "
        f"leaves out {sorted(exported - named)}"
    )


def test_pickles_of_the_estimators_in_kernlearn_learned_still_load():
    """The learned-kernel estimators lived in kernlearn.learned; pickles that name that
    module load as the estimators of their modules now."""
    X_train, X_test, y_train, _ = heart_split()
    fitted = kernlearn.MKLClassifier("uniform").fit(X_train, y_train)
    data = pickle.dumps(fitted, protocol=2)  # protocol 2 names classes as text
    here = f"c{type(fitted).__module__}\nMKLClassifier\n".encode()
    assert here in data
    restored = pickle.loads(data.replace(here, b"ckernlearn.learned\nMKLClassifier\n"))
    assert type(restored) is kernlearn.MKLClassifier
    np.testing.assert_array_equal(restored.predict(X_test), fitted.predict(X_test))


def test_learned_kernel_of_a_multiclass_fit():
    """Per-pair statistics of different lengths come back as lists of arrays."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    learned = kernlearn.KNPLClassifier().fit(X[::2], y[::2]).learned_kernel()
    assert len(learned["classes"]) == 3
    assert all(np.ndim(v) >= 1 for v in learned["admm_iterations"])


def test_m_dkmo_with_default_arguments_fits():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    model = kernlearn.DKMOClassifier("m-dkmo", epochs=3, random_state=0).fit(X, y)
    assert model.predict(X).shape == y.shape


@pytest.mark.parametrize("name", ["SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM"])
def test_svms_take_every_parameter_of_scikit_learns_and_verbose_prints_libsvms_report(name, capsys):
    ours, theirs = getattr(kernlearn, name), getattr(svm, name)
    missing = set(inspect.signature(theirs).parameters) - set(inspect.signature(ours).parameters)
    assert not missing, f"kernlearn.{name} lacks {sorted(missing)}"
    X, y = dataset("heart")
    X = scaled(X)
    if name in ("SVR", "NuSVR"):
        y = X[:, 0]
    fitted = ours(verbose=True).fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"optimization finished, #iter = {int(np.sum(fitted.n_iter_))}", lines
    assert lines[1].startswith("obj = ") and ", rho = " in lines[1], lines
    assert lines[-1] == f"Total nSV = {len(fitted.support_)}", lines
    ours(verbose=False).fit(X, y)
    assert capsys.readouterr().out == ""


def test_a_learned_estimator_with_verbose_reports_its_fit(capsys):
    """verbose=True prints the parameters used, the paired CV scores and which model was
    kept (a fallback says so), and the machine's size; verbose=False prints nothing."""
    import warnings

    X, y = dataset("heart")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kernlearn.FallbackWarning)
        fitted = kernlearn.ARDClassifier(select="grid", grid={"sigma": [1.0, 2.0], "C": [1.0, 4.0]},
                                         verbose=True).fit(scaled(X), y)
        lines = capsys.readouterr().out.splitlines()
        assert lines[0].startswith("[ARDClassifier] ard: ") and "c=" in lines[0], lines
        kept = "SVM-CV (fell back)" if fitted.fell_back_ else "the learned kernel"
        assert "CV accuracy: learned kernel" in lines[1] and lines[1].endswith(f"kept {kept}"), lines
        assert lines[2].endswith(f"{fitted.summary_['n_support']} support vectors, "
                                 f"{fitted.summary_['iterations']} SMO iterations"), lines
        kernlearn.ARDClassifier().fit(scaled(X), y)
        assert capsys.readouterr().out == ""
