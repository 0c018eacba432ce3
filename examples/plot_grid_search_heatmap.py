"""
Grid search heat map
====================

:class:`kernlearn.GridSearch` is the papers' SVM-CV: k-fold cross-validation over the
Gaussian width σ (or γ = 1/σ²) and C of an RBF :class:`~kernlearn.SVC`, on the library's
fast path (one Gram matrix per width shared by every fold and every C, warm starts
along C). Its ``cv_results_`` are laid out as scikit-learn's ``GridSearchCV``'s, so the
mean CV accuracy of each grid point makes a heat map.

The data is the heart disease data bundled in ``data/``, scaled to [0, 1]; the grid is
the papers' ``2^-5 … 2^5`` for both σ and C.
"""

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.preprocessing import MinMaxScaler

from kernlearn import SVC, GridSearch

DATA = next(p for p in (Path("../data"), Path("data")) if (p / "heart.csv").is_file())
frame = pd.read_csv(DATA / "heart.csv")
X = MinMaxScaler().fit_transform(frame.drop(columns="label").to_numpy())
y = frame["label"].to_numpy()

powers = [2.0**e for e in range(-5, 6)]
search = GridSearch(SVC(), {"sigma": powers, "C": powers}, cv=5, random_state=0).fit(X, y)
print("best", search.best_params_, f"CV accuracy {search.best_score_:.3f}")

# %%
# ``cv_results_`` has one entry per (σ, C); ``param_sigma`` and ``param_C`` locate it.

results = search.cv_results_
sigma_index = np.searchsorted(powers, results["param_sigma"])
c_index = np.searchsorted(powers, results["param_C"])
scores = np.full((len(powers), len(powers)), np.nan)
scores[sigma_index, c_index] = results["mean_test_score"]

fig, ax = plt.subplots(figsize=(6, 5))
image = ax.imshow(scores, origin="lower", cmap="viridis")
labels = [f"$2^{{{e}}}$" for e in range(-5, 6)]
ax.set_xticks(range(len(powers)), labels)
ax.set_yticks(range(len(powers)), labels)
ax.set_xlabel("C")
ax.set_ylabel("σ")
best = search.best_index_
ax.plot(c_index[best], sigma_index[best], "r*", markersize=14, label="best")
ax.legend(loc="upper left")
fig.colorbar(image, label="mean CV accuracy")
ax.set_title("GridSearch(SVC()).cv_results_ on heart")
fig.tight_layout()
plt.show()
