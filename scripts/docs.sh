#!/usr/bin/env bash
# Builds the documentation, warnings being errors, into target/docs/ (git-ignored):
#
# - the Rust API reference (rustdoc of the library and of the extension crate):
#   target/doc/kernlearn/index.html;
# - the Python API reference (Sphinx + numpydoc, autodoc of the installed package) and
#   the examples gallery (sphinx-gallery runs every examples/plot_*.py and keeps its
#   figures): target/docs/python/index.html, gallery in target/docs/python/auto_examples/;
# - target/docs/index.html, a page linking both;
#
# and checks the package's type hints and stubs with mypy. Run from anywhere after
# scripts/test.sh (which creates target/python-venv and installs kernlearn into it; when
# kernlearn is not importable there it is built here with maturin). Installs sphinx,
# numpydoc, sphinx-gallery, matplotlib and mypy into that environment when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

# --lib: the command line's binary is also named `kernlearn`, and documenting it next to
# the library makes cargo warn of colliding output paths (its reference is `kernlearn
# --help`).
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --lib

venv="${KERNLEARN_VENV:-target/python-venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
py="$venv/bin/python"
case "$py" in /*) ;; *) py="$root/$py" ;; esac
if ! "$py" -c "import sphinx, numpydoc, sphinx_gallery, matplotlib, mypy, pandas" 2>/dev/null; then
    "$py" -m pip install --quiet --disable-pip-version-check \
        "sphinx>=7" "numpydoc>=1.6" "sphinx-gallery>=0.15" matplotlib mypy pandas
fi
if ! "$py" -c "import kernlearn" 2>/dev/null; then
    "$py" -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2" "numpy>=1.21" \
        "scikit-learn>=1.6" scipy
    VIRTUAL_ENV="$(cd "$venv" && pwd)" "$venv/bin/maturin" develop --quiet
fi

# Typing: the stubs of the native module (python/kernlearn/_core.pyi) against the built
# module (stubtest: every name, every signature), then the annotations of the
# pure-Python layer against them (scikit-learn and scipy ship no type information).
# (Caches under target/: stubtest writes its cache in the working directory.)
(cd target && "$py" -m mypy.stubtest kernlearn._core)
"$py" -m mypy --ignore-missing-imports --cache-dir target/mypy-cache python/kernlearn

# Sphinx writes the gallery's generated pages next to its sources: it builds from a copy
# under target/docs/, so nothing lands in the repository.
out="target/docs"
rm -rf "$out/sphinx-src" "$out/python"
mkdir -p "$out"
cp -r docs/sphinx "$out/sphinx-src"
MPLBACKEND=Agg KERNLEARN_ROOT="$root" "$py" -m sphinx -W --keep-going -q -b html \
    "$out/sphinx-src" "$out/python"

cat > "$out/index.html" <<'HTML'
<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>kernlearn documentation</title></head>
<body>
<h1>kernlearn documentation</h1>
<ul>
<li><a href="python/index.html">Python API reference and examples gallery</a></li>
<li><a href="../doc/kernlearn/index.html">Rust library reference (rustdoc)</a></li>
</ul>
</body>
</html>
HTML
echo "docs: $out/index.html (Python: $out/python/index.html, Rust: target/doc/kernlearn/index.html)"
