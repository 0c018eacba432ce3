#!/usr/bin/env bash
# Builds the Python wheel with maturin and installs it into a fresh virtual environment,
# then runs a smoke test there, outside the source tree: what `pip install kernlearn`
# users get (the native module, the pure-Python package, py.typed and the stubs).
# Run after scripts/test.sh, whose build of the same profile this one reuses (a relink);
# KERNLEARN_WHEEL_PROFILE=release builds the optimised wheel a release would ship.
set -euo pipefail
cd "$(dirname "$0")/.."

build_venv="${KERNLEARN_VENV:-target/python-venv}"
fresh="target/wheel-venv"
wheels="target/wheels"
rm -rf "$fresh" "$wheels"
profile=()
[ "${KERNLEARN_WHEEL_PROFILE:-}" = "release" ] && profile=(--release)
"$build_venv/bin/maturin" build --quiet "${profile[@]}" --out "$wheels" -i "$build_venv/bin/python"
wheel=$(realpath "$wheels"/kernlearn-*.whl)
python3 -m venv "$fresh"
"$fresh/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel"
smoke="$(mktemp -d)"
trap 'rm -rf "$smoke"' EXIT
cd "$smoke"
"$OLDPWD/$fresh/bin/python" - "$wheel" <<'PY'
"""Smoke test of the installed wheel: imports, the files a wheel must carry, one fit."""
import importlib.resources as resources
import pickle
import sys
import zipfile

import numpy as np
import kernlearn

names = zipfile.ZipFile(sys.argv[1]).namelist()
for needed in ("kernlearn/py.typed", "kernlearn/_core.pyi"):
    assert needed in names, f"the wheel lacks {needed}: {sorted(n for n in names if n.startswith('kernlearn/'))}"
assert "site-packages" in kernlearn.__file__, f"kernlearn imported from {kernlearn.__file__}, not the wheel"
assert resources.files("kernlearn").joinpath("py.typed").is_file()
rng = np.random.default_rng(0)
X = rng.normal(size=(200, 5))
y = (X[:, 0] * X[:, 1] > 0).astype(int)
model = kernlearn.SVC(C=10).fit(X[:150], y[:150])
accuracy = model.score(X[150:], y[150:])
assert accuracy > 0.7, f"accuracy {accuracy:.3f} on XOR-like data"
restored = pickle.loads(pickle.dumps(model))
assert (restored.predict(X[150:]) == model.predict(X[150:])).all()
print(f"wheel {sys.argv[1].rsplit('/', 1)[-1]}: imported from site-packages, "
      f"SVC accuracy {accuracy:.3f}, py.typed and stubs present")
PY
