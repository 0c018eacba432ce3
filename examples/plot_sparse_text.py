"""
A sparse text classifier
========================

:class:`kernlearn.SVC` fits ``scipy.sparse`` input on the library's sparse kernels: the
kernel rows are computed from the nonzeros only and the support vectors stay sparse in
the model. Hashed bag-of-words features are the typical case: a wide matrix (here 2^14
columns) with a few dozen nonzeros per row.

The documents are generated: sentences drawn from two topics' vocabularies mixed with
a shared one, so that many words say nothing of the class.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.model_selection import train_test_split

from kernlearn import SVC

rng = np.random.default_rng(0)
topics = {
    "astronomy": "star planet orbit telescope galaxy comet nebula moon solar eclipse".split(),
    "cooking": "oven recipe flour butter simmer garlic sauce bake pepper onion".split(),
}
shared = ("the a of and to in is was for on with as by at from it this that "
          "new day time people good year way long").split()


def document(topic):
    words = list(rng.choice(shared, size=rng.integers(15, 30)))
    words += list(rng.choice(topics[topic], size=rng.integers(2, 6)))
    # a few words of the other topic, so that no single word decides
    other = "cooking" if topic == "astronomy" else "astronomy"
    words += list(rng.choice(topics[other], size=rng.integers(0, 3)))
    rng.shuffle(words)
    return " ".join(words)


labels = rng.integers(0, 2, size=600)
texts = [document("astronomy" if c == 0 else "cooking") for c in labels]
X = HashingVectorizer(n_features=2**14, alternate_sign=False).fit_transform(texts)  # CSR
print(f"X: {X.shape[0]} x {X.shape[1]} CSR, {X.nnz / X.shape[0]:.1f} nonzeros per row")

X_train, X_test, y_train, y_test = train_test_split(X, labels, test_size=0.5, random_state=0)
linear = SVC(kernel="linear", C=1.0).fit(X_train, y_train)
rbf = SVC(kernel="rbf", C=10.0).fit(X_train, y_train)
for name, model in [("linear", linear), ("rbf", rbf)]:
    print(f"{name:6s} test accuracy {model.score(X_test, y_test):.3f}, "
          f"{model.n_support_.sum()} support vectors (sparse: {type(model.support_vectors_).__name__})")

# %%
# The linear SVC's decision values on the held-out documents, by true class.

decision = linear.decision_function(X_test)
fig, ax = plt.subplots(figsize=(7, 3.5))
for c, name in enumerate(topics):
    ax.hist(decision[y_test == c], bins=30, alpha=0.6, label=f"{name} (class {c})")
ax.axvline(0, color="k", linewidth=1)
ax.set_xlabel("decision_function (positive: class 1)")
ax.set_ylabel("documents")
ax.set_title("SVC(kernel='linear') on hashed text (scipy.sparse CSR)")
ax.legend()
fig.tight_layout()
plt.show()
