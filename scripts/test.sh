#!/usr/bin/env bash
# The whole test suite: the Rust tests, then the Python package built into a virtual
# environment with maturin and tested with pytest. Run from anywhere; needs cargo and
# python3 (>= 3.9, with venv). The environment lives in target/python-venv (override
# with KERNLEARN_VENV) and is reused by later runs.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --workspace

venv="${KERNLEARN_VENV:-target/python-venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "maturin>=1.5,<2" "numpy>=1.21" "scikit-learn>=1.6" scipy joblib "pytest>=7" pandas \
    "ray>=2.9" # the kernlearn[ray] extra: python/tests/test_ray.py runs a local cluster
# Debug-profile build (the workspace's dev profile is optimised), sharing target/ with
# the cargo tests above.
VIRTUAL_ENV="$(cd "$venv" && pwd)" "$venv/bin/maturin" develop --quiet
# --doctest-modules: the `>>>` examples of the package's docstrings run too.
"$venv/bin/python" -m pytest python/tests python/kernlearn --doctest-modules -q -p no:cacheprovider
