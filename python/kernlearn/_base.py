"""Shared machinery of the estimators: input validation, label encoding, the one-vs-one
layout conversion from kernlearn's class order to scikit-learn's, and pickling."""

import functools
import json
import numbers
import os
import sys
import zlib
from typing import Any, Callable, Union

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from . import _core


def as_features(X):
    """``X`` as the C-contiguous float64 array the extension reads without conversion."""
    return np.ascontiguousarray(X, dtype=np.float64)


def csr_parts(X):
    """A validated CSR matrix as the extension's arguments: shape and the ``indptr``,
    ``indices`` (int64) and ``data`` (float64) arrays, indices sorted and summed."""
    X = X.copy() if not X.has_canonical_format else X
    X.sum_duplicates()
    X.sort_indices()
    return (
        (int(X.shape[0]), int(X.shape[1])),
        np.ascontiguousarray(X.indptr, dtype=np.int64),
        np.ascontiguousarray(X.indices, dtype=np.int64),
        np.ascontiguousarray(X.data, dtype=np.float64),
    )


def _accept_sparse(estimator):
    """``"csr"`` for estimators with sparse kernels (CSC and COO are converted), else
    False: scikit-learn's validation then raises its ``TypeError`` for sparse input."""
    return "csr" if getattr(estimator, "_accepts_sparse", False) else False


def check_fit_data(estimator, X, y, classifier, supervised=True, validate_X=True):
    """Validates ``X, y`` for ``fit`` (sets ``n_features_in_``); for classifiers also sets
    ``classes_`` and returns the labels as the numbers kernlearn trains on
    (:func:`label_values`). Unsupervised estimators pass ``supervised=False``;
    ``validate_X=False`` (a callable kernel, which reads ``X`` itself) only checks that
    ``X`` and ``y`` have the same length. Sparse ``X`` is accepted (as CSR) by the
    estimators that set ``_accepts_sparse``."""
    accept = _accept_sparse(estimator)
    if not supervised:
        if validate_X:
            X = validate_data(estimator, X, accept_sparse=accept, dtype=np.float64, order="C")
        return X, None
    if validate_X:
        X, y = validate_data(
            estimator, X, y, accept_sparse=accept, dtype=np.float64, order="C",
            y_numeric=not classifier,
        )
    else:
        check_consistent_length(X, y)
        y = column_or_1d(y)
    if not classifier:
        return X, np.ascontiguousarray(y, dtype=np.float64)
    check_classification_targets(y)
    estimator.classes_, codes = np.unique(y, return_inverse=True)
    if len(estimator.classes_) < 2:
        raise ValueError(
            f"Classifier can't train when only one class is present (class "
            f"{estimator.classes_[0]!r}); kernlearn needs at least two classes."
        )
    return X, label_values(estimator.classes_)[codes]


def label_values(classes):
    """The numbers kernlearn trains on for ``classes`` (sorted): the labels themselves
    when they are numbers (so a saved model predicts them, also from the command line),
    else their codes ``0..k-1``."""
    if np.issubdtype(classes.dtype, np.number) and np.all(np.isfinite(classes)):
        return classes.astype(np.float64)
    return np.arange(len(classes), dtype=np.float64)


def check_predict_data(estimator, X):
    """Validates ``X`` for prediction against the fitted estimator."""
    check_is_fitted(estimator)
    return validate_data(
        estimator, X, accept_sparse=_accept_sparse(estimator), dtype=np.float64, order="C",
        reset=False,
    )


def model_decision(model, X, estimator=None):
    """Decision values of the fitted ``kernlearn._core.Model`` on dense or CSR ``X``
    (``estimator`` may refuse sparse input first, as scikit-learn's SVMs do after a
    dense fit)."""
    if estimator is not None and hasattr(estimator, "_check_sparse_predict"):
        estimator._check_sparse_predict(X)
    if sp.issparse(X):
        return model.decision_function(csr_parts(X))
    return model.decision_function(as_features(X))


def model_predict(model, X, estimator=None):
    """Predictions of the fitted ``kernlearn._core.Model`` on dense or CSR ``X`` (see
    :func:`model_decision` for ``estimator``)."""
    if estimator is not None and hasattr(estimator, "_check_sparse_predict"):
        estimator._check_sparse_predict(X)
    if sp.issparse(X):
        return model.predict(csr_parts(X))
    return model.predict(as_features(X))


#: The papers' grid values for σ and C: 2^-5, ..., 2^5.
PAPER_POWERS = [2.0**e for e in range(-5, 6)]


def seed_of(random_state, default):
    """The library's integer seed for a scikit-learn ``random_state`` (``default`` for
    None, the integer itself, or a draw from a RandomState)."""
    if random_state is None:
        return default
    if isinstance(random_state, numbers.Integral):
        return int(random_state)
    return int(check_random_state(random_state).randint(0, 2**31 - 1))


def classifier_scores(ovo, n_classes, shape="ovr"):
    """scikit-learn's ``decision_function`` from decision values per sorted class pair:
    for two classes one column, positive meaning ``classes_[1]``; else the one-vs-rest
    scores (``shape="ovr"``) or the pairs themselves (``"ovo"``)."""
    if n_classes == 2:
        return -ovo[:, 0]
    if shape == "ovr":
        return ovr_decision_function(ovo < 0, -ovo, n_classes)
    return ovo


def ovr_decision_function(predictions, confidences, n_classes):
    """One-vs-rest scores from one-vs-one results, as scikit-learn's SVC computes them:
    votes plus the summed confidences squashed into (-1/3, 1/3) to break ties."""
    n = predictions.shape[0]
    votes = np.zeros((n, n_classes))
    confidence_sums = np.zeros((n, n_classes))
    k = 0
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            confidence_sums[:, i] -= confidences[:, k]
            confidence_sums[:, j] += confidences[:, k]
            votes[predictions[:, k] == 0, i] += 1
            votes[predictions[:, k] == 1, j] += 1
            k += 1
    return votes + confidence_sums / (3 * (np.abs(confidence_sums) + 1))


class PairLayout:
    """How kernlearn's one-vs-one pairs map onto scikit-learn's.

    kernlearn (like LIBSVM) orders classes by first appearance in the training labels;
    scikit-learn sorts them (``classes_``). The model's classes ``model_classes`` are the
    label values of ``classes_`` (see :func:`label_values`) in another order.
    Pair ``(i, j)``, ``i < j`` of sorted classes is the model's pair of the same two
    classes, with its sign flipped when the model put them in the other order.
    """

    def __init__(self, model_classes, classes):
        values = list(label_values(np.asarray(classes)))
        codes = [values.index(c) for c in model_classes]
        k = len(codes)
        self.n_classes = k
        self.position = {c: r for r, c in enumerate(codes)}  # code -> model class index
        model_pair = {}
        p = 0
        for a in range(k):
            for b in range(a + 1, k):
                model_pair[(a, b)] = p
                p += 1
        self.columns, self.signs = [], []
        for i in range(k):
            for j in range(i + 1, k):
                ri, rj = self.position[i], self.position[j]
                self.columns.append(model_pair[(min(ri, rj), max(ri, rj))])
                self.signs.append(1.0 if ri < rj else -1.0)
        self.columns = np.asarray(self.columns, dtype=np.intp)
        self.signs = np.asarray(self.signs)
        self.codes = codes

    def ovo(self, model_dec):
        """Decision values per sorted pair (positive: the pair's first class)."""
        return model_dec[:, self.columns] * self.signs

    def vote(self, ovo_dec):
        """LIBSVM's vote over sorted pairs (ties to the smaller class): class codes."""
        k = self.n_classes
        votes = np.zeros((ovo_dec.shape[0], k), dtype=np.int64)
        p = 0
        for i in range(k):
            for j in range(i + 1, k):
                positive = ovo_dec[:, p] > 0
                votes[positive, i] += 1
                votes[~positive, j] += 1
                p += 1
        return np.argmax(votes, axis=1)

    def proba_columns(self):
        """Model probability column of each sorted class."""
        return np.asarray([self.position[c] for c in range(self.n_classes)], dtype=np.intp)


#: Fitted attributes holding a ``kernlearn._core.Model`` -> the pickled state's key of its
#: model-file JSON.
_MODEL_ATTRIBUTES = {"model_": "_model_json", "declined_model_": "_declined_model_json"}


def _packed(text):
    """A model file's JSON as pickled: zlib-compressed UTF-8 (the decimal numbers of the
    JSON take about 2.2 times their binary size; compressed they take about their binary
    size, so a pickle stays close to scikit-learn's)."""
    return zlib.compress(text.encode("utf-8"), 6)


def unpacked_json(packed):
    """The JSON text of :func:`_packed` (a ``str`` as pickled by earlier versions)."""
    return packed if isinstance(packed, str) else zlib.decompress(packed).decode("utf-8")


def user_stacklevel():
    """``stacklevel`` for ``warnings.warn`` in the function calling this one that points
    at the first frame outside the kernlearn package: the user's ``fit`` call, however
    many of the package's frames (overriding fits, their atomic wrappers) lie between."""
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _atomic(fit):
    """``fit`` that leaves the estimator as it found it when it raises: every attribute
    it set is taken back (and any it replaced restored)."""

    @functools.wraps(fit)
    def atomic_fit(self, *args, **kwargs):
        before = dict(self.__dict__)
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise

    atomic_fit._kernlearn_atomic = True
    return atomic_fit


class AtomicFitMixin:
    """Makes every ``fit`` of the subclasses atomic: a fit that raises (an error, or a
    warning the caller's filters turn into one, such as
    ``warnings.simplefilter("error", kernlearn.FallbackWarning)``) leaves no fitted
    attribute behind; the estimator is as before the call (unfitted, or fitted by the
    previous ``fit``), never half fitted."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        fit = cls.__dict__.get("fit")
        if fit is not None and not getattr(fit, "_kernlearn_atomic", False):
            cls.fit = _atomic(fit)


class FittedModelMixin(AtomicFitMixin):
    """Holds the fitted ``kernlearn._core.Model`` in ``model_`` (and, for the learned
    kernels after a fallback, the declined one in ``declined_model_``) and pickles them
    through the library's model format (the JSON of ``kernlearn fit --model-out``)."""

    model_: "_core.Model"

    def __getstate__(self):
        state = self.__dict__.copy()
        for attribute, key in _MODEL_ATTRIBUTES.items():
            if attribute in state:
                model = state.pop(attribute)
                state[key] = None if model is None else _packed(model.to_json())
        return state

    def __setstate__(self, state):
        texts = {a: state.pop(key) for a, key in _MODEL_ATTRIBUTES.items() if key in state}
        self.__dict__.update(state)
        for attribute, text in texts.items():
            model = None if text is None else _core.Model.from_json(unpacked_json(text))
            setattr(self, attribute, model)

    def save(self, path: Union[str, "os.PathLike[str]"], force: bool = False) -> None:
        """Writes the fitted model as a kernlearn model file (readable by
        ``kernlearn predict --model`` and :func:`kernlearn.load`), atomically (temporary
        file and rename).

        Parameters
        ----------
        path : str or path-like
            Destination.
        force : bool, default=False
            Replace an existing file; without it an existing file is a
            ``FileExistsError``.
        """
        check_is_fitted(self)
        self.model_.save(os.fspath(path), force)

    def _check_predict(self, X):
        """``X`` validated for prediction."""
        return check_predict_data(self, X)

    def _features(self, X):
        """What the fitted model reads for validated ``X`` (the features; sparse ``X``
        stays sparse)."""
        return X if sp.issparse(X) else as_features(X)

    def _model_info(self):
        return json.loads(self.model_.info())


class NoveltyMixin:
    """Prediction of the one-class estimators (``OneClassSVM``, ``HyperkernelNovelty``):
    the fitted model's single decision value, ``offset_`` set by ``fit``."""

    # What the mixin reads of the estimator it is mixed into (for type checkers).
    model_: "_core.Model"
    offset_: float
    _check_predict: Callable[[Any], Any]
    _features: Callable[[Any], Any]

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Signed distance to the boundary (positive: inlier).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = self._check_predict(X)
        return model_decision(self.model_, self._features(X), self)[:, 0]

    def score_samples(self, X: ArrayLike) -> NDArray[np.float64]:
        """Raw scores, ``decision_function(X) + offset_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.decision_function(X) + self.offset_

    def predict(self, X: ArrayLike) -> NDArray[np.int64]:
        """+1 for inliers, -1 for outliers.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = self._check_predict(X)
        return model_predict(self.model_, self._features(X), self).astype(np.int64)


class RegressorPredictMixin:
    """``predict`` of the regressors: the fitted model's value."""

    # What the mixin reads of the estimator it is mixed into (for type checkers).
    model_: "_core.Model"
    _check_predict: Callable[[Any], Any]
    _features: Callable[[Any], Any]

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """Predicted targets.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = self._check_predict(X)
        return model_predict(self.model_, self._features(X), self)
