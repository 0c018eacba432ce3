"""Multiple kernel learning: a learned combination of base kernels (UNIFORM, MWUMKL,
EasyMKL, SPG-GMKL, Nyström + linear SVM), global or localized (LMKL, LD-MKL, SWMKL,
C-LMKL)."""

from typing import Optional, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._learned import _COMMON_DOC, _LearnedClassifier, _MethodChoice


_M = TypeVar("_M", bound="MKLClassifier")


class MKLClassifier(_MethodChoice, _LearnedClassifier):
    __doc__ = """Multiple kernel learning: a classifier on a learned combination of base
    kernels.

    Parameters
    ----------
    method : {"uniform", "mwumkl", "easymkl", "spg-gmkl", "nystrom-linear"}, default="mwumkl"
        UNIFORM (average kernel), MWUMKL (Moeller 2017, ch. 3), EasyMKL (Aiolli and
        Donini 2015), SPG-GMKL (Jain, Vishwanathan and Varma 2012: spectral projected
        gradient on the weights around SMO) or Nyström features + linear SVM.
    kernels : str, Kernel or list of them, default=None
        The base kernel family (``--kernels`` spec, e.g. ``"family12@each"``, or
        :mod:`kernlearn.kernels` objects); default the thesis's 12 kernels.
    C : float, default=None
        Trade-off (UNIFORM, MWUMKL, SPG-GMKL, Nyström).
    mwu_epsilon : float, default=None
        MWUMKL's approximation error ε (default 0.005, the thesis's section 5.4.1.2;
        its rounds grow as 1/ε).
    mwu_prune : bool, default=True
        Sparse MWUMKL: the game is played again on the kernels it weighted at least
        evenly until a game drops none, and the game of largest value (the squared
        half-distance of the classes' hulls) is kept. ``False`` plays the thesis's one
        game on every kernel.
    easymkl_lambda : float, default=None
        EasyMKL's λ in (0, 1].
    landmarks : int, default=None
        Nyström landmarks per kernel.
    gmkl_reg : {"l1", "pnorm"}, default=None
        SPG-GMKL's regulariser: weights on the simplex (``"l1"``, the default) or
        ``(λ/p) Σ d^p`` on ``d ≥ 0``.
    gmkl_p : float, default=None
        SPG-GMKL's p > 1 of the p-norm regulariser (default 2).
    gmkl_lambda : float, default=None
        SPG-GMKL's λ > 0 of the p-norm regulariser (default 1).
    tol : float, default=None
        SPG-GMKL's SMO tolerance (default 1e-4).
    """ + _COMMON_DOC + """    weights_ : ndarray of shape (n_pairs, n_kernels)
        The learned kernel weights, one row per class pair (model order); absent for
        Nyström + linear SVM, which learns no weights. After a fallback (``fell_back_``)
        the fitted model is the SVM and these are the weights of the declined learned
        kernel (``declined_model_``).
    weights_near_uniform_ : bool
        Whether every class pair's weights are within 0.1 (total-variation distance) of
        uniform: the method did not tell the kernels apart (always for UNIFORM). Such a
        fit warns, and ``feature_relevance_`` is not reported for it.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from kernlearn import MKLClassifier
    >>> X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    >>> mkl = MKLClassifier("easymkl", kernels="rbf(sigma=1);rbf(sigma=4);linear",
    ...                     random_state=0).fit(X, y)
    >>> mkl.weights_.round(1)  # one row per class pair, one column per kernel
    array([[0.9, 0.1, 0. ]])
"""

    _methods = ("uniform", "mwumkl", "easymkl", "spg-gmkl", "nystrom-linear")

    def __init__(self, method="mwumkl", *, kernels=None, C=None, mwu_epsilon=None, mwu_prune=True,
                 easymkl_lambda=None, landmarks=None, gmkl_reg=None, gmkl_p=None, gmkl_lambda=None,
                 tol=None, select=None, grid=None, cv=5, fallback=True, scale="none", random_state=None, verbose=False):
        self.method = method
        self.kernels = kernels
        self.C = C
        self.mwu_epsilon = mwu_epsilon
        self.mwu_prune = mwu_prune
        self.easymkl_lambda = easymkl_lambda
        self.landmarks = landmarks
        self.gmkl_reg = gmkl_reg
        self.gmkl_p = gmkl_p
        self.gmkl_lambda = gmkl_lambda
        self.tol = tol
        self.select = select
        self.grid = grid
        self.cv = cv
        self.fallback = fallback
        self.scale = scale
        self.random_state = random_state
        self.verbose = verbose

    def fit(self: _M, X: ArrayLike, y: ArrayLike, sample_weight: Optional[ArrayLike] = None) -> _M:
        """Learns the kernel weights and the classifier (after a fallback, the classifier
        is the SVM-CV model and ``weights_`` are the declined learned kernel's).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights, for ``uniform`` and ``spg-gmkl``, whose kernel learning has a
            weighted form (``kernlearn.methods()`` says which methods do): sample ``i``'s bound in every SVM dual is
            ``C * sample_weight[i]``, so an integer weight counts as that many copies of
            the sample and a zero weight as its absence, and with ``select="grid"``
            every fold is trained and scored with the weights. ``mwumkl``, ``easymkl`` and
            ``nystrom-linear`` raise ``ValueError`` rather than ignore them.

        Returns
        -------
        self : object
        """
        for stale in ("weights_", "weights_near_uniform_"):  # a refit without weights keeps none
            self.__dict__.pop(stale, None)
        super().fit(X, y, sample_weight=sample_weight)
        learned = self.learned_kernel()
        if learned.get("weights") is not None:
            self.weights_ = np.asarray(learned["weights"], dtype=np.float64)
            self.weights_near_uniform_ = bool(learned["near_uniform"])
        return self


class LocalizedMKLClassifier(_MethodChoice, _LearnedClassifier):
    __doc__ = """Localized multiple kernel learning: kernel weights that vary over the input
    space (gates).

    Parameters
    ----------
    method : {"lmkl", "ldmkl", "swmkl", "clmkl"}, default="lmkl"
        LMKL (softmax gates), LD-MKL, SWMKL or C-LMKL (Moeller 2017, ch. 4).
    kernels : str, Kernel or list of them, default=None
        Base kernel family, as in :class:`MKLClassifier`.
    C : float, default=None
        Trade-off.
    solver : {"smo", "mwu"}, default=None
        Solver of the inner classifiers.
    lkl_epsilon : float, default=None
        MWU solver accuracy.
    clusters : int, default=None
        C-LMKL's number of soft clusters.
    """ + _COMMON_DOC + """
    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from kernlearn import LocalizedMKLClassifier
    >>> X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    >>> lmkl = LocalizedMKLClassifier("clmkl", kernels="linear;rbf(sigma=2)",
    ...                               random_state=0).fit(X, y)
    >>> gates = lmkl.gates(X)  # one column per kernel, rows summing to one
    >>> gates.shape, bool(np.allclose(gates.sum(axis=1), 1))
    ((60, 2), True)
"""

    _methods = ("lmkl", "ldmkl", "swmkl", "clmkl")

    def __init__(self, method="lmkl", *, kernels=None, C=None, solver=None, lkl_epsilon=None,
                 clusters=None, select=None, grid=None, cv=5, fallback=True, scale="none", random_state=None, verbose=False):
        self.method = method
        self.kernels = kernels
        self.C = C
        self.solver = solver
        self.lkl_epsilon = lkl_epsilon
        self.clusters = clusters
        self.select = select
        self.grid = grid
        self.cv = cv
        self.fallback = fallback
        self.scale = scale
        self.random_state = random_state
        self.verbose = verbose

    def gates(self, X: ArrayLike, pair: int = 0) -> NDArray[np.float64]:
        """How much each base kernel is used at each sample (after a fallback, in the
        declined learned kernel's model, ``declined_model_``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        pair : int, default=0
            Class pair (in the model's one-vs-one order; 0 for two classes).

        Returns
        -------
        ndarray of shape (n_samples, n_kernels)
            Rows sum to one.
        """
        return self.representation(X, "gates", pair)
