"""Kernel functions and base-kernel families as Python objects.

Each object renders the library's spec string (``str(k)``), so anything that takes a
spec string (``kernel=`` of the learned-kernel estimators, ``kernels=`` of the MKL
estimators, the command line's ``--kernel`` / ``--kernels``) takes these objects too::

    from kernlearn.kernels import RBF, Polynomial, Family12
    kernels = [Family12().each(), RBF(sigma=2).on([0, 3])]
"""

from collections.abc import Iterable
from typing import Any, Optional, Sequence, Union


class Kernel:
    """A kernel function of the library, with the features it reads.

    Parameters
    ----------
    name : str
        Library name (``rbf``, ``poly``, ``linear``, ``laplacian``, ``chi2``,
        ``sigmoid``, ``family12``).
    **params
        Its parameters (``sigma`` or ``gamma``, ``degree``, ``coef0``).
    """

    def __init__(self, name: str, **params: Any) -> None:
        self.name = name
        self.params = {k: v for k, v in params.items() if v is not None}
        self.features: Optional[str] = None

    def on(self, columns: Iterable[int]) -> "Kernel":
        """The same kernel on a subset of features.

        Parameters
        ----------
        columns : list of int
            0-based feature indices.

        Returns
        -------
        Kernel
        """
        k = Kernel(self.name, **self.params)
        k.features = "[" + ",".join(str(int(c)) for c in columns) + "]"
        return k

    def each(self) -> "Kernel":
        """One copy of the kernel per single feature (``@each``).

        Returns
        -------
        Kernel
        """
        k = Kernel(self.name, **self.params)
        k.features = "each"
        return k

    def __str__(self) -> str:
        spec = self.name
        if self.params:
            spec += "(" + ",".join(f"{k}={v!r}" for k, v in self.params.items()) + ")"
        if self.features:
            spec += "@" + self.features
        return spec

    def __repr__(self) -> str:
        return f"Kernel({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Kernel) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


def RBF(sigma: Optional[float] = None, gamma: Optional[float] = None) -> Kernel:
    """Gaussian kernel ``exp(-||x - x'||² / σ²)`` (or ``exp(-γ ||x - x'||²)``)."""
    return Kernel("rbf", sigma=sigma, gamma=gamma)


def Polynomial(degree: int = 2, gamma: float = 1.0, coef0: float = 1.0) -> Kernel:
    """Polynomial kernel ``(γ xᵀx' + coef0)^degree``."""
    return Kernel("poly", degree=degree, gamma=gamma, coef0=coef0)


def Linear() -> Kernel:
    """Linear kernel ``xᵀx'``."""
    return Kernel("linear")


def Laplacian(gamma: float = 1.0) -> Kernel:
    """Laplacian kernel ``exp(-γ ||x - x'||₁)``."""
    return Kernel("laplacian", gamma=gamma)


def Family12() -> Kernel:
    """The thesis's 12 base kernels (3 polynomial, 9 Gaussian; Moeller 2017, §3.4.4)."""
    return Kernel("family12")


def kernel_spec(kernel: Union[str, Kernel]) -> str:
    """Spec string of one kernel (a string is returned as it is)."""
    if isinstance(kernel, (str, Kernel)):
        return str(kernel)
    raise TypeError(f"kernel must be a spec string or a kernlearn.kernels.Kernel, got {type(kernel).__name__}")


def family_spec(kernels: Union[str, Kernel, Sequence[Union[str, Kernel]]]) -> str:
    """Spec string of a kernel family: one spec, or a list joined by ``;``."""
    if isinstance(kernels, (str, Kernel)):
        return str(kernels)
    if isinstance(kernels, (list, tuple)) and kernels:
        return ";".join(kernel_spec(k) for k in kernels)
    raise TypeError("kernels must be a spec string, a Kernel, or a non-empty list of them")
