"""Continuous kernel learning: random Fourier features trained end to end with a
softmax layer, and its fixed-feature baseline."""

from ._learned import _LearnedClassifier, _MethodChoice


class CKLClassifier(_MethodChoice, _LearnedClassifier):
    __doc__ = """Continuous kernel learning (Moeller 2017, ch. 5): random Fourier features whose
    frequencies and phases are trained end to end with a softmax layer, or (``method=
    "rff-linear"``) the same softmax layer on fixed random Fourier or Nyström features.

    Parameters
    ----------
    method : {"ckl", "rff-linear"}, default="ckl"
        CKL, or its "fixed features + linear model" baseline.
    fourier_features : int, default=None
        Number of features D (default 256).
    init_variance : float, default=None
        Variance σ² of the initial frequencies, ``W ~ N(0, σ²)`` (default 2^-3).
    feature_map : {"gaussian", "laplacian", "nystrom", "nystrom-kmeans"}, default=None
        Initial / fixed feature map (default Gaussian; CKL needs a Fourier map).
    norm_cap : float, default=None
        CKL: cap on each frequency vector's norm after every step (§5.2.4).
    optimizer : {"sgd", "adam"}, default=None
        SGD with momentum 0.5 → 0.99 (default) or AdamW.
    learning_rate : float, default=None
        Learning rate (default 0.01).
    weight_decay : float, default=None
        Weight decay (default 0).
    epochs : int, default=None
        Most training rounds (default 10000). A round is one epoch, or 512 optimiser
        steps when an epoch has more (the thesis's per-epoch rule up to 65,536 training
        rows at batch 128; ``--round-steps`` on the command line).
    patience : int, default=None
        Early-stopping patience in rounds (default 100), the validation loss being
        measured after each.
    round_steps : int, default=None
        Optimiser steps per round when an epoch has more (default 512; 0 = every round
        is one epoch, the thesis's rule at any size).
    batch_size : int, default=None
        Rows per mini-batch (default 128).
    validation_fraction : float, default=None
        Held-out fraction for early stopping (default 0.25; 0 turns it off).
    configs : int, default=None
        With ``select="grid"``: configurations of the random search over D, σ² and the
        learning rate (thesis Table 5.3; default 100).
    ckl_search : {"validation", "cv"}, default=None
        How the random search scores a configuration: ``"validation"`` (default, the
        thesis's §5.4.1: one fit each, scored on its early-stopping split, the best fit
        kept) or ``"cv"`` (``cv``-fold CV, then the best refitted).
    select : {None, "grid"}, default=None
        ``"grid"``: the random search over the configurations.
    grid : dict, default=None
        Unused by CKL (kept for a uniform interface).
    cv : int, default=5
        Folds of the random search's cross-validation (``ckl_search="cv"``).
    scale : {"none", "01", "pm1", "standard"}, default="none"
        Feature scaling fitted on the training data; ``"none"`` takes the features as
        given, as every kernlearn and scikit-learn estimator does (scale explicitly, e.g.
        ``make_pipeline(MinMaxScaler(), estimator)``); the thesis scales to [-1, 1]
        (``"pm1"``).
    random_state : int or None, default=None
        Seed of the initial values, the validation split and the batch order.
    verbose : bool, default=False
        Print the fit's report on standard output (parameters used, selection scores,
        the machine's size).

    Attributes
    ----------
    classes_ : ndarray
    n_features_in_ : int
    chosen_ : dict
        Hyper-parameters used (D, σ², learning rate, epochs run, best epoch).
    selection_ : dict or None
    fell_back_ : bool
        Always False: this method has no fallback to the SVM on the base kernel (the
        attribute, and ``declined_model_ = None``, keep the learned-kernel estimators
        uniform).
    warnings_ : list of str
    model_ : kernlearn._core.Model
        The library's fitted model (what :meth:`save` writes).
    """

    _methods = ("ckl", "rff-linear")

    def __init__(self, method="ckl", *, fourier_features=None, init_variance=None,
                 feature_map=None, norm_cap=None, optimizer=None, learning_rate=None,
                 weight_decay=None, epochs=None, patience=None, round_steps=None,
                 batch_size=None, validation_fraction=None, configs=None, ckl_search=None, select=None,
                 grid=None, cv=5, scale="none", random_state=None, verbose=False):
        self.method = method
        self.fourier_features = fourier_features
        self.init_variance = init_variance
        self.feature_map = feature_map
        self.norm_cap = norm_cap
        self.optimizer = optimizer
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.epochs = epochs
        self.patience = patience
        self.round_steps = round_steps
        self.batch_size = batch_size
        self.validation_fraction = validation_fraction
        self.configs = configs
        self.ckl_search = ckl_search
        self.select = select
        self.grid = grid
        self.cv = cv
        self.scale = scale
        self.random_state = random_state
        self.verbose = verbose

    def _options(self):
        if self.method == "rff-linear" and self.norm_cap is not None:
            raise ValueError("norm_cap applies to method='ckl' only")
        return super()._options()
