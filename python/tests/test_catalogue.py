"""The Python layer against the library's method catalogue: the option mapping is the
catalogue's option table, every catalogue method has an estimator, and every option a
covered method reads is an estimator parameter or left out on purpose (listed below with
the reason)."""

import inspect
import json

import pytest

import kernlearn
from kernlearn import _core
from kernlearn.learned import ESTIMATOR_METHODS, OPTION_OF, OPTIONS

# Estimator parameters that are no library option: they steer fitting itself.
FITTING = {"method", "select", "grid", "cv", "scale", "random_state", "verbose"}

# SMO's solver knobs: the stopping tolerance, the kernel cache and shrinking change how
# fast the inner SVMs converge, not what is learned; the estimators on a learned kernel
# leave them at the library's defaults (the papers' settings).
SOLVER = {
    "tol": "SMO tolerance of the inner SVMs: the library's default",
    "cache-mb": "kernel cache size: the library's default",
    "no-shrinking": "SMO shrinking: the library's default (on)",
}
# The base kernel's coefficients other than σ: part of the kernel spec, e.g.
# kernel="poly:degree=2,gamma=1,coef0=1" or kernlearn.kernels.Polynomial(degree=2).
COEFFICIENTS = {
    "gamma": "set in the kernel spec (kernel=)",
    "degree": "set in the kernel spec (kernel=)",
    "coef0": "set in the kernel spec (kernel=)",
}
# The option the hyperkernel regressor and novelty detector set themselves (their
# ``_problem``): the estimator is the choice of problem.
SETS_ITSELF = {"problem": "set by the estimator itself (its _problem)"}

# Options of an estimator's catalogue methods that are no parameter of the estimator.
EXCLUDED = {
    kernlearn.KNPLClassifier: {k: v for k, v in {**SOLVER, **COEFFICIENTS}.items() if k != "tol"},
    kernlearn.DANKClassifier: {**SOLVER, **COEFFICIENTS},
    kernlearn.DANKRegressor: {**SOLVER, **COEFFICIENTS},
    kernlearn.ScalableDANKClassifier: {**SOLVER, **COEFFICIENTS},
    # tol is a parameter (SPG-GMKL's SMO); UNIFORM's SMO keeps the other knobs' defaults
    kernlearn.MKLClassifier: {k: v for k, v in SOLVER.items() if k != "tol"},
    kernlearn.LocalizedMKLClassifier: SOLVER,
    kernlearn.HyperkernelRegressor: SETS_ITSELF,
    kernlearn.HyperkernelNovelty: {
        **SETS_ITSELF,
        "c": "the one-class problem (30) has no C: ν is its trade-off",
    },
    kernlearn.DKMOClassifier: COEFFICIENTS,
    kernlearn.ARDClassifier: {
        **SOLVER,
        "class-weight": "per-class C: the SVC's class_weight; the ARD-SVM keeps equal weights",
    },
    kernlearn.ARDRegressor: SOLVER,
}


def catalogue():
    return json.loads(_core.catalogue())


def option_params(estimator):
    """The constructor parameters of an estimator class."""
    return set(inspect.signature(estimator.__init__).parameters) - {"self"}


def test_the_option_mapping_is_the_catalogues_option_table_each_option_once():
    table = catalogue()["options"]
    names = [o["name"] for o in table]
    params = [o["param"] for o in table]
    assert len(set(names)) == len(names), "an option name appears twice in the table"
    assert len(set(params)) == len(params), "two options share a Python parameter"
    assert sorted(OPTION_OF.values()) == sorted(names)
    assert len(OPTION_OF) == len(OPTIONS) == len(table)
    for option in table:
        assert OPTION_OF[option["param"]] == option["name"]
        assert OPTIONS[option["param"]] == option
        assert option["param"].isidentifier(), option
        assert isinstance(option["negated"], bool), option
        if option["negated"]:  # the parameter is the opposite flag, True by default
            assert option["value"] == "flag", option
    for method in kernlearn.methods():
        unknown = set(method["options"]) - set(names)
        assert not unknown, f"{method['name']} reads options {sorted(unknown)} not in the table"


def test_every_catalogue_method_is_an_estimator():
    fitted = {name for names in ESTIMATOR_METHODS.values() for name in names}
    catalogue_names = {m["name"] for m in kernlearn.methods()}
    assert fitted <= catalogue_names, sorted(fitted - catalogue_names)
    for method in kernlearn.methods():
        if method["family"] == "kernel machine":  # kernlearn.SVC, NuSVC, ..., laid out as sklearn.svm
            continue
        assert method["name"] in fitted, f"no Python estimator fits catalogue method {method['name']}"


@pytest.mark.parametrize("estimator", list(ESTIMATOR_METHODS), ids=lambda e: e.__name__)
def test_every_option_of_a_method_is_an_estimator_parameter(estimator):
    methods = {m["name"]: m for m in kernlearn.methods()}
    params = option_params(estimator)
    reachable = {OPTION_OF[p] for p in params if p in OPTION_OF}
    excluded = EXCLUDED.get(estimator, {})
    read = set()
    for name in ESTIMATOR_METHODS[estimator]:
        options = set(methods[name]["options"])
        read |= options
        missing = options - reachable - set(excluded)
        assert not missing, (
            f"{estimator.__name__} ({name}): options {sorted(missing)} are neither parameters "
            "nor excluded with a reason"
        )
    # no stale exclusion: each is read by one of the methods and is no parameter
    for option, reason in excluded.items():
        assert reason
        assert option in read, f"{estimator.__name__}: excluded {option} is read by none of its methods"
        assert option not in reachable, f"{estimator.__name__}: excluded {option} is a parameter"
        if option in SETS_ITSELF:
            assert option in dict(estimator()._options()), f"{estimator.__name__} does not set {option}"
    # every parameter is a library option one of the methods reads, or steers fitting
    for param in params:
        if param in OPTION_OF:
            assert OPTION_OF[param] in read, f"{estimator.__name__}: {param} is read by none of its methods"
        else:
            assert param in FITTING, f"{estimator.__name__}: {param} is no catalogue option"


def test_negated_parameters_give_the_option_when_false():
    checked = 0
    for estimator in ESTIMATOR_METHODS:
        for param in option_params(estimator):
            option = OPTIONS.get(param)
            if option is None or not option["negated"]:
                continue
            assert option["name"] not in dict(estimator()._options())
            assert dict(estimator(**{param: True})._options()).get(option["name"]) is None
            assert dict(estimator(**{param: False})._options())[option["name"]] == "true"
            checked += 1
    assert checked, "no estimator has a negated parameter (fallback)"


def test_parameters_become_option_text():
    options = dict(kernlearn.DKMOClassifier(hidden=[16, 8], sigma=2.0, embeddings=3)._options())
    assert options == {"dkmo-hidden": "16,8", "sigma": "2.0", "dkmo-embeddings": "3"}
    options = dict(kernlearn.KNPLClassifier(C=4, knpl_alternate=True)._options())
    assert options == {"c": "4", "knpl-alternate": "true"}
    options = dict(kernlearn.MKLClassifier(kernels=["rbf", "linear"], easymkl_lambda=0.5)._options())
    assert options == {"kernels": "rbf;linear", "lambda": "0.5"}
