"""Sphinx configuration of kernlearn's Python API reference and examples gallery.

Built by ``scripts/docs.sh`` (which copies this folder to ``target/docs/sphinx-src`` so
that the generated gallery pages never land in the repository) into
``target/docs/python``. The repository root is ``KERNLEARN_ROOT`` when set, else found
upward from this file (the folder holding ``Cargo.toml`` and ``examples/``).
"""

import importlib.util
import os
import re
import warnings
from pathlib import Path


def _root():
    if os.environ.get("KERNLEARN_ROOT"):
        return Path(os.environ["KERNLEARN_ROOT"]).resolve()
    for parent in Path(__file__).resolve().parents:
        if (parent / "Cargo.toml").is_file() and (parent / "examples").is_dir():
            return parent
    raise RuntimeError("cannot find the kernlearn repository root; set KERNLEARN_ROOT")


ROOT = _root()

import kernlearn  # noqa: E402 (the installed package: maturin develop)

project = "kernlearn"
author = "kernlearn contributors"
copyright = "kernlearn contributors"
release = kernlearn.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

# The docstrings are numpydoc: their Parameters / Returns sections give the types, so
# signatures are shown without the annotations (which would repeat them, less readably).
autodoc_typehints = "none"
autodoc_member_order = "bysource"
# Inherited members: an estimator's fit / predict live in shared private bases.
autodoc_default_options = {"members": True, "inherited-members": True}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# kernlearn.ray needs Ray (an optional dependency, installed by scripts/test.sh); without
# it the module is documented against a stand-in.
if importlib.util.find_spec("ray") is None:
    autodoc_mock_imports = ["ray"]

sphinx_gallery_conf = {
    "examples_dirs": [str(ROOT / "examples")],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    # every example must run: an error fails the build
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "show_memory": False,
    "plot_gallery": "True",
    "matplotlib_animations": False,
}

# The examples end with plt.show(), for running them as scripts; under the build's
# non-interactive backend it only warns.
warnings.filterwarnings("ignore", category=UserWarning, message=".*Matplotlib.*non-interactive.*")

html_theme = "alabaster"
html_static_path = []
html_title = f"kernlearn {release}"
html_theme_options = {"description": "Kernel machines and learned kernels", "fixed_sidebar": True}
templates_path = []
exclude_patterns = ["_build"]
nitpicky = False


#: scikit-learn's machinery every estimator inherits (documented by scikit-learn), and
#: deprecated attributes.
_SKIPPED = {
    "get_params", "set_params", "get_metadata_routing", "set_output", "probA_", "probB_",
}


def _skip_member(app, what, name, obj, skip, options):
    if name in _SKIPPED or (name.startswith("set_") and name.endswith("_request")):
        return True
    return None


def _plain_sklearn_refs(app, what, name, obj, options, lines):
    """The inherited scikit-learn docstrings (``score``, ``fit_predict``) cite labels of
    scikit-learn's own documentation (``:ref:`accuracy_score```): their text only."""
    if not getattr(obj, "__module__", "").startswith("sklearn."):
        return

    def text(match):
        label = match.group(1)
        shown = re.match(r"\s*(.*?)\s*<[^>]*>\s*$", label)
        return f"``{shown.group(1) if shown else label}``"

    lines[:] = [re.sub(r":ref:`([^`]*)`", text, line) for line in lines]


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)
    app.connect("autodoc-process-docstring", _plain_sklearn_refs)
