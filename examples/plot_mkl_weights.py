"""
MKL weights per kernel
======================

Multiple kernel learning fits a classifier on a learned combination
``Σ_i μ_i K_i`` of base kernels. :class:`kernlearn.MKLClassifier` offers several
methods; they differ in how they spread the weights ``weights_`` over the kernels:
UNIFORM averages, MWUMKL and SPG-GMKL (on the simplex) pick a few, EasyMKL spreads
them.

The data is the ionosphere radar data bundled in the repository's ``data/`` folder,
scaled to [0, 1], with eight base kernels on all features.
"""

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler

from kernlearn import MKLClassifier
from kernlearn.kernels import RBF, Linear, Polynomial

# The repository's data/ folder, from examples/ (where the gallery runs the scripts) or
# from the repository root.
DATA = next(p for p in (Path("../data"), Path("data")) if (p / "ionosphere.csv").is_file())
frame = pd.read_csv(DATA / "ionosphere.csv")
X = MinMaxScaler().fit_transform(frame.drop(columns="label").to_numpy())
y = frame["label"].to_numpy()
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)

kernels = [Linear(), Polynomial(degree=2), Polynomial(degree=3)] + [
    RBF(sigma=s) for s in (0.25, 0.5, 1.0, 2.0, 4.0)
]
names = ["linear", "poly d=2", "poly d=3"] + [f"rbf σ={s}" for s in (0.25, 0.5, 1.0, 2.0, 4.0)]

methods = ["uniform", "mwumkl", "easymkl", "spg-gmkl"]
weights = {}
for method in methods:
    model = MKLClassifier(method, kernels=kernels, random_state=0).fit(X_train, y_train)
    weights[method] = model.weights_[0]  # one row per class pair: one pair here
    print(f"{method:9s} test accuracy {model.score(X_test, y_test):.3f}")

# %%
# The weights of each method, kernel by kernel (each row sums to one).

fig, ax = plt.subplots(figsize=(8, 4))
width = 0.8 / len(methods)
for i, method in enumerate(methods):
    ax.bar(np.arange(len(kernels)) + (i - 1.5) * width, weights[method], width, label=method)
ax.set_xticks(np.arange(len(kernels)))
ax.set_xticklabels(names)
ax.set_ylabel("kernel weight")
ax.set_title("MKLClassifier.weights_ on ionosphere")
ax.legend()
fig.tight_layout()
plt.show()
