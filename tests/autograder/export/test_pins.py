"""No export names a version of our packages that the course bundle it ships does not provide.

Every text an export writes (its files, and the members of its zips) is searched for a
requirement on one of our distributions with a version (``attn-course==0.1.0``,
``attn_course>=0.1``, ``attn-course-kit==…``, ``attn-reference…``). Each must be satisfied by a
wheel the export itself carries (the course bundle, :mod:`autograder.bundle`): no index has our
packages, so a pin that only an index could satisfy fails off this machine.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

from autograder.config import DEFAULT_COURSE_FILE, load_course
from autograder.export import TARGETS, ExportContext, export_to

COURSE = load_course()
FIRST = COURSE.assignments[0]
OURS = {"attn-course", "attn-course-kit", "attn-reference"}
#: A requirement on one of our distributions with a version specifier.
PIN = re.compile(r"\battn[-_.]+(?:course(?:[-_.]+kit)?|reference)\s*(?:\[[^\]]*\])?\s*(?:===|==|>=|<=|~=|!=|<|>)\s*[0-9][^\s\"',;)]*",
                 re.IGNORECASE)
#: Targets whose export another part of issue 23 changes to ship the bundle (autograder/export/otter.py).

def _texts_and_wheels(name: str, data: bytes, texts: dict, wheels: list) -> None:
    if name.endswith(".whl"):
        wheels.append(Path(name.rsplit("!", 1)[-1]).name)
        return
    if name.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for member in archive.namelist():
                _texts_and_wheels(f"{name}!{member}", archive.read(member), texts, wheels)
        return
    try:
        texts[name] = data.decode("utf-8")
    except UnicodeDecodeError:
        pass


def export_contents(folder: Path) -> tuple[dict[str, str], list[str]]:
    """Every text of an export (zip members included, by ``zip!member``) and the names of the wheels it carries."""
    texts, wheels = {}, []
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            _texts_and_wheels(str(path.relative_to(folder)), path.read_bytes(), texts, wheels)
    return texts, wheels


def unprovided_pins(texts: dict[str, str], wheels: list[str]) -> list[str]:
    """``file: requirement`` for every pin of our packages that no carried wheel satisfies."""
    provided = [parse_wheel_filename(name)[:2] for name in wheels]
    problems = []
    for where, text in texts.items():
        for match in PIN.finditer(text):
            try:
                requirement = Requirement(match.group(0))
            except InvalidRequirement:
                problems.append(f"{where}: {match.group(0)} (not a requirement pip reads)")
                continue
            name = canonicalize_name(requirement.name)
            if name in OURS and not any(n == name and requirement.specifier.contains(v, prereleases=True) for n, v in provided):
                problems.append(f"{where}: {match.group(0)}")
    return problems


def test_the_check_finds_a_pin_that_nothing_carried_provides_and_accepts_the_bundle():
    texts = {"requirements.txt": "numpy==2.0\nattn-course==0.1.0\n", "setup.sh": "pip install 'attn_course[otter]>=0.1'"}
    assert unprovided_pins(texts, []) == ["requirements.txt: attn-course==0.1.0", "setup.sh: attn_course[otter]>=0.1"]
    assert unprovided_pins(texts, ["attn_course-0.1.0+2027.1-py3-none-any.whl"]) == []
    assert unprovided_pins(texts, ["attn_course-0.2.0-py3-none-any.whl"]) == ["requirements.txt: attn-course==0.1.0"]
    assert unprovided_pins({"README.md": "pip install 'attn-course[nbgrader]'"}, []) == []  # no version named


@pytest.mark.slow
@pytest.mark.parametrize("target", sorted(TARGETS))
def test_no_export_names_a_version_of_our_packages_that_its_bundle_does_not_provide(target, tmp_path):
    export_to(TARGETS[target], ExportContext(COURSE, DEFAULT_COURSE_FILE, (FIRST.id,)), tmp_path / target)
    texts, wheels = export_contents(tmp_path / target)
    assert texts
    assert unprovided_pins(texts, wheels) == []
