"""Automatic relevance determination: an SVM (or SVR) whose Gaussian kernel has one width
per feature, learned by centered kernel-target alignment, with each feature's relevance."""

from ._learned import _COMMON_DOC, _LearnedClassifier, _LearnedRegressor


class ARDClassifier(_LearnedClassifier):
    __doc__ = """ARD-SVM: C-SVC on the ARD Gaussian ``exp(-Σ_k γ_k (x_k - x'_k)²)`` whose
    widths maximise the centered kernel-target alignment (Cortes, Mohri and Rostamizadeh,
    JMLR 2012), so that irrelevant features fade out of the kernel. With
    ``select="grid"`` each cross-validation fold learns its own widths, and C and an
    overall scale of the widths (0.25 … 4) are chosen by CV.

    Parameters
    ----------
    C : float, default=None
        SVM trade-off (without ``select``; default 1).
    ard_iterations : int, default=None
        Most L-BFGS steps of the alignment ascent (default 100).
    ard_sample : int, default=None
        Most training rows the alignment is computed on (default 400; a seeded random
        subset beyond it).
    ard_scale : float, default=None
        Multiplier of the learned widths without ``select`` (default 1).
    ard_groups : str, default=None
        Columns that share one width: ``"auto"`` (default: the blocks of one-hot
        encoded attributes, adjacent 0/1 columns named ``<attribute>_<value>`` with
        exactly one 1 per row, as in a DataFrame from ``pandas.get_dummies``),
        ``"none"`` (a width per column), or groups of 0-based columns, ``"0-3;7,9"``.
    ard_objective : {"alignment", "radius-margin"}, default=None
        What the widths optimise: the centered alignment (default), or the alignment's
        widths refined by gradient descent on the radius–margin bound ``R²‖w‖²`` of the
        L2-SVM (Chapelle et al. 2002; binary labels).
    """ + _COMMON_DOC + """    feature_relevance_ : ndarray of shape (n_features,)
        Each feature's share of the kernel's exponent, ``γ_k E[(x_k - x'_k)²]``,
        summing to 1. After a fallback (``fell_back_``), the declined learned kernel's.

    Examples
    --------
    Two informative features (columns 0 and 1) among six:

    >>> from sklearn.datasets import make_classification
    >>> from kernlearn import ARDClassifier
    >>> X, y = make_classification(n_samples=60, n_features=6, n_informative=2,
    ...                            n_redundant=0, shuffle=False, random_state=0)
    >>> ard = ARDClassifier(random_state=0).fit(X, y)
    >>> ard.feature_relevance_.round(1)
    array([0.1, 0.9, 0. , 0. , 0. , 0. ])
"""

    _method = "ard"

    def __init__(self, *, C=None, ard_iterations=None, ard_sample=None, ard_scale=None,
                 ard_groups=None, ard_objective=None, select=None, grid=None, cv=5, fallback=True,
                 scale="none", random_state=None, verbose=False):
        self.C = C
        self.ard_iterations = ard_iterations
        self.ard_sample = ard_sample
        self.ard_scale = ard_scale
        self.ard_groups = ard_groups
        self.ard_objective = ard_objective
        self.select = select
        self.grid = grid
        self.cv = cv
        self.fallback = fallback
        self.scale = scale
        self.random_state = random_state
        self.verbose = verbose


class ARDRegressor(_LearnedRegressor):
    __doc__ = """ARD-SVR: ε-SVR on the ARD Gaussian ``exp(-Σ_k γ_k (x_k - x'_k)²)`` whose
    widths maximise the centered alignment with the centred target (Cortes, Mohri and
    Rostamizadeh, JMLR 2012), so that irrelevant features fade out of the kernel. With
    ``select="grid"`` SVR-CV runs first (σ, C, ε), each cross-validation fold learns its
    own widths, and C and an overall scale of the widths are chosen by CV at SVR-CV's ε;
    the SVR-CV model is kept unless the learned kernel beats it.

    Parameters
    ----------
    C : float, default=None
        SVR trade-off (without ``select``; default 1).
    epsilon : float, default=None
        Width of the insensitive tube (without ``select``; default 0.1).
    ard_iterations, ard_sample, ard_scale, ard_groups
        As in :class:`ARDClassifier`.
    """ + _COMMON_DOC + """    feature_relevance_ : ndarray of shape (n_features,)
        Each feature's share of the kernel's exponent, summing to 1. After a fallback
        (``fell_back_``), the declined learned kernel's.
"""

    _method = "ard-svr"

    def __init__(self, *, C=None, epsilon=None, ard_iterations=None, ard_sample=None, ard_scale=None,
                 ard_groups=None, select=None, grid=None, cv=5, fallback=True, scale="none",
                 random_state=None, verbose=False):
        self.C = C
        self.epsilon = epsilon
        self.ard_iterations = ard_iterations
        self.ard_sample = ard_sample
        self.ard_scale = ard_scale
        self.ard_groups = ard_groups
        self.select = select
        self.grid = grid
        self.cv = cv
        self.fallback = fallback
        self.scale = scale
        self.random_state = random_state
        self.verbose = verbose
