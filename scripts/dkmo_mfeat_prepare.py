"""Inputs of scripts/dkmo_mfeat.sh (DKMO paper reproduction on UCI mfeat).

Writes, into OUTDIR:
- mfeat_<view>.csv: one file per feature set (columns of mfeat.views.json) + label,
  for the single-kernel comparison (DKMO vs SVM-CV, the paper's Fig. 5 layout);
- mfeat_all.csv: all 649 features + label (fusion methods);
- kernels.txt: the six Gaussian kernels as a --kernels spec, one per view, with the
  paper's §V-A width gamma = 1 / mean pairwise squared distance. The runs standardise
  features on each training part (--scale standard), after which a view's summed
  variance is its number of non-constant columns d', so the rule is
  gamma = (n - 1) / (2 n d') for n training rows, whatever the split;
- gram/: a kernel-only Gram set (train.json / test.json, six kernels, no features) on
  a stratified subsample, for the kernel-only run (--gram-rows rows in all).
"""
import argparse
import json
import os

import numpy as np

p = argparse.ArgumentParser()
p.add_argument("--data", default="/work/shared/datasets/mfeat.csv")
p.add_argument("--out", required=True)
p.add_argument("--test-fraction", type=float, default=0.2)
p.add_argument("--gram-rows", type=int, default=500)
a = p.parse_args()
os.makedirs(a.out, exist_ok=True)

views = json.load(open(a.data.replace(".csv", ".views.json")))
header = open(a.data).readline().strip().split(",")
table = np.loadtxt(a.data, delimiter=",", skiprows=1)
x, y = table[:, :-1], table[:, -1]
n_train = int(round(len(y) * (1 - a.test_fraction)))


def write_csv(path, cols, xs, ys):
    with open(path, "w") as f:
        f.write(",".join([header[c] for c in cols] + ["label"]) + "\n")
        for row, label in zip(xs, ys):
            f.write(",".join(repr(float(v)) for v in row) + f",{int(label)}\n")


specs = []
for name, (lo, hi) in views.items():
    cols = list(range(lo, hi))
    write_csv(f"{a.out}/mfeat_{name}.csv", cols, x[:, lo:hi], y)
    d_eff = int((x[:, lo:hi].std(axis=0) > 0).sum())
    gamma = (n_train - 1) / (2 * n_train * d_eff)
    specs.append(f"rbf(gamma={gamma!r})@[{','.join(map(str, cols))}]")
write_csv(f"{a.out}/mfeat_all.csv", list(range(x.shape[1])), x, y)
open(f"{a.out}/kernels.txt", "w").write(";".join(specs))

# Kernel-only Gram set: stratified subsample, 80/20, standardised on its training
# part, the same per-view Gaussians (rule on the training part), no features written.
rng = np.random.default_rng(0)
classes = np.unique(y)
per = a.gram_rows // len(classes)
take = np.concatenate([rng.choice(np.flatnonzero(y == c), per, replace=False) for c in classes])
test_mask = np.zeros(len(take), bool)
for c in classes:
    idx = np.flatnonzero(y[take] == c)
    test_mask[rng.choice(idx, int(round(len(idx) * a.test_fraction)), replace=False)] = True
tr, te = take[~test_mask], take[test_mask]
os.makedirs(f"{a.out}/gram", exist_ok=True)
names = []
for name, (lo, hi) in views.items():
    xt, xe = x[tr, lo:hi], x[te, lo:hi]
    mu, sd = xt.mean(0), xt.std(0)
    sd[sd == 0] = 1
    xt, xe = (xt - mu) / sd, (xe - mu) / sd
    sq = lambda u, v: ((u[:, None, :] - v[None, :, :]) ** 2).sum(-1)
    dtt = sq(xt, xt)
    gamma = 1 / (dtt.sum() / (len(tr) * (len(tr) - 1)))
    np.savetxt(f"{a.out}/gram/{name}_train.csv", np.exp(-gamma * dtt), delimiter=",", fmt="%.17g")
    np.savetxt(f"{a.out}/gram/{name}_test.csv", np.exp(-gamma * sq(xe, xt)), delimiter=",", fmt="%.17g")
    names.append(name)
np.savetxt(f"{a.out}/gram/y_train.txt", y[tr], fmt="%d")
np.savetxt(f"{a.out}/gram/y_test.txt", y[te], fmt="%d")
for part in ("train", "test"):
    json.dump({"kernels": [f"{v}_{part}.csv" for v in names], "labels": f"y_{part}.txt"},
              open(f"{a.out}/gram/{part}.json", "w"))
print(f"wrote {a.out}: 6 views, kernels.txt, Gram set of {len(tr)} + {len(te)} rows")

# The benchmark's training part: 80 % of a stratified split (seed 1) of all features.
rng = np.random.default_rng(1)
keep = np.concatenate([rng.permutation(np.flatnonzero(y == c))[: int(round((y == c).sum() * (1 - a.test_fraction)))] for c in classes])
write_csv(f"{a.out}/mfeat_train.csv", list(range(x.shape[1])), x[np.sort(keep)], y[np.sort(keep)])
