"""
Localized MKL gates
===================

Localized multiple kernel learning lets the kernel weights vary over the input space:
a gating function gives each base kernel a weight at every point, and
:meth:`kernlearn.LocalizedMKLClassifier.gates` returns them (rows sum to one).

On the two-dimensional banana data bundled in ``data/``, C-LMKL (soft clusters) mixes a
linear kernel, a narrow Gaussian and a wide one. The maps below show where each kernel
is used, with the decision boundary.
"""

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from kernlearn import LocalizedMKLClassifier
from kernlearn.kernels import RBF, Linear

DATA = next(p for p in (Path("../data"), Path("data")) if (p / "banana.csv").is_file())
frame = pd.read_csv(DATA / "banana.csv")
X, y = frame[["x1", "x2"]].to_numpy(), frame["label"].to_numpy()

kernels = [Linear(), RBF(sigma=0.5), RBF(sigma=2.0)]
model = LocalizedMKLClassifier("clmkl", kernels=kernels, random_state=0).fit(X, y)
print(f"training accuracy {model.score(X, y):.3f}")

# %%
# The gates on a grid over the data, one panel per kernel.

xx, yy = np.meshgrid(np.linspace(X[:, 0].min() - 0.3, X[:, 0].max() + 0.3, 120),
                     np.linspace(X[:, 1].min() - 0.3, X[:, 1].max() + 0.3, 120))
grid = np.c_[xx.ravel(), yy.ravel()]
gates = model.gates(grid)
decision = model.decision_function(grid).reshape(xx.shape)

fig, axes = plt.subplots(1, len(kernels), figsize=(11, 3.6), sharey=True)
for k, ax in enumerate(axes):
    image = ax.contourf(xx, yy, gates[:, k].reshape(xx.shape), levels=np.linspace(0, 1, 11),
                        cmap="viridis")
    ax.contour(xx, yy, decision, levels=[0], colors="white", linewidths=1.5)
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap="coolwarm", s=6, edgecolors="none")
    ax.set_title(f"gate of {kernels[k]}", fontsize=9)
fig.colorbar(image, ax=axes, shrink=0.85, label="gate")
plt.show()
