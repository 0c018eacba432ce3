"""The hyperkernel C-SVM program of kernlearn solved again through CVXPY, from the
identical inputs that kernlearn hands to Clarabel (docs/BENCHMARKS.md, "Hyperkernels").

    cargo run -p kernlearn --example hyperkernel_bench -- --sizes 50,100,200,300,400 \
        --repeats 3 --dump target/hyperkernel/dump
    python scripts/bench_hyperkernel.py target/hyperkernel/dump/hk_*.json

Needs cvxpy and numpy (a throwaway venv: python3 -m venv /tmp/hkvenv &&
/tmp/hkvenv/bin/pip install cvxpy numpy). For each dump it builds the same second-order
cone program in CVXPY's modelling language (quad_over_lin for ‖u_a‖²/β_a, a norm for
the hyper-RKHS regulariser) and solves it with Clarabel through CVXPY; up to --sdp-max
points it also solves the paper's SDP (27) itself (PSD constraint [G(β) z; zᵀ t₁] ⪰ 0 on
the same kernel matrices), which checks that the cone reformulation has the same optimum.
Reports objectives, their relative difference and the time ratio CVXPY / kernlearn
(kernlearn: Clarabel solve of the identical program, timed in Rust).
"""
import json
import sys
import time

import cvxpy as cp
import numpy as np

SDP_MAX = 60


def load(path):
    d = json.load(open(path))
    q = np.array(d["q"])
    factors = [np.array(f).reshape(q.shape[1], -1) for f in d["factors"]]
    p = len(factors)
    chol = np.array(d["hyper_chol"]).reshape(p, p)
    return d, q, factors, chol


def socp(d, q, factors, chol):
    y = np.array(d["y"])
    m = len(y)
    p = len(factors)
    beta = cp.Variable(p, nonneg=True)
    b = cp.Variable()
    zeta = cp.Variable(m, nonneg=True)
    us = [cp.Variable(f.shape[1]) if f.shape[1] else None for f in factors]
    w = sum(factors[a] @ us[a] for a in range(p) if us[a] is not None)
    fit = 0.5 * sum(cp.quad_over_lin(us[a], beta[a]) for a in range(p) if us[a] is not None)
    obj = fit + d["c"] * cp.sum(zeta) + d["lambda_q"] / 2 * cp.norm(chol.T @ beta)
    cons = [cp.multiply(y, q @ w + b) >= 1 - zeta, cp.sum(beta) == d["scale"]]
    prob = cp.Problem(cp.Minimize(obj), cons)
    t = time.perf_counter()
    prob.solve(solver=cp.CLARABEL)
    total = time.perf_counter() - t
    return prob.value, total, prob.solver_stats.solve_time, prob.status


def sdp27(d, q, factors, chol):
    """The paper's (27) with C/m → C (Vapnik-style C per sample, as kernlearn)."""
    y = np.array(d["y"])
    m = len(y)
    p = len(factors)
    ky = [np.diag(y) @ (q @ f) @ (q @ f).T @ np.diag(y) for f in factors]
    beta = cp.Variable(p, nonneg=True)
    gamma = cp.Variable()
    eta = cp.Variable(m, nonneg=True)
    xi = cp.Variable(m, nonneg=True)
    t1 = cp.Variable()
    t2 = cp.Variable()
    z = gamma * y + 1 + eta - xi
    g = sum(beta[a] * ky[a] for a in range(p))
    lmi = cp.bmat([[g, cp.reshape(z, (m, 1), order="F")], [cp.reshape(z, (1, m), order="F"), cp.reshape(t1, (1, 1), order="F")]])
    cons = [cp.norm(chol.T @ beta) <= t2, cp.sum(beta) == d["scale"], (lmi + lmi.T) / 2 >> 0]
    prob = cp.Problem(cp.Minimize(0.5 * t1 + d["c"] * cp.sum(xi) + d["lambda_q"] / 2 * t2), cons)
    t = time.perf_counter()
    prob.solve(solver=cp.CLARABEL)
    return prob.value, time.perf_counter() - t, prob.status


print("| n | rank | kernlearn objective | CVXPY objective | rel. diff | kernlearn s | CVXPY s (solve) | CVXPY s (total) | ratio total | SDP (27) objective | rel. diff |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for path in sys.argv[1:]:
    d, q, factors, chol = load(path)
    ours, ours_s = d["clarabel_objective"], d["clarabel_seconds"]
    val, total, solve_s, status = socp(d, q, factors, chol)
    rel = abs(val - ours) / abs(ours)
    sdp = "—"
    sdp_rel = "—"
    if d["n"] <= SDP_MAX:
        v27, _, st27 = sdp27(d, q, factors, chol)
        sdp = f"{v27:.6f} ({st27})"
        sdp_rel = f"{abs(v27 - ours) / abs(ours):.1e}"
    print(
        f"| {d['n']} | {d['rank']} | {ours:.6f} | {val:.6f} ({status}) | {rel:.1e} | {ours_s:.3f} | "
        f"{solve_s:.3f} | {total:.3f} | {total / ours_s:.1f} | {sdp} | {sdp_rel} |"
    )
