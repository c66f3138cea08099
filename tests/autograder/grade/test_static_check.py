"""The static policy check: syntax errors as LoadFailed, and disallowed imports once per module."""

from __future__ import annotations

import ast
import textwrap

import pytest

from autograder.config import Defaults
from autograder.errors import LoadFailed
from autograder.grade.static_check import (
    COMPUTED_IMPORT,
    DYNAMIC_CODE,
    OUTSIDE_ALLOWED,
    ImportViolation,
    disallowed_imports,
    parse_source,
    policy_violations,
)

ALLOWED = Defaults().allowed_imports


def violations(source: str, allowed: tuple[str, ...] = ALLOWED) -> list[ImportViolation]:
    return disallowed_imports(ast.parse(textwrap.dedent(source)), allowed)


def load_failure(source: str) -> str:
    with pytest.raises(LoadFailed) as caught:
        parse_source(source, "mine.py")
    return caught.value.student_message


def test_valid_source_parses_to_a_module():
    tree = parse_source("def f():\n    return 1\n", "mine.py")
    assert isinstance(tree, ast.Module) and tree.body[0].name == "f"


def test_syntax_error_names_file_line_and_code():
    message = load_failure("import numpy as np\n\ndef f(x:\n    return x\n")
    assert message.startswith("mine.py does not parse:")
    assert "line 3" in message
    assert "def f(x:" in message


def test_indentation_error_is_a_load_failure_with_its_line():
    assert "line 2" in load_failure("def f():\nreturn 1\n")


def test_null_bytes_are_a_load_failure():
    assert load_failure("x = 1\x00\n").startswith("mine.py")


@pytest.mark.parametrize(
    ("source", "module"),
    [
        ("import torch", "torch"),
        ("import torch.nn as nn", "torch"),
        ("from scipy import special", "scipy"),
        ("from scipy.special import softmax", "scipy"),
        ("import attn_reference", "attn_reference"),
        ("from attn_reference.softmax import softmax", "attn_reference"),
        ('__import__("os")', "os"),
        ('__import__("os.path")', "os"),
    ],
)
def test_disallowed_import_is_reported_with_its_line(source, module):
    assert violations(f"x = 1\n{source}\n") == [ImportViolation(module, 2)]


def test_import_module_reports_the_imported_module_and_importlib():
    found = violations('import importlib\n\nmod = importlib.import_module("subprocess")\n')
    assert found == [ImportViolation("importlib", 1), ImportViolation("subprocess", 3)]


def test_from_importlib_import_module_is_reported():
    found = violations('from importlib import import_module\nimport_module("subprocess")\n')
    assert ImportViolation("subprocess", 2) in found


def test_imports_inside_functions_are_reported():
    source = """\
        import numpy as np


        def f(x):
            import torch
            return torch.tensor(x)
        """
    assert violations(source) == [ImportViolation("torch", 5)]


def test_each_module_is_reported_once_at_its_first_line():
    source = """\
        import torch
        import numpy as np
        import torch.nn
        from torch import tensor
        """
    assert violations(source) == [ImportViolation("torch", 1)]


def test_violations_are_ordered_by_line():
    source = """\
        import scipy
        import numpy
        import torch
        import os
        """
    assert [v.module for v in violations(source)] == ["scipy", "torch", "os"]


@pytest.mark.parametrize(
    "source",
    [
        "import numpy as np",
        "import numpy.linalg",
        "from numpy import linalg",
        "from numpy.linalg import norm",
        "import math",
        "from __future__ import annotations",
        "from typing import Optional",
        "from functools import reduce",
        "import itertools, dataclasses",
    ],
)
def test_allowed_imports_are_not_reported(source):
    assert violations(source) == []


def test_relative_imports_are_not_reported():
    assert violations("from . import helpers\nfrom .utils import f\n") == []


def test_dynamic_import_with_a_computed_name_is_not_reported():
    assert violations('name = "o" + "s"\n__import__(name)\n') == []


def test_an_ordinary_call_with_a_string_is_not_an_import():
    assert violations('print("torch")\nnp.load("scipy")\n') == []


def test_the_allowed_list_is_the_one_given():
    assert violations("import math\nimport numpy\n", allowed=("numpy",)) == [ImportViolation("math", 1)]


def test_syntax_error_message_gives_line_column_and_the_line_as_written():
    # ")" is the 12th character of "    return )": 4 spaces, "return", a space, then ")".
    assert load_failure("def f():\n    return )\n") == "mine.py does not parse: unmatched ')' (line 2, column 12)\n        return )"


def test_a_syntax_error_without_column_or_text_gives_just_the_line(monkeypatch):
    def fails(source, *args, **kwargs):
        raise SyntaxError("too many nested blocks", ("mine.py", 7, None, None))

    monkeypatch.setattr(ast, "parse", fails)
    assert load_failure("pass\n") == "mine.py does not parse: too many nested blocks (line 7)"


def test_source_that_cannot_be_encoded_is_a_load_failure_saying_why():
    # A lone surrogate (e.g. "\ud800" escaped in a notebook's JSON) cannot be encoded to UTF-8 for the parser.
    message = load_failure('x = "\ud800"\n')
    assert message.startswith("mine.py could not be read: ") and "lone surrogate" in message


def test_a_call_of_a_computed_function_with_a_string_is_not_an_import():
    assert violations('handlers = [print]\nhandlers[0]("torch")\nmake()("scipy")\n') == []


def policy(source: str) -> list[tuple[str, int, str]]:
    return [(v.module, v.line, v.reason) for v in policy_violations(ast.parse(textwrap.dedent(source)), ALLOWED)]


@pytest.mark.parametrize(
    ("source", "name", "reason"),
    [
        ('m = __import__("o" + "s")', "__import__", COMPUTED_IMPORT),
        ("name = 'os'\nm = importlib.import_module(name)", "import_module", COMPUTED_IMPORT),
        ("loader = __import__\nloader('os')", "__import__", COMPUTED_IMPORT),
        ('exec("import os")', "exec", DYNAMIC_CODE["exec"]),
        ("run = eval", "eval", DYNAMIC_CODE["eval"]),
        ('code = compile("1", "x", "eval")', "compile", DYNAMIC_CODE["compile"]),
        ("b = __builtins__", "__builtins__", DYNAMIC_CODE["__builtins__"]),
        ("import numpy\nb = numpy.__builtins__", "__builtins__", DYNAMIC_CODE["__builtins__"]),
    ],
)
def test_code_the_import_check_cannot_read_is_disallowed_with_a_reason(source, name, reason):
    assert (name, reason) in [(module, why) for module, _, why in policy(source)]


def test_ordinary_code_is_not_dynamic_code():
    source = """
        import numpy as np
        PATTERN = np.char.compile if hasattr(np.char, "compile") else None
        def compile_mask(n):
            return np.tril(np.ones((n, n), bool))
        helper = __import__("numpy")
    """
    assert policy(source) == []


def test_each_construct_is_reported_once_at_its_first_line():
    assert policy('exec("1")\nexec("2")\nimport os\n') == [("exec", 1, DYNAMIC_CODE["exec"]), ("os", 3, OUTSIDE_ALLOWED)]


def test_dynamic_code_is_reported_at_the_line_using_it():
    source = """\
        import numpy as np
        run = exec
        b = np.__builtins__
        m = __import__(np.__name__)
        loader = __import__
        """
    assert policy(source) == [
        ("exec", 2, DYNAMIC_CODE["exec"]),
        ("__builtins__", 3, DYNAMIC_CODE["__builtins__"]),
        ("__import__", 4, COMPUTED_IMPORT),
    ]
    assert policy("import numpy as np\n\nloader = __import__\n") == [("__import__", 3, COMPUTED_IMPORT)]


def test_a_call_of_a_computed_function_is_no_dynamic_code():
    assert policy('handlers = [print]\nhandlers[0]("torch")\nmake()("scipy")\n') == []


def test_a_null_byte_is_an_unreadable_file_not_a_syntax_error_at_line_none():
    message = load_failure("x = 1\x00\n")
    assert message.startswith("mine.py could not be read: ") and "None" not in message
