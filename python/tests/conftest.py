"""Shared fixtures: the bundled datasets (data/) and, when present, ../shared/datasets."""

import os

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUNDLED = os.path.join(ROOT, "data")
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "datasets")


def read_csv(path):
    """Features and last column of a kernlearn CSV (header row, numeric values)."""
    data = np.genfromtxt(path, delimiter=",", skip_header=1, dtype=np.float64)
    return np.ascontiguousarray(data[:, :-1]), data[:, -1]


def dataset(name):
    """A dataset by name, from data/ or the shared directory; skips when absent."""
    for folder in (BUNDLED, SHARED):
        path = os.path.join(folder, f"{name}.csv")
        if os.path.exists(path):
            return read_csv(path)
    pytest.skip(f"{name}.csv is neither in data/ nor in {SHARED}")


def scaled(X):
    """Min-max scaling to [0, 1] (constant columns to 0), as the papers' protocol."""
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return (X - lo) / span
