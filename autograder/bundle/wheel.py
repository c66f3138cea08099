"""Build the course bundle: a pure-Python wheel of the engine and one course, never its answers' masters or secret.

The wheel (distribution ``attn-course``, see :mod:`autograder.bundle.version`) holds:

* the engine, ``autograder/`` (its modules and package data, as pyproject.toml lists it);
* the course's reference package as ``attn_reference/`` (the oracle its hidden suites compare with);
* the course directory as ``attn_course_content/`` (:data:`~autograder.paths.BUNDLED_COURSE_DIR`):
  ``course.yml``, ``hidden_tests/``, ``mistakes/`` (the grader replays the course's mutants on a
  failure and names bugs by its hints: never a master, those are wrong versions), the releases' stubs (so an untouched stub is told apart) and
  ``bundle.json``. An installed bundle grades that course without ``--course``.

Never in it: ``solutions/``, the course secret (``.course_secret``), the class's own files (roster,
extensions). It is written with the standard library (:mod:`autograder.kit.wheel`), so building
needs no network and the same course gives the same bytes.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from autograder import __version__
from autograder.bundle.version import BUNDLE_INFO, bundle_info, bundle_version
from autograder.errors import GraderError
from autograder.kit.wheel import record_line, wheel_bytes, wheel_file
from autograder.layout import HIDDEN_TESTS, MISTAKES, RELEASES, CourseDirectory
from autograder.paths import BUNDLED_COURSE_DIR, PROJECT_ROOT

DISTRIBUTION = "attn-course"
ENTRY_POINT = "autograder.entry:run"
ENGINE_PACKAGE = "autograder"
REFERENCE_PACKAGE = "attn_reference"
#: The course directory's folder in the wheel (and in site-packages).
CONTENT = BUNDLED_COURSE_DIR.name
#: Course folders the engine reads, bundled when the course has them (beside course.yml).
COURSE_FOLDERS = (HIDDEN_TESTS, MISTAKES)
#: Names never bundled, wherever they are: the course secret, caches, the masters.
NEVER = (".course_secret", "__pycache__", ".pytest_cache", "solutions")
#: Optional dependencies the bundle offers as extras (the platforms' own tools).
EXTRAS = ("nbgrader", "otter")


def _skipped(path: Path, top: Path) -> bool:
    return any(part.startswith(NEVER) or part.startswith(".") for part in path.relative_to(top).parts)


def tree_files(top: Path, prefix: str, suffixes: tuple[str, ...] | None = None) -> dict[str, bytes]:
    """Every file under ``top`` (archive name ``prefix/relative``), caches, dot-files and secrets left out."""
    files = {}
    for path in sorted(top.rglob("*")):
        if path.is_file() and not _skipped(path, top) and (suffixes is None or path.name.endswith(suffixes)):
            files[f"{prefix}/{path.relative_to(top).as_posix()}"] = path.read_bytes()
    return files


def _project(source_root: Path) -> dict:
    try:
        return tomllib.loads((source_root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise GraderError(f"the bundle is built from the engine's checkout: cannot read its pyproject.toml ({error})") from None


def engine_files(source_root: Path = PROJECT_ROOT) -> dict[str, bytes]:
    """The engine's modules and package data (pyproject.toml's ``package-data`` patterns)."""
    patterns = _project(source_root).get("tool", {}).get("setuptools", {}).get("package-data", {}).get(ENGINE_PACKAGE, [])
    package = source_root / ENGINE_PACKAGE
    files = tree_files(package, ENGINE_PACKAGE, (".py",))
    for pattern in patterns:
        files.update({f"{ENGINE_PACKAGE}/{p.relative_to(package).as_posix()}": p.read_bytes()
                      for p in sorted(package.glob(pattern)) if p.is_file()})
    return dict(sorted(files.items()))


def course_files(course) -> dict[str, bytes]:
    """The course directory of the bundle: course.yml, its folders, the releases' stubs and :data:`BUNDLE_INFO`.

    Raises
    ------
    GraderError
        When the course has no hidden suites, or a release cannot be built.
    """
    from autograder.build import build_release

    layout: CourseDirectory = course.layout
    files = {f"{CONTENT}/course.yml": layout.course_file.read_bytes()}
    folders = {HIDDEN_TESTS: layout.hidden_tests, MISTAKES: layout.mistakes}
    for name, folder in folders.items():
        if folder.is_dir():
            files.update(tree_files(folder, f"{CONTENT}/{name}"))
    if not any(name.startswith(f"{CONTENT}/{HIDDEN_TESTS}/") for name in files):
        raise GraderError(f"no hidden tests to bundle in {layout.hidden_tests}")
    for assignment in course.assignments:
        release = build_release(course, assignment.id, layout.solutions)
        for name in (assignment.module, assignment.notebook):
            data = release[name]
            files[f"{CONTENT}/{RELEASES}/{assignment.id}/{name}"] = data.encode("utf-8") if isinstance(data, str) else data
    files[f"{CONTENT}/{BUNDLE_INFO}"] = (json.dumps(bundle_info(course), indent=2) + "\n").encode("utf-8")
    return files


def _metadata(course, project: dict, version: str) -> str:
    """METADATA: the project's requirements (its extras for the platforms' tools) and both versions in the summary."""
    lines = ["Metadata-Version: 2.1", f"Name: {DISTRIBUTION}", f"Version: {version}",
             f"Summary: attn-course grader {__version__} with the course {course.course.name!r} "
             f"({course.course.term}) version {course.version or '(none)'}",
             f"Requires-Python: {project.get('requires-python', '>=3.11')}",
             *[f"Requires-Dist: {line}" for line in project.get("dependencies", ())]]
    for extra in EXTRAS:
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {line}; extra == "{extra}"' for line in project.get("optional-dependencies", {}).get(extra, ())]
    return "\n".join(lines) + "\n"


def bundle_files(course, source_root: Path = PROJECT_ROOT) -> dict[str, bytes]:
    """Every file of the course bundle's wheel (archive name -> bytes), RECORD last.

    Raises
    ------
    GraderError
        When pyproject.toml cannot be read or the course cannot be bundled.
    """
    version = bundle_version(course.version)
    files = {**engine_files(source_root), **tree_files(course.layout.reference, REFERENCE_PACKAGE, (".py",)),
             **course_files(course)}
    info = f"{DISTRIBUTION.replace('-', '_')}-{version}.dist-info"
    files[f"{info}/METADATA"] = _metadata(course, _project(source_root)["project"], version).encode("utf-8")
    files[f"{info}/WHEEL"] = wheel_file().replace("attn-course kit", "attn-course bundle").encode("utf-8")
    files[f"{info}/entry_points.txt"] = f"[console_scripts]\n{DISTRIBUTION} = {ENTRY_POINT}\n".encode("utf-8")
    files[f"{info}/top_level.txt"] = f"{ENGINE_PACKAGE}\n{REFERENCE_PACKAGE}\n".encode("utf-8")
    record = [record_line(name, data) for name, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode("utf-8")
    return files


def bundle_wheel_name(course) -> str:
    """``attn_course-0.1.0+2027.1-py3-none-any.whl``."""
    return f"{DISTRIBUTION.replace('-', '_')}-{bundle_version(course.version)}-py3-none-any.whl"


def write_bundle(course, out_dir: Path) -> Path:
    """Write the course bundle of ``course`` into ``out_dir``; returns the wheel's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / bundle_wheel_name(course)
    path.write_bytes(wheel_bytes(bundle_files(course)))
    return path
