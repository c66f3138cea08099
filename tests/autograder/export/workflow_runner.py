"""A small GitHub Actions runner for the tests: reads a workflow's YAML and runs its one job's steps.

``run:`` steps are executed literally with bash (``bash --noprofile --norc -eo pipefail``, as
GitHub does), with the ``GITHUB_*`` variables set (``GITHUB_WORKSPACE``, ``GITHUB_OUTPUT``,
``GITHUB_STEP_SUMMARY``, ``GITHUB_ENV``, ``GITHUB_PATH``, ``RUNNER_TEMP``...). ``${{ }}``
expressions are evaluated for what the exported workflows use: ``secrets.X``, ``vars.X``,
``steps.ID.outputs.X``, quoted literals, ``||``, and in ``if:`` also ``always()``, ``&&`` and
``!= ''``; anything else fails the run, so a workflow the runner cannot read is never half-run.
``uses:`` steps are simulated by the functions the test gives (checkout: copy a fixture repository;
setup-python: a fresh venv's ``bin`` first on PATH; upload-artifact: copy; the Classroom reporter:
decode its ``<ID>_RESULTS``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
#: Seconds one step may take.
STEP_TIMEOUT_S = 900


class WorkflowError(AssertionError):
    """A step failed, or the workflow uses what this runner does not know."""


@dataclass
class Runner:
    """One run of one workflow's job ``job`` (the only one of the workflow when None)."""

    workflow: Path
    workspace: Path
    env: dict
    variables: dict = field(default_factory=dict)
    secrets: dict = field(default_factory=dict)
    actions: dict[str, Callable] = field(default_factory=dict)
    outputs: dict[str, dict] = field(default_factory=dict)
    summary: str = ""
    log: list = field(default_factory=list)

    def value(self, operand: str) -> str:
        operand = operand.strip()
        if operand.startswith("'") and operand.endswith("'"):
            return operand[1:-1].replace("''", "'")
        parts = operand.split(".")
        if parts[0] == "secrets" and len(parts) == 2:
            return self.secrets.get(parts[1], "")
        if parts[0] == "vars" and len(parts) == 2:
            return self.variables.get(parts[1], "")
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.outputs.get(parts[1], {}).get(parts[3], "")
        raise WorkflowError(f"the runner cannot evaluate {operand!r}")

    def expression(self, text: str) -> str:
        """``a || b || 'c'``: the first non-empty value."""
        for operand in text.split("||"):
            value = self.value(operand)
            if value:
                return value
        return ""

    def substitute(self, text) -> str:
        return EXPRESSION.sub(lambda match: self.expression(match.group(1)), str(text))

    def condition(self, text: str | None) -> bool:
        if text is None:
            return True
        text = EXPRESSION.sub(lambda match: match.group(1), str(text))
        results = []
        for part in text.split("&&"):
            part = part.strip()
            if part == "always()":
                results.append(True)
            elif part.endswith("!= ''"):
                results.append(bool(self.expression(part[: -len("!= ''")])))
            else:
                results.append(bool(self.expression(part)))
        return all(results)

    def _github_env(self, step_index: int) -> dict:
        temp = self.workspace.parent / "runner_temp"
        temp.mkdir(exist_ok=True)
        files = {name: temp / f"{name.lower()}_{step_index}" for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV", "GITHUB_PATH")}
        for path in files.values():
            path.write_text("", encoding="utf-8")
        return {**{k: str(v) for k, v in files.items()}, "GITHUB_WORKSPACE": str(self.workspace), "RUNNER_TEMP": str(temp),
                "GITHUB_ACTIONS": "true", "CI": "true", "GITHUB_REPOSITORY": "course/" + self.workspace.name,
                "GITHUB_SHA": "0" * 40, "GITHUB_RUN_ID": "1", "GITHUB_EVENT_NAME": "workflow_dispatch"}

    def _collect(self, step_id: str | None, github: dict) -> None:
        lines = Path(github["GITHUB_OUTPUT"]).read_text(encoding="utf-8").splitlines()
        if step_id:
            self.outputs[step_id] = dict(line.split("=", 1) for line in lines if "=" in line)
        self.summary += Path(github["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
        for line in Path(github["GITHUB_ENV"]).read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            self.env[key] = value
        for line in Path(github["GITHUB_PATH"]).read_text(encoding="utf-8").splitlines():
            self.env["PATH"] = f"{line}:{self.env['PATH']}"

    def _run_script(self, step: dict, env: dict, index: int) -> None:
        script = self.workspace.parent / "runner_temp" / f"step_{index}.sh"
        script.write_text(step["run"], encoding="utf-8")
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=self.workspace, env=env,
                              capture_output=True, text=True, timeout=STEP_TIMEOUT_S, check=False)
        self.log.append((step.get("name"), done.returncode, done.stdout, done.stderr))
        if done.returncode != 0:
            raise WorkflowError(f"step {step.get('name')!r} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")

    def run(self) -> "Runner":
        """Run every step of the job in order; a failing step stops the run with :class:`WorkflowError`."""
        jobs = yaml.safe_load(self.workflow.read_text(encoding="utf-8"))["jobs"]
        if len(jobs) != 1:
            raise WorkflowError(f"the runner runs one job, the workflow has {len(jobs)}")
        self.workspace.mkdir(parents=True, exist_ok=True)
        for index, step in enumerate(next(iter(jobs.values()))["steps"]):
            if not self.condition(step.get("if")):
                continue
            github = self._github_env(index)
            env = {**self.env, **github, **{k: self.substitute(v) for k, v in (step.get("env") or {}).items()}}
            if "run" in step:
                self._run_script(step, env, index)
            else:
                name = step["uses"].split("@")[0]
                if name not in self.actions:
                    raise WorkflowError(f"no simulation of {step['uses']}")
                self.actions[name](self, {k: self.substitute(v) for k, v in (step.get("with") or {}).items()}, env)
            self._collect(step.get("id"), github)
        return self


def copy_tree(source: Path, target: Path) -> None:
    """``actions/checkout``'s simulation: the fixture repository's files into the workspace."""
    shutil.copytree(source, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git"))
