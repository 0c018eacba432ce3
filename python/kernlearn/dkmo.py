"""DKMO and M-DKMO: kernel machines optimised as neural networks over dense Nyström
embeddings of one or several kernels."""

from typing import Any, Optional

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._base import as_features, check_fit_data, check_predict_data, label_values
from ._learned import _LearnedClassifier, _MethodChoice


class DKMOClassifier(_MethodChoice, _LearnedClassifier):
    __doc__ = """DKMO and M-DKMO (Song, Thiagarajan, Sattigeri and Spanias, IEEE TNNLS 2018):
    kernel machines optimised as neural networks over dense Nyström embeddings of the
    kernels. One estimator for both: ``method="dkmo"`` (one kernel) or ``"m-dkmo"``
    (several kernels: ``kernels=``, or ``kernel="precomputed"`` with ``X`` the Gram rows of
    every kernel side by side).

    Parameters
    ----------
    method : {"dkmo", "m-dkmo"}, default="dkmo"
    kernel : str or Kernel, default=None
        DKMO's kernel; default the Gaussian with the paper's width rule
        (γ = 1 / mean pairwise squared distance); ``"precomputed"``: ``X`` holds kernel
        values (training: the Gram matrix; prediction: rows against the training samples).
    sigma : float, default=None
        Gaussian width σ (γ = 1/σ²) instead of the rule.
    kernels : str, Kernel or list of them, default=None
        M-DKMO's kernels on features (``--kernels`` spec); for ``"m-dkmo"`` on features
        by default a linear, a quadratic and a Gaussian kernel on all features
        (``M_DKMO_KERNELS``).
    embedding : {"clustered", "nystrom"}, default=None
        Dense embeddings (default: clustered with features, nystrom on kernel values).
    embeddings : int, default=None
        Nyström embeddings per kernel (paper: 6).
    landmarks : int, default=None
        Landmarks per embedding (default 100).
    hidden : str or list of int, default=None
        Hidden layers of each branch (paper: 256, 512, 256, 128).
    dropout, kernel_dropout : float, default=None
        Dropout and kernel-dropout rates (paper: 0.5 and 0.5).
    fusion : {"sum", "concat"}, default=None
        Fusion merge (paper: sum).
    optimizer, learning_rate, weight_decay, epochs, patience, batch_size, validation_fraction
        Training (defaults: Adam, 0.001, 0, 100, 10, 32, 0.1).
    round_steps : int, default=None
        Longest training round in optimiser steps (default 0: every round is one epoch,
        Keras's early stopping as in the paper).
    refit : bool, default=True
        Early stopping on the validation split chooses the epochs of every training run,
        then the whole network is trained again from the same seed on all training rows
        for those epochs; False keeps the best validation epoch's network, trained on the
        rows outside the validation split.
    scale : {"none", "01", "pm1", "standard"}, default="none"
        Feature scaling fitted on the training data; ``"none"`` takes the features as
        given, as every kernlearn and scikit-learn estimator does (scale explicitly, e.g.
        ``make_pipeline(MinMaxScaler(), estimator)``); kernel values are never scaled.
    random_state : int or None, default=None
        Seed of the embeddings, initial weights, dropout and batches.
    verbose : bool, default=False
        Print the fit's report on standard output (parameters used, selection scores,
        the machine's size).

    Attributes
    ----------
    classes_ : ndarray
    n_features_in_ : int
    chosen_ : dict
    fell_back_ : bool
        Always False: this method has no fallback to the SVM on the base kernel (the
        attribute, and ``declined_model_ = None``, keep the learned-kernel estimators
        uniform).
    model_ : kernlearn._core.Model

    Examples
    --------
    A small network (the paper's is 256, 512, 256, 128 units):

    >>> from sklearn.datasets import make_classification
    >>> from kernlearn import DKMOClassifier
    >>> X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    >>> dkmo = DKMOClassifier(hidden=[32], epochs=30, landmarks=30, learning_rate=0.01,
    ...                       random_state=0).fit(X, y)
    >>> dkmo.predict_proba(X[:2]).shape
    (2, 2)
    >>> dkmo.fused_representation(X[:2]).shape  # the layer the softmax reads
    (2, 32)
    """

    _methods = ("dkmo", "m-dkmo")

    #: M-DKMO's kernels on features when none are given: three kernels of different
    #: character on all features (the Gaussian of width σ = 1,
    #: suited to features in [0, 1]: scale="minmax").
    M_DKMO_KERNELS = "linear@all;poly(degree=2,gamma=1,coef0=1)@all;rbf(sigma=1)@all"

    def _options(self):
        options = super()._options()
        names = {name for name, _ in options}
        if self.method == "m-dkmo" and "kernels" not in names and self.kernel != "precomputed":
            options.append(("kernels", self.M_DKMO_KERNELS))
        return options

    def __init__(self, method="dkmo", *, kernel=None, sigma=None, kernels=None, embedding=None,
                 embeddings=None, landmarks=None, hidden=None, dropout=None, kernel_dropout=None,
                 fusion=None, optimizer=None, learning_rate=None, weight_decay=None, epochs=None,
                 patience=None, round_steps=None, batch_size=None, validation_fraction=None,
                 refit=True,
                 scale="none", random_state=None, verbose=False):
        self.method = method
        self.kernel = kernel
        self.sigma = sigma
        self.kernels = kernels
        self.embedding = embedding
        self.embeddings = embeddings
        self.landmarks = landmarks
        self.hidden = hidden
        self.dropout = dropout
        self.kernel_dropout = kernel_dropout
        self.fusion = fusion
        self.optimizer = optimizer
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.epochs = epochs
        self.patience = patience
        self.round_steps = round_steps
        self.batch_size = batch_size
        self.validation_fraction = validation_fraction
        self.refit = refit
        self.scale = scale
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: Optional[ArrayLike] = None) -> "DKMOClassifier":
        """Builds the embeddings and trains the network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Refused (``ValueError`` naming the method) unless ``kernlearn.methods()``
            lists the method as taking ``sample_weights``: its kernel learning has no
            weighted form.

        Returns
        -------
        self : object
        """
        X, y = check_fit_data(self, X, y, classifier=True)
        info = self._fit(X, y, sample_weight)
        self._values = label_values(self.classes_)
        library = [float(c) for c in info["classes"]]
        self._order = [library.index(float(v)) for v in self._values]
        return self

    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Softmax outputs, one column per class of ``classes_``."""
        X = check_predict_data(self, X)
        p = np.asarray(self.model_.decision_function(as_features(X)), dtype=np.float64)
        return p[:, self._order]

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Class scores: ``predict_proba`` (two classes: the second minus the first)."""
        p = self.predict_proba(X)
        return p[:, 1] - p[:, 0] if p.shape[1] == 2 else p

    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """The class of the largest softmax output."""
        proba = self.predict_proba(X)  # first: raises NotFittedError before fit
        return self.classes_[np.argmax(proba, axis=1)]

    def fused_representation(self, X: ArrayLike) -> NDArray[np.float64]:
        """The fused representation: the layer the softmax reads (M-DKMO: the global
        fusion layer), the paper's Fig. 7 object.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, width)
            One row per sample; ``width`` is the last hidden layer's size (times the
            number of embeddings, or of kernels, with concatenation fusion).
        """
        return self.representation(X, "fused")
