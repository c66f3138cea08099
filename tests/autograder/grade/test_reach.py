"""Attribute chains read in the grader's own copy of the allowed modules: what is looked up, what never runs.

A stand-in allowed module (put in ``sys.modules`` for the test) holds what the real ones do:
another module under some other name, a lazy module ``__getattr__``, a module outside the
list with its own ``__getattr__``, an object with a property.
"""

from __future__ import annotations

import ast
import os
import sys
import types

import pytest

from autograder.config import load_course
from autograder.grade import reach
from autograder.grade.static_check import OUTSIDE_ALLOWED, policy_violations

ALLOWED = load_course().defaults.allowed_imports
STAND_IN = "course_stand_in"


def found(source: str, allowed: tuple[str, ...] = ALLOWED) -> list[tuple[str, int]]:
    return [(v.module, v.line) for v in policy_violations(ast.parse(source), allowed) if v.reason == OUTSIDE_ALLOWED]


@pytest.fixture
def stand_in(monkeypatch):
    """An allowed module ``course_stand_in``; ``calls`` records every piece of its code that runs."""
    calls = []
    module = types.ModuleType(STAND_IN)
    other = types.ModuleType("course_other")
    other.__getattr__ = lambda name: calls.append(("other.__getattr__", name)) or os

    class Held:
        @property
        def prop(self):
            calls.append(("prop",))
            return os

    def lazy(name):
        calls.append(("lazy", name))
        if name == "later":
            return sys
        raise AttributeError(name)

    module.helper, module.other, module.held, module.__getattr__ = os, other, Held(), lazy
    monkeypatch.setitem(sys.modules, STAND_IN, module)
    return calls


def test_a_chain_is_read_in_the_trusted_copy_whatever_the_attribute_is_called(stand_in):
    source = f"import {STAND_IN} as s\nx = 1\ns.helper.getcwd()\n"
    assert found(source, (STAND_IN,)) == [("os", 3)]


def test_a_lazy_attribute_of_an_allowed_module_is_looked_up_as_the_run_would(stand_in):
    assert found(f"from {STAND_IN} import later\n", (STAND_IN,)) == [("sys", 1)]
    assert ("lazy", "later") in stand_in


def test_no_code_outside_the_allowed_modules_runs(stand_in):
    source = f"import {STAND_IN}\n{STAND_IN}.other.anything\n{STAND_IN}.held.prop.system\n"
    assert found(source, (STAND_IN,)) == [("course_other", 2)]
    assert [call for call in stand_in if call[0] != "lazy"] == []


def test_nothing_is_imported_by_a_name_the_student_wrote():
    assert "numpy.f2py.__main__" not in sys.modules  # importing it would run f2py's command line in the grader
    source = "import numpy.f2py.__main__ as m\nfrom numpy.f2py import __main__\nimport numpy.no_such_module\nm.os\n"
    assert found(source) == [("os", 4)]  # the module is not there to read: m is a base the analysis cannot read
    assert "numpy.f2py.__main__" not in sys.modules and "numpy.no_such_module" not in sys.modules


def test_an_allowed_module_the_grader_cannot_import_reaches_nothing_and_breaks_nothing():
    allowed = (*ALLOWED, "no_such_module_of_the_course")
    assert found("import no_such_module_of_the_course as m\nm.linalg\nimport dataclasses\ndataclasses.sys\n", allowed) \
        == [("sys", 4)]


def test_a_spent_budget_stops_following_aliases_and_escape_names_still_count(monkeypatch):
    source = "import dataclasses\nm = dataclasses\nm.copy\nm.sys\n"
    assert found(source) == [("copy", 3), ("sys", 4)]
    monkeypatch.setattr(reach, "VISITS_FLOOR", 0)
    monkeypatch.setattr(reach, "VISITS_PER_NODE", 0)
    assert found(source) == [("sys", 4)]


def test_chains_and_targets_thousands_deep_are_read_without_recursion():
    deep_target = "import dataclasses\nx" + "[0]" * 950 + " = dataclasses\nx.inspect\n"
    deep_chain = "import dataclasses\nx = dataclasses" + ".copy" * 950 + "\n"
    assert found(deep_target) == [("inspect", 3)]
    assert found(deep_chain) == [("copy", 2)]


def test_the_alias_analysis_follows_each_binding_form():
    # copy is a module dataclasses holds, and no escape name: only the alias analysis can find it.
    forms = {
        "walrus": "import dataclasses\nif (m := dataclasses):\n    m.copy",
        "with": "import dataclasses\nwith dataclasses as m:\n    m.copy",
        "unpacking": "import dataclasses, math\na, (b, *c) = math, (math, dataclasses)\nc.copy",
        "comprehension": "import dataclasses\n[m.copy for m in [dataclasses]]",
        "keyword_argument": "import dataclasses\ndef f(*, m=None):\n    return m.copy\nf(m=dataclasses)",
        "method_argument": "import dataclasses\nclass C:\n    def f(self, m):\n        return m.copy\nC().f(dataclasses)",
        "annotated": "import dataclasses\nm: object = dataclasses\nm.copy",
        "conditional": "import dataclasses\nm = None if len('') else dataclasses\nm.copy",
        "either": "import dataclasses\nm = None or dataclasses\nm.copy",
        "literal_import": "m = __import__('dataclasses')\nm.copy",
        "item": "import dataclasses\nd = {}\nd['k'] = dataclasses\nd['k'].copy",
    }
    missed = [name for name, source in forms.items() if "copy" not in {module for module, _ in found(source)}]
    assert missed == []
