"""
DKMO's fused representation
===========================

DKMO (:class:`kernlearn.DKMOClassifier`) builds dense Nyström embeddings of a kernel and
trains a neural network on them; the softmax reads the fused representation, the last
hidden layer (:meth:`~kernlearn.DKMOClassifier.fused_representation`). A good
representation separates the classes: here its two leading principal components, on
training and held-out samples of the wine data bundled in ``data/`` (three classes).
"""

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from sklearn.decomposition import PCA
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler

from kernlearn import DKMOClassifier

DATA = next(p for p in (Path("../data"), Path("data")) if (p / "wine.csv").is_file())
frame = pd.read_csv(DATA / "wine.csv")
X = frame.drop(columns="label").to_numpy()
y = frame["label"].to_numpy()
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
scaler = MinMaxScaler().fit(X_train)
X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)

# A smaller network than the paper's (256, 512, 256, 128), enough for 124 samples.
model = DKMOClassifier(hidden=[64, 32], epochs=50, random_state=0).fit(X_train, y_train)
print(f"test accuracy {model.score(X_test, y_test):.3f}")

# %%
# The fused representation (32 units) projected on its two leading principal
# components, fitted on the training rows.

fused_train = model.fused_representation(X_train)
fused_test = model.fused_representation(X_test)
pca = PCA(n_components=2).fit(fused_train)
fig, axes = plt.subplots(1, 2, figsize=(9, 4), sharex=True, sharey=True)
for ax, fused, labels, title in [(axes[0], fused_train, y_train, "training"),
                                 (axes[1], fused_test, y_test, "held out")]:
    points = pca.transform(fused)
    for c in model.classes_:
        ax.scatter(*points[labels == c].T, s=14, label=f"class {c}")
    ax.set_title(f"fused representation, {title}")
    ax.set_xlabel("PC 1")
axes[0].set_ylabel("PC 2")
axes[1].legend()
fig.tight_layout()
plt.show()
