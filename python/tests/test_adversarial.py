"""Hostile inputs at the Python boundary: every one ends in an exception naming the
parameter or file, never a silently ignored option, a killed interpreter, a hang, or a
label predicted from non-finite scores."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

import kernlearn
from conftest import dataset, scaled


def heart_split():
    X, y = dataset("heart")
    return train_test_split(scaled(X), y, test_size=0.5, random_state=0, stratify=y)


@pytest.mark.parametrize(
    "params, option",
    [
        ({"problem": "nu-svm", "C": 5.0}, "`c`"),
        ({"problem": "c-svm", "nu": 0.2}, "`nu`"),
        ({"problem": "lsvm", "nu": 0.2}, "`nu`"),
        ({"problem": "kta", "nu": 0.2}, "`nu`"),
        ({"hyperkernel": "exp", "lambda_h": 0.5}, "`lambda-h`"),
    ],
)
def test_hyperkernel_options_the_problem_does_not_read_raise(params, option):
    X, _, y, _ = heart_split()
    with pytest.raises(ValueError, match=option):
        kernlearn.HyperkernelClassifier(**params).fit(X[:40], y[:40])


# Each value would need terabytes: refused before any allocation. Run in a child
# interpreter so that a regression (an abort) fails the test instead of killing pytest.
HUGE = [
    "kernlearn.CKLClassifier(fourier_features=10**11)",
    "kernlearn.CKLClassifier('rff-linear', fourier_features=10**11)",
    "kernlearn.DKMOClassifier(hidden=(100000000,))",
    "kernlearn.DKMOClassifier(hidden=(100000, 100000))",
    "kernlearn.DKMOClassifier(embedding='nystrom', embeddings=10**11)",
]


@pytest.mark.parametrize("estimator", HUGE)
def test_huge_parameters_raise_instead_of_killing_the_interpreter(estimator):
    code = (
        "import numpy as np, kernlearn\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.random((30, 3)); y = np.arange(30) % 2\n"
        "try:\n"
        f"    {estimator}.fit(X, y)\n"
        "    print('FITTED')\n"
        "except ValueError as e:\n"
        "    print('REFUSED', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("REFUSED"), out.stdout + out.stderr[-2000:]
    assert "memory" in out.stdout


def _tampered(tmp_path, model, edit):
    path = tmp_path / "model.json"
    model.save(path, force=True)
    doc = json.loads(path.read_text())
    edit(doc)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    return bad


def test_loaded_models_with_extreme_numbers_raise_in_predict(tmp_path):
    X_train, X_test, y_train, _ = heart_split()
    svc = kernlearn.SVC(C=2).fit(X_train, y_train)

    def huge(doc):
        fitted = doc["model"]["fitted"]
        # Every stored coefficient at 1e308: the decision values overflow.
        def walk(v):
            if isinstance(v, dict):
                for k, x in v.items():
                    if k in ("sv_coef", "coef") and isinstance(x, list):
                        v[k] = [[1e308] * len(c) if isinstance(c, list) else 1e308 for c in x]
                    else:
                        walk(x)
            elif isinstance(v, list):
                for x in v:
                    walk(x)
        walk(fitted)

    loaded = kernlearn.load(_tampered(tmp_path, svc, huge))
    with pytest.raises(ValueError, match="not finite|beyond|extreme|NaN|inf"):
        loaded.decision_function(X_test)
    with pytest.raises(ValueError, match="not finite|beyond|extreme|NaN|inf"):
        loaded.predict(X_test)


def test_loaded_models_agree_in_sign_and_shape_with_the_estimator(tmp_path):
    X_train, X_test, y_train, _ = heart_split()
    svc = kernlearn.SVC(C=2).fit(X_train, y_train)
    path = tmp_path / "svc.json"
    svc.save(path)
    loaded = kernlearn.load(path)
    np.testing.assert_allclose(loaded.decision_function(X_test), svc.decision_function(X_test))
    np.testing.assert_array_equal(loaded.predict(X_test), svc.predict(X_test))
    np.testing.assert_array_equal(loaded.classes_, svc.classes_)
    # Three classes: the one-vs-rest scores of the estimator.
    X, y = dataset("wine")
    three = kernlearn.SVC(C=2).fit(scaled(X), y)
    three.save(tmp_path / "wine.json")
    back = kernlearn.load(tmp_path / "wine.json")
    np.testing.assert_allclose(back.decision_function(scaled(X)[:20]), three.decision_function(scaled(X)[:20]))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_load_refuses_devices_at_once():
    with pytest.raises(ValueError, match="regular file"):
        kernlearn.load("/dev/zero")


def test_a_fit_below_the_majority_rate_warns(monkeypatch):
    """A learned classifier whose training accuracy is below the majority-class rate
    says so (a warning and ``warnings_``); one that fits does not."""
    X, y = heart_split()[0], heart_split()[2]
    fitted = kernlearn.MKLClassifier().fit(X, y)
    assert not any("majority" in w for w in fitted.warnings_)
    minority = np.unique(y, return_counts=True)
    minority = minority[0][np.argmin(minority[1])]
    # A model that always predicts the minority class, as a diverged network would
    # (``_labels``: the prediction of validated rows that the fit's check reads).
    monkeypatch.setattr(
        kernlearn.MKLClassifier, "_labels", lambda self, X: np.full(len(X), minority)
    )
    with pytest.warns(UserWarning, match="below the majority-class rate"):
        worse = kernlearn.MKLClassifier().fit(X, y)
    assert any("majority-class rate" in w for w in worse.warnings_)


def test_a_huge_cache_size_means_unbounded():
    """``cache_size=1e15`` (MiB, beyond 2^64 bytes) fits as an unbounded cache, as
    ``--cache-mb`` does, rather than failing with a serialisation message."""
    X, _, y, _ = heart_split()
    big = kernlearn.SVC(cache_size=1e15).fit(X, y)
    assert np.array_equal(big.predict(X), kernlearn.SVC().fit(X, y).predict(X))


def test_ctrl_c_interrupts_a_fit_within_moments():
    """Ctrl-C (SIGINT) during a long fit raises ``KeyboardInterrupt`` within seconds: the
    fit runs off Python's main thread, which polls for signals and asks the library to
    stop; the estimator stays unfitted. In a child interpreter, timed from the signal."""
    import signal
    import time

    code = (
        "import time, numpy as np, kernlearn\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.normal(size=(20000, 10)); y = np.where(rng.normal(size=20000) > 0, 1, -1)\n"
        # About 20 s uninterrupted on a 2-core machine.
        "m = kernlearn.SVC(C=1e4, gamma=0.5, cache_size=20)\n"
        "print('fitting', flush=True)\n"
        "try:\n"
        "    m.fit(X, y)\n"
        "    print('finished', flush=True)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', hasattr(m, 'support_'), flush=True)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "fitting"
    time.sleep(1.0)
    child.send_signal(signal.SIGINT)
    sent = time.monotonic()
    out, _ = child.communicate(timeout=60)
    assert out.strip() == "interrupted False", out
    assert time.monotonic() - sent < 5


def test_warm_starts_from_per_row_duals_refuse_what_they_cannot_start():
    """The divide-and-conquer fit's building blocks (``kernlearn.ray.svc``) name what is
    wrong: a start with sample weights, on sparse rows, of the wrong length; per-row duals
    of a model that is not a binary C-SVC."""
    import scipy.sparse as sp

    from kernlearn import _core
    from kernlearn._base import csr_parts

    X, y = dataset("heart")
    X = scaled(X)
    est = kernlearn.SVC(C=2.0, gamma=0.2)
    params = est._params_json(X)
    labels = np.where(y == np.unique(y)[0], 1.0, -1.0)
    alpha = _core.fit_svm(params, X, labels).row_alpha(len(labels))
    with pytest.raises(ValueError, match="takes no sample weights"):
        _core.fit_svm(params, X, labels, np.ones(len(labels)), alpha)
    with pytest.raises(ValueError, match="takes dense rows"):
        _core.fit_svm(params, csr_parts(sp.csr_matrix(X)), labels, None, alpha)
    with pytest.raises(ValueError, match="values for"):
        _core.fit_svm(params, X, labels, None, alpha[:-1])
    three = kernlearn.SVC(C=2.0, gamma=0.2).fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="binary C-SVC"):
        three.model_.row_alpha(len(y))
    warm = _core.fit_svm(params, X, labels, None, alpha)
    assert json.loads(warm.info())["summary"]["iterations"] <= 2
