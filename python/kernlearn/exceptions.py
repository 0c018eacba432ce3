"""Warnings the estimators raise."""

__all__ = ["FallbackWarning"]


class FallbackWarning(UserWarning):
    """A learned-kernel estimator's fit fell back to the SVM on the base kernel.

    With ``select="grid"`` and ``fallback=True`` (the defaults of the estimators that
    have them), the learned kernel is kept only when it beats SVM-CV (the papers' grid
    search over σ and C of a Gaussian-kernel SVM) in cross-validation by more than one
    standard error, twice (on the selection folds and on a fresh fold partition).
    Otherwise the fitted model, and so every prediction, is the SVM-CV model: the
    estimator then says so with this warning and ``fell_back_ = True``, and keeps the
    declined learned kernel's own model in ``declined_model_`` (what it learned, e.g.
    ``MKLClassifier.weights_``, is read from it). ``fallback=False`` keeps the learned
    kernel whatever its CV score.

    Filter it as any warning, e.g. ``warnings.simplefilter("ignore", FallbackWarning)``.
    """
