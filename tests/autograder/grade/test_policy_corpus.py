"""The import policy over honest code (nothing found) and over ways around it (each one found).

Honest code: every solution module of the course (the files course.yml names as ``module:``)
and snippets of what students plausibly write with the allowed modules. The attacks reach
``os``, ``sys``, the builtins or the import machinery through allowed modules, aliases, the
object graph or names built from strings; each names what it must be reported as.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.grade.static_check import (
    COMPUTED_ATTRIBUTE,
    COMPUTED_IMPORT,
    DYNAMIC_CODE,
    IMPORT_MACHINERY,
    NAMESPACE,
    OBJECT_GRAPH,
    OUTSIDE_ALLOWED,
    REACHES_BUILTINS,
    policy_violations,
)
from autograder.paths import SOLUTIONS_DIR

COURSE = load_course()
ALLOWED = COURSE.defaults.allowed_imports


def policy(source: str, allowed: tuple[str, ...] = ALLOWED) -> set[tuple[str, str]]:
    return {(v.module, v.reason) for v in policy_violations(ast.parse(textwrap.dedent(source)), allowed)}


@pytest.mark.parametrize("assignment", COURSE.assignments, ids=lambda a: a.id)
def test_every_solution_module_of_the_course_is_within_the_policy(assignment):
    path = SOLUTIONS_DIR / assignment.id / assignment.module
    source = keep_solutions(path.read_text(encoding="utf-8"))
    assert "import numpy" in source  # the real module, with its imports
    assert policy(source) == set()


HONEST = {
    "numpy": """
        import numpy as np
        import numpy.typing as npt
        from numpy.linalg import norm

        def softmax(x: npt.NDArray[np.float64], axis: int = -1) -> np.ndarray:
            shifted = x - x.max(axis=axis, keepdims=True)
            e = np.exp(shifted)
            return e / e.sum(axis=axis, keepdims=True)

        rng = np.random.default_rng(0)
        q = rng.normal(size=(2, 3, 4)).astype(np.float32)
        mask = np.triu(np.ones((3, 3), dtype=bool), k=1)
        scores = np.einsum("bqd,bkd->bqk", q, q) / np.sqrt(q.shape[-1])
        scores = np.where(mask, -np.inf, scores)
        weights = softmax(scores, axis=-1)
        total = np.linalg.norm(weights, axis=-1) + norm(q) + np.finfo(np.float32).eps
        windows = np.lib.stride_tricks.sliding_window_view(np.arange(5), 2)
        np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=1e-6)
        with np.errstate(over="ignore"):
            big = np.exp(np.float32(100.0))
        spectrum = np.fft.fft(np.arange(4.0)).real + np.ma.masked_array([1.0], mask=[False]).filled()
        copy, types, re = q.copy(), [q.dtype], q.T
        assert isinstance(rng, np.random.Generator) and q[np.newaxis].ndim == 4
        """,
    "math_functools_itertools": """
        import math
        import functools
        import itertools
        from functools import reduce, partial, lru_cache

        product = reduce(lambda a, b: a * b, [1, 2, 3])
        root = math.sqrt(2.0) + math.log(math.e) + (math.inf if math.isclose(1.0, 1.0) else 0)
        summed = functools.partial(sum, start=0)
        pairs = list(itertools.product(range(2), repeat=2)) + list(itertools.combinations("abc", 2))
        flat = list(itertools.chain.from_iterable([[1], [2]]))

        @lru_cache(maxsize=None)
        def fib(n):
            return n if n < 2 else fib(n - 1) + fib(n - 2)

        def logged(f):
            @functools.wraps(f)
            def wrapper(*args, **kwargs):
                return f(*args, **kwargs)
            return wrapper
        halve = partial(divmod, 2)
        """,
    "typing_dataclasses": """
        from __future__ import annotations

        import dataclasses
        import typing
        from dataclasses import dataclass, field
        from typing import TYPE_CHECKING, Callable, Optional, Sequence

        if TYPE_CHECKING:
            from numpy import ndarray

        @dataclass(frozen=True)
        class Config:
            heads: int = 2
            scale: Optional[float] = None
            names: list[str] = field(default_factory=list)

            def __post_init__(self):
                object.__setattr__(self, "scale", self.scale or 1.0)

        @dataclasses.dataclass
        class Layer:
            act: Callable[[float], float] = abs
            dims: Sequence[int] = (1, 2)

        config = dataclasses.replace(Config(), heads=4)
        as_dict = dataclasses.asdict(config)
        names = [f.name for f in dataclasses.fields(Config)]
        Number = typing.Union[int, float]
        cast = typing.cast(int, 3)
        """,
    "literal_names_and_builtins": """
        import numpy as np

        class Cache:
            def __init__(self):
                super().__init__()
                setattr(self, "store", {})
                self.os = None if False else 0

            def __repr__(self):
                return f"{type(self).__name__}({len(self.store)})"

        x = np.zeros(3)
        shape = getattr(x, "shape", None)
        if hasattr(x, "dtype") and callable(getattr(np, "sum")):
            print(sorted([3, 1, 2], key=lambda v: -v), max(shape), dir(x)[:1], __name__, __doc__)
        delattr(Cache(), "store")
        """,
    "star_import": """
        from numpy import *

        x = linalg.norm(random.default_rng(0).normal(size=3)) + fft.fft(arange(2.0)).real.sum()
        """,
}


@pytest.mark.parametrize("name", HONEST)
def test_plausible_honest_code_is_within_the_policy(name):
    assert policy(HONEST[name]) == set()


#: Ways around the import check -> what each must be reported as (among possibly more).
ATTACKS = {
    "chain_through_dataclasses": ("import dataclasses\ndataclasses.inspect.os.system('id')",
                                  {("inspect", OUTSIDE_ALLOWED), ("os", OUTSIDE_ALLOWED)}),
    "computed_import_from_builtins": ("import dataclasses\ngetattr(dataclasses.builtins, '__imp' + 'ort__')('os')",
                                      {("builtins", REACHES_BUILTINS), ("getattr", COMPUTED_ATTRIBUTE)}),
    "alias_of_an_import": ("import dataclasses as d\nm = d\nm.sys.exit(0)", {("sys", OUTSIDE_ALLOWED)}),
    "from_import_of_a_module_attribute": ("from dataclasses import inspect\ninspect.os", {("inspect", OUTSIDE_ALLOWED)}),
    "under_another_name": ("import typing\ntyping.stdlib_re.compile('x')", {("re", OUTSIDE_ALLOWED)}),
    "private_alias_in_the_stdlib": ("from typing import collections\ncollections._sys.modules",
                                    {("collections", OUTSIDE_ALLOWED), ("sys", OUTSIDE_ALLOWED)}),
    "lazy_numpy_submodule": ("import numpy as np\nnp.f2py.subprocess.run(['id'])", {("subprocess", OUTSIDE_ALLOWED)}),
    "numpy_ctypes": ("import numpy\nlib = numpy.ctypeslib.ctypes.CDLL(None)", {("ctypes", OUTSIDE_ALLOWED)}),
    "literal_getattr_chain": ("import dataclasses\ngetattr(getattr(dataclasses, 'inspect'), 'os', None)",
                              {("inspect", OUTSIDE_ALLOWED), ("os", OUTSIDE_ALLOWED)}),
    "aliases_bound_later": ("import dataclasses\ndef use():\n    return c.sys\ndef bind_c():\n    global c\n    c = b\n"
                            "def bind_b():\n    global b\n    b = a\na = dataclasses\nbind_b()\nbind_c()\nuse()",
                            {("sys", OUTSIDE_ALLOWED)}),
    "through_a_function_argument": ("import dataclasses\ndef f(m):\n    return m.sys\nf(dataclasses)",
                                    {("sys", OUTSIDE_ALLOWED)}),
    "through_a_return_value": ("import dataclasses as d\ndef g():\n    return d\ng().inspect", {("inspect", OUTSIDE_ALLOWED)}),
    "through_a_container": ("import dataclasses\nbox = {'k': [dataclasses]}\nbox['k'][0].sys", {("sys", OUTSIDE_ALLOWED)}),
    "through_a_loop_and_an_attribute": (
        "import dataclasses\nclass Box: pass\nfor m in (dataclasses,):\n    Box.held = m\nBox.held.sys",
        {("sys", OUTSIDE_ALLOWED)}),
    "through_a_default_and_a_lambda": ("import dataclasses\nf = lambda m=dataclasses: m\nf().sys", {("sys", OUTSIDE_ALLOWED)}),
    "through_an_unreadable_call": ("import dataclasses\nd = {}\nd.setdefault('k', dataclasses)\nd['k'].inspect.os",
                                   {("inspect", OUTSIDE_ALLOWED), ("os", OUTSIDE_ALLOWED)}),
    "subclasses_of_object": ("x = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'Popen']",
                             {("__class__", OBJECT_GRAPH), ("__base__", OBJECT_GRAPH), ("__subclasses__", OBJECT_GRAPH)}),
    "globals_of_a_function": ("import functools\nfunctools.reduce.__self__\n(lambda: 0).__globals__['__builtins__']",
                              {("__self__", OBJECT_GRAPH), ("__globals__", OBJECT_GRAPH)}),
    "builtins_of_a_builtin": ("print.__self__.__import__('os')", {("__self__", OBJECT_GRAPH), ("os", OUTSIDE_ALLOWED)}),
    "frames_of_a_traceback": ("try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    g = e.__traceback__.tb_frame.f_globals",
                              {("__traceback__", OBJECT_GRAPH), ("tb_frame", OBJECT_GRAPH), ("f_globals", OBJECT_GRAPH)}),
    "frames_of_a_generator": ("def gen():\n    yield\ngen().gi_frame.f_builtins",
                              {("gi_frame", OBJECT_GRAPH), ("f_builtins", OBJECT_GRAPH)}),
    "getattr_by_a_computed_name": ("import dataclasses\nname = 'ins' + 'pect'\ngetattr(dataclasses, name).os",
                                   {("getattr", COMPUTED_ATTRIBUTE)}),
    "getattr_as_a_value": ("import functools, dataclasses\nfunctools.reduce(getattr, ['inspect', 'os'], dataclasses)",
                           {("getattr", COMPUTED_ATTRIBUTE)}),
    "getattribute_of_a_module": ("import dataclasses\nobject.__getattribute__(dataclasses, 'inspect')",
                                 {("__getattribute__", COMPUTED_ATTRIBUTE)}),
    "setattr_by_a_computed_name": ("import numpy as np\nsetattr(np, 'all' + 'close', print)\nn = 'x'\nobject.__setattr__(np, n, 1)",
                                   {("setattr", COMPUTED_ATTRIBUTE), ("__setattr__", COMPUTED_ATTRIBUTE)}),
    "literal_getattr_of_a_dunder": ("f = getattr(print, '__self__')", {("__self__", OBJECT_GRAPH)}),
    "vars_of_a_module": ("import dataclasses\nvars(dataclasses)['sys']", {("vars", NAMESPACE)}),
    "module_dict": ("import dataclasses\ndataclasses.__dict__['in' + 'spect']", {("__dict__", NAMESPACE)}),
    "globals_and_locals": ("globals()['__builtins__']\nlocals()", {("globals", NAMESPACE), ("locals", NAMESPACE)}),
    "the_module_loader": ("__loader__.load_module('os')\nimport math\nmath.__spec__.loader",
                          {("__loader__", IMPORT_MACHINERY), ("__spec__", IMPORT_MACHINERY)}),
    "code_from_a_string": ("import dataclasses\nrun = eval\nrun('dataclasses.inspect')", {("eval", DYNAMIC_CODE["eval"])}),
    "computed_dunder_import": ("import dataclasses\ndataclasses.builtins.__import__", {("__import__", COMPUTED_IMPORT),
                                                                                      ("builtins", REACHES_BUILTINS)}),
}


@pytest.mark.parametrize("name", ATTACKS)
def test_every_way_around_the_import_check_is_found(name):
    source, expected = ATTACKS[name]
    assert expected <= policy(source)


def test_the_attack_corpus_is_large_and_each_attack_distinct():
    assert len(ATTACKS) >= 15 and len({source for source, _ in ATTACKS.values()}) == len(ATTACKS)


def test_a_chain_is_reported_at_its_line_once_per_module():
    source = "import dataclasses\n\nx = dataclasses.inspect\ny = dataclasses.inspect.os\n"
    found = [(v.module, v.line, v.reason) for v in policy_violations(ast.parse(source), ALLOWED)]
    assert found == [("inspect", 3, OUTSIDE_ALLOWED), ("os", 4, OUTSIDE_ALLOWED)]


def test_an_import_and_a_chain_to_the_same_module_are_one_violation_at_the_first_line():
    source = "import dataclasses\ndataclasses.sys\nimport sys\n"
    found = [(v.module, v.line) for v in policy_violations(ast.parse(source), ALLOWED)]
    assert found == [("sys", 2)]


def test_modules_of_the_allowed_list_reached_by_a_chain_are_fine():
    assert policy("import dataclasses\ndataclasses.functools.reduce\ndataclasses.itertools.chain") == set()
    assert policy("import dataclasses\ndataclasses.inspect.os", allowed=(*ALLOWED, "inspect")) == {("os", OUTSIDE_ALLOWED)}
