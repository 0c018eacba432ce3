"""The shared base of the learned-kernel estimators: the catalogue's option table as
Python parameters, and fitting, classification and regression through the library's
method catalogue (``kernlearn.methods()``), the same path as ``kernlearn fit``.

Every parameter left at ``None`` takes the paper's default, as on the command line; with
``select="grid"`` σ and C (and the method's own parameters where its catalogue entry says
so) are chosen by k-fold cross-validation on the training data (the papers' SVM-CV).
"""

import json
import warnings
from typing import Any, Optional, TypeVar, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from . import _core
from ._base import (
    PAPER_POWERS,
    FittedModelMixin,
    PairLayout,
    RegressorPredictMixin,
    as_features,
    check_fit_data,
    check_predict_data,
    classifier_scores,
    label_values,
    seed_of,
    user_stacklevel,
)
from .exceptions import FallbackWarning
from .kernels import family_spec, kernel_spec
from .svm import _ALL_ZERO_WEIGHTS

#: The catalogue's methods by name (``MethodKind::catalogue_json``), with what each
#: method's fit takes (``sample_weights``, ``sparse``).
_METHODS = {m["name"]: m for m in json.loads(_core.catalogue())["methods"]}



def _option_table():
    """The library's option table (``MethodKind::catalogue_json``), by Python parameter.

    Returns
    -------
    dict
        ``{param: option}``: each option is the catalogue's object (``name``, the
        command-line name; ``value``; ``choices``; ``help``; ``param``, the Python
        parameter; ``negated``, whether the parameter is the opposite of the option, a
        flag that turns off what the parameter, True by default, keeps on), in the
        table's order.
    """
    return {option["param"]: option for option in json.loads(_core.catalogue())["options"]}


#: Python parameter -> the catalogue's option object, generated from the library's option
#: table. Estimator parameters not in it (method, select, grid, cv, scale, random_state)
#: steer fitting itself.
OPTIONS = _option_table()

#: Python parameter -> library option (command-line name).
OPTION_OF = {param: option["name"] for param, option in OPTIONS.items()}


def _option_value(option, value):
    """The option's text for a parameter value, or ``None`` to leave it unset.

    Parameters
    ----------
    option : dict
        The catalogue's option object (see :data:`OPTIONS`).
    value : object
        The estimator parameter's value.

    Returns
    -------
    str or None
    """
    if value is None:
        return None
    if option["negated"]:  # the parameter is on by default; the option turns it off
        return None if value else "true"
    param = option["param"]
    if param == "kernel":
        return kernel_spec(value)
    if param == "kernels":
        return family_spec(value)
    if param == "hidden" and not isinstance(value, str):
        return ",".join(str(int(v)) for v in value)
    if isinstance(value, bool):
        return "true" if value else None
    return str(value)


class _LearnedKernel(FittedModelMixin, BaseEstimator):
    """Fitting through the library's method catalogue."""

    _regression = False

    def _method_name(self):
        return self._method

    def _options(self):
        """The library options of this estimator's parameters: ``[(name, text)]``."""
        options = [("problem", self._problem)] if getattr(self, "_problem", None) else []
        params = self.get_params(deep=False)
        for param, option in OPTIONS.items():
            if param in params:
                text = _option_value(option, params[param])
                if text is not None:
                    options.append((option["name"], text))
        return options

    def _grid_json(self):
        if getattr(self, "select", None) is None:  # the hyperkernel estimators have none
            return None
        if self.select != "grid":
            raise ValueError(f"select={self.select!r}: expected None or 'grid'")
        grid = dict(self.grid or {})
        unknown = set(grid) - {"sigma", "C", "epsilon"}
        if unknown:
            raise ValueError(f"grid has unknown keys {sorted(unknown)}; expected sigma, C, epsilon")
        return json.dumps(
            {
                "grid": {
                    "sigmas": [float(v) for v in grid.get("sigma", PAPER_POWERS)],
                    "cs": [float(v) for v in grid.get("C", PAPER_POWERS)],
                    "epsilons": [float(v) for v in grid.get("epsilon", [])],
                },
                "folds": int(self.cv),
                "gram_budget_bytes": 1 << 30,
            }
        )

    def _sample_weight(self, sample_weight, X):
        """``sample_weight`` checked as scikit-learn checks it (``_check_sample_weight``:
        a bad shape is its ``ValueError``); weights given to a method that cannot honour
        them (its catalogue entry's ``sample_weights`` is false) are a ``ValueError``
        naming the method, rather than ignored."""
        if sample_weight is None:
            return None
        w = _check_sample_weight(sample_weight, X, dtype=np.float64, **_ALL_ZERO_WEIGHTS)
        name = self._method_name()
        if not _METHODS[name]["sample_weights"]:
            if not np.any(w > 0):  # wrong whatever the method
                raise ValueError("sample_weight: every weight is zero or negative, no sample is left to fit")
            takes = ", ".join(n for n, m in _METHODS.items() if m["sample_weights"])
            raise ValueError(
                f"{type(self).__name__}: method {name!r} cannot honour sample_weight: its "
                f"kernel learning has no weighted form (methods that take sample_weight: "
                f"{takes}); fit it without sample_weight"
            )
        return np.ascontiguousarray(w)

    def _fit(self, X, y, sample_weight=None):
        if X.shape[0] < 2:
            raise ValueError(f"n_samples={X.shape[0]}: learning a kernel needs at least 2 training samples")
        weights = self._sample_weight(sample_weight, X)
        names = getattr(self, "feature_names_in_", None)
        model, chosen, declined = _core.fit_method(
            self._method_name(), self._options(), self.scale, self._grid_json(),
            seed_of(self.random_state, 0), X, y, self._regression, sample_weight=weights,
            feature_names=None if names is None else [str(n) for n in names],
        )
        self._fit_weights = weights
        return self._adopt(model, chosen, declined)

    def _adopt(self, model, chosen, declined=None):
        """Takes a fitted ``_core.Model``, its ``fit_method`` record (JSON) and, after a
        fallback, the declined learned kernel's model as this estimator's fit (also used
        by :mod:`kernlearn.ray`); warns with :class:`~kernlearn.FallbackWarning` when the
        fit fell back. Returns the model's info."""
        self.model_ = model
        self.declined_model_ = declined
        chosen = json.loads(chosen)
        self.chosen_ = {k: v for k, v in chosen["chosen"].items() if v is not None}
        self.selection_ = chosen["selection"]
        self.fell_back_ = bool(self.chosen_.get("other", {}).get(_core.FELL_BACK, 0))
        info = self._model_info()
        self.warnings_ = info["warnings"]
        self.summary_ = info["summary"]
        if getattr(self, "verbose", False):
            self._print_fit()
        for message in self.warnings_:  # what the model says of itself (e.g. near-uniform weights)
            warnings.warn(f"{type(self).__name__}: {message}", UserWarning, stacklevel=user_stacklevel())
        if self.fell_back_:
            warnings.warn(self._fallback_message(), FallbackWarning, stacklevel=user_stacklevel())
        return info

    def _print_fit(self):
        """The fit's report on standard output (``verbose=True``): the parameters used,
        the selection's CV scores and which model was kept, the fitted machine's size."""
        name = f"[{type(self).__name__}] {self._method_name()}"
        params = {k: v for k, v in self.chosen_.items() if not isinstance(v, dict)}
        text = (f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())
        print(f"{name}: {', '.join(text)}")
        scores = self._cv_comparison()
        if scores:
            kept = "SVM-CV (fell back)" if self.fell_back_ else "the learned kernel"
            print(f"{name}: {scores}; kept {kept}")
        summary = self.summary_
        if summary.get("n_support") is not None:
            print(f"{name}: {summary['n_support']} support vectors, "
                  f"{summary.get('iterations', 0)} SMO iterations", flush=True)

    def _cv_comparison(self):
        """``"CV accuracy: learned kernel …, SVM-CV …"`` (MSE for regression) on the
        selection's folds (the fallback's fold scores of both, or after a fallback the
        two CV scores), or ``""`` when no selection compared them."""
        evidence = self.chosen_.get("fallback_evidence") or {}
        if evidence.get("learned") and evidence.get("svm"):
            learned, svm = np.mean(evidence["learned"]), np.mean(evidence["svm"])
        else:
            learned = self.chosen_.get("other", {}).get("learned_cv_score")
            svm = self.chosen_.get("cv_score")
        if learned is None or svm is None:
            return ""
        metric = "MSE" if self._regression else "accuracy"
        return f"CV {metric}: learned kernel {learned:.4g}, SVM-CV {svm:.4g}"

    def _fallback_message(self):
        """What the fallback warning says: the method, both CV scores and what was fitted."""
        scores = self._cv_comparison()
        scores = f" ({scores})" if scores else ""
        return (
            f"{type(self).__name__}: {self._method_name()}'s learned kernel did not beat "
            f"SVM-CV on the base kernel in cross-validation by more than one standard error "
            f"on both fold partitions{scores}, so the fitted model is "
            f"the SVM-CV model (sigma={self.chosen_.get('sigma')}, C={self.chosen_.get('c')}): "
            f"predictions are the SVM's. The declined learned kernel stays in "
            f"declined_model_ (and learned_kernel()); fallback=False keeps it as the model."
        )

    def _learned_model(self):
        """The model of the learned kernel: ``model_``, or after a fallback the declined
        learned kernel's model."""
        declined = getattr(self, "declined_model_", None)
        return declined if declined is not None else self.model_

    @property
    def feature_relevance_(self) -> NDArray[np.float64]:
        """Each input feature's relevance to the learned kernel, in column order, summing
        to 1: the ARD-SVM's share of each feature in its kernel's exponent, an MKL
        model's kernel weights split over the features each kernel reads. After a
        fallback (``fell_back_``), the declined learned kernel's. An ``AttributeError``
        for methods that learn no per-feature relevance, and for kernel weights within
        0.1 of uniform (UNIFORM's always), which say nothing of the features.

        Returns
        -------
        ndarray of shape (n_features,)
        """
        relevance = self.artefacts().get("feature_relevance", {}).get("value")
        if relevance is None and self.learned_kernel().get("near_uniform"):
            raise AttributeError(
                f"{type(self).__name__} ({self._method_name()}): the learned kernel weights "
                "are within 0.1 of uniform, so they say nothing of the features "
                "(weights_near_uniform_); no feature relevance is reported"
            )
        if relevance is None:
            raise AttributeError(
                f"{type(self).__name__} ({self._method_name()}) learns no per-feature relevance"
            )
        return relevance

    def artefacts(self) -> dict[str, dict[str, Any]]:
        """What the learned kernel shows of itself beyond its predictions, by name
        (after a fallback, the declined learned kernel's): ``feature_relevance``
        (per-feature), ``gates`` and ``fused`` (per-row: :meth:`representation`),
        ``spectrum`` (a figure the command line draws).

        Returns
        -------
        dict
            ``name -> {"kind", "about"}``, with ``"value"`` (ndarray of shape
            (n_features,)) for the per-feature ones.
        """
        check_is_fitted(self)
        out = {}
        for artefact in json.loads(self._learned_model().info())["artefacts"]:
            entry = {k: v for k, v in artefact.items() if k != "name"}
            if "value" in entry:
                entry["value"] = np.asarray(entry["value"], dtype=np.float64)
            out[artefact["name"]] = entry
        return out

    def representation(self, X: ArrayLike, name: str, pair: int = 0) -> NDArray[np.float64]:
        """The learned kernel's per-row artefact ``name`` (see :meth:`artefacts`) at
        each sample; after a fallback, in the declined learned kernel's model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        name : str
            A per-row artefact the model offers (``gates``, ``fused``).
        pair : int, default=0
            Class pair (in the model's one-vs-one order; 0 for two classes).

        Returns
        -------
        ndarray of shape (n_samples, width)
        """
        X = check_predict_data(self, X)
        return self._learned_model().representation(as_features(X), name, pair)

    def learned_kernel(self) -> dict[str, Any]:
        """What the method learned, as numpy arrays where it is numeric: kernel weights
        (MKL), learned matrices' statistics (KNPL, DANK), per-pair objectives. After a
        fallback (``fell_back_``), what the declined learned kernel learned.

        Returns
        -------
        dict
        """
        check_is_fitted(self)
        info = json.loads(self._learned_model().info())
        extra = info["summary"].get("extra") or {}
        return {k: _numeric(v) for k, v in extra.items()}


def _numeric(value):
    """A list as a numpy array; a ragged one (e.g. one entry per class pair of a
    multiclass fit, of different lengths) as a list of arrays."""
    if not isinstance(value, list):
        return value
    try:
        return np.asarray(value)
    except ValueError:
        return [_numeric(v) for v in value]


def _require_binary(y, why):
    """scikit-learn's error for a binary-only classifier given other targets."""
    kind = type_of_target(y, input_name="y", raise_unknown=True)
    if kind != "binary":
        raise ValueError(
            f"Only binary classification is supported. The type of the target is {kind}; {why}."
        )


_C = TypeVar("_C", bound="_LearnedClassifier")
_R = TypeVar("_R", bound="_LearnedRegressor")


class _LearnedClassifier(ClassifierMixin, _LearnedKernel):
    def fit(self: _C, X: ArrayLike, y: ArrayLike, sample_weight: Optional[ArrayLike] = None) -> _C:
        """Learns the kernel and the classifier.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights, for the methods whose kernel learning has a weighted
            form (``kernlearn.methods()`` says which, by each method's
            ``sample_weights`` flag): sample ``i``'s bound in every SVM dual is
            ``C * sample_weight[i]``, so an integer weight counts as that many copies of
            the sample and a zero weight as its absence, and with ``select="grid"``
            every fold is trained and scored with the weights. The other methods raise
            ``ValueError`` rather than ignore them.

        Returns
        -------
        self : object
        """
        X, y = check_fit_data(self, X, y, classifier=True)
        self._classifier_fitted(self._fit(X, y, sample_weight))
        self._warn_below_majority(X, y)
        return self

    def _warn_below_majority(self, X, y):
        """Warns (and records in ``warnings_``) when the fitted model's training accuracy
        is below the majority-class rate: it did worse than always predicting the most
        frequent class, which means options that did not fit (epochs, learning rate,
        kernels, scaling), never a result to use silently."""
        # ``y`` holds the numbers trained on (``label_values``, sorted as ``classes_``).
        labels = self.classes_[np.searchsorted(self._values, y)]
        predicted = self._labels(X)
        # Weighted as the fit was: a row of weight 0 is not part of the training data.
        w = self._fit_weights if self._fit_weights is not None else np.ones(len(labels))
        w = np.clip(w, 0.0, None)
        accuracy = float(np.sum(w * (predicted == labels)) / np.sum(w))
        majority = max(float(np.sum(w[labels == c])) for c in np.unique(labels)) / float(np.sum(w))
        if accuracy + 1e-12 < majority:
            message = (
                f"{type(self).__name__}: training accuracy {100 * accuracy:.1f} % is below "
                f"the majority-class rate {100 * majority:.1f} %: the fit did worse than "
                f"always predicting the most frequent class (check the method's options: "
                f"epochs, learning rate, kernels, scaling)"
            )
            self.warnings_ = [*self.warnings_, message]
            warnings.warn(message, UserWarning, stacklevel=user_stacklevel())

    def _classifier_fitted(self, info):
        """The class layout of the fitted model (``classes_`` is set)."""
        self._layout = PairLayout(info["classes"], self.classes_)
        self._values = label_values(self.classes_)
        return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Decision values, laid out as :meth:`kernlearn.SVC.decision_function`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        return self._scores(check_predict_data(self, X))

    def _scores(self, X):
        """:meth:`decision_function` of rows already validated."""
        dec = self._layout.ovo(self.model_.decision_function(as_features(X)))
        return classifier_scores(dec, len(self.classes_))

    def _labels(self, X):
        """:meth:`predict` of rows already validated (the training rows after ``fit``:
        validating them again would warn that an array has no feature names)."""
        if len(self.classes_) > 2:
            return self.classes_[np.argmax(self._scores(X), axis=1)]
        pred = self.model_.predict(as_features(X))
        return self.classes_[np.searchsorted(self._values, pred)]

    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """Predicted class labels: the one-vs-one vote (the library's prediction) for two
        classes; for more, the largest :meth:`decision_function` score, i.e. the vote with
        its ties broken by the summed pair confidences (scikit-learn's ``break_ties``),
        so that ``predict`` and ``decision_function`` always agree.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self._labels(check_predict_data(self, X))


class _LearnedRegressor(RegressorPredictMixin, RegressorMixin, _LearnedKernel):
    _regression = True

    def fit(self: _R, X: ArrayLike, y: ArrayLike, sample_weight: Optional[ArrayLike] = None) -> _R:
        """Learns the kernel and the regressor.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Real targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights, for the methods whose kernel learning has a weighted
            form (``kernlearn.methods()`` says which, by each method's
            ``sample_weights`` flag): sample ``i``'s bound in every SVM dual is
            ``C * sample_weight[i]``, so an integer weight counts as that many copies of
            the sample and a zero weight as its absence, and with ``select="grid"``
            every fold is trained and scored with the weights. The other methods raise
            ``ValueError`` rather than ignore them.

        Returns
        -------
        self : object
        """
        X, y = check_fit_data(self, X, y, classifier=False)
        self._fit(X, y, sample_weight)
        return self


class _MethodChoice:
    """For estimators that fit one of several catalogue methods (``method=``)."""

    def _method_name(self):
        if self.method not in self._methods:
            raise ValueError(f"method={self.method!r} is not one of {', '.join(self._methods)}")
        return self.method


_COMMON_DOC = """
    select : {None, "grid"}, default=None
        ``"grid"``: choose σ and C (and what the method's catalogue entry lists) by
        k-fold cross-validation on the training data.
    grid : dict, default=None
        Values for the grid search: keys ``"sigma"``, ``"C"`` (and ``"epsilon"``); the
        papers' ``2^-5 … 2^5`` where absent.
    cv : int, default=5
        Folds of the grid search.
    fallback : bool, default=True
        With ``select="grid"``: SVM-CV runs first and the learned kernel's candidates
        use its C; unless the best candidate beats that SVM by more than one standard
        error of the fold-wise gain, both on the selection folds and on a fresh fold
        partition, the fitted model is the SVM: ``fit`` warns with
        :class:`~kernlearn.FallbackWarning`, ``fell_back_`` is True, ``chosen_["other"]``
        has ``fell_back_to_base_svm`` and ``learned_cv_score`` (the learned kernel's best
        CV score), and the declined learned kernel, fitted on the whole training data at
        the parameters its selection chose, is ``declined_model_``. For MKL, localized
        methods and DANK, the candidates' CV stops as soon as none of them could win
        even with perfect scores on the remaining folds: the same decision, with fewer
        fits when there are fewer cores than fits per fold round (``learned_cv_folds``:
        the folds ``learned_cv_score`` averages). ``False`` keeps the learned kernel
        and, for MKL and localized methods, chooses C over the grid (the papers'
        protocols).
    scale : {"none", "01", "pm1", "standard"}, default="none"
        Feature scaling fitted on the training data. ``"none"``, like every kernlearn
        and scikit-learn estimator, takes the features as given (scale them explicitly,
        e.g. ``make_pipeline(MinMaxScaler(), estimator)``, so that a comparison with
        ``SVC`` or ``GridSearch`` sees the same features); ``"01"`` is the papers'
        scaling to [0, 1], ``"pm1"`` to [-1, 1], ``"standard"`` to zero mean and unit
        variance.
    random_state : int or None, default=None
        Seed of every random choice (folds, initialisations, k-means).
    verbose : bool, default=False
        Print the fit's report on standard output: the parameters used, the selection's
        CV scores (learned kernel and SVM-CV) and which model was kept, the machine's
        support vectors and SMO iterations.

    Attributes
    ----------
    classes_ : ndarray (classifiers)
    n_features_in_ : int
    chosen_ : dict
        Hyper-parameters used (selected or given).
    selection_ : dict or None
        The grid-search record when ``select="grid"``.
    fell_back_ : bool
        Whether the fit fell back to the SVM on the base kernel (see ``fallback``);
        False when the learned kernel was kept or no selection ran.
    declined_model_ : kernlearn._core.Model or None
        After a fallback, the declined learned kernel's model (what
        :meth:`learned_kernel` and the estimator's views of the learned kernel read);
        None otherwise. Not part of the saved model.
    warnings_ : list of str
        What the fit reported that a user should know (e.g. an iteration cap,
        near-uniform kernel weights); each is also raised as a ``UserWarning``.
    model_ : kernlearn._core.Model
        The library's fitted model (what :meth:`save` writes): the SVM-CV model after
        a fallback.
"""
