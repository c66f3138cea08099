"""The documentation names only what exists: commands and options, repository paths, make targets, links.

Read: README.md, every docs/*.md and benchmarks/README.md. In their code (inline code spans
and fenced blocks):

- every ``attn-course VERB --option`` must be a verb of the click command line and an option
  of that verb (or of the group, before the verb);
- every ``make TARGET`` must be a target of the Makefile;
- every span that looks like a repository path (its first component is a top-level entry of
  the repository) must exist; a path component holding a ``<placeholder>`` matches any name
  (``solutions/<id>/notebook.py``, ``hw5_<name>/`` for a folder yet to be made beside the
  others), ``*`` is a glob, and a ``:line`` suffix is ignored. Shell comments are not code.

In the prose, every relative link must point at an existing file, and its ``#anchor`` at a
heading of that file.
"""

from __future__ import annotations

import re
import shlex
from functools import lru_cache
from pathlib import Path

import click
import pytest

import autograder.cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"), ROOT / "benchmarks" / "README.md"])
#: Top-level names that are made by tools, not kept in the repository.
GENERATED = {".git", ".venv", ".hypothesis", ".pytest_cache", "build", "dist", "demo-output", "__pycache__"}
#: The README's limit in lines (issue 22: a newcomer reads it in ten minutes).
README_MAX_LINES = 150

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_MAKE = re.compile(r"(?<![\w./-])make\s+([a-z][\w-]*)")
_COMMAND = re.compile(r"attn-course\s+([^`\n|;&#]*)")
_PLACEHOLDER = re.compile(r"<[^<>/]+>")


def _relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


def code_of(text: str) -> list[str]:
    """The code of a Markdown text: each fenced block's lines, then each inline code span."""
    blocks = [re.sub(r"(^|\s)#.*$", "", line) for block in _FENCE.findall(text) for line in block.splitlines()]
    prose = _FENCE.sub("", text)
    return blocks + [span.strip() for _, span in _SPAN.findall(prose)]


def prose_of(text: str) -> str:
    """A Markdown text without its fenced blocks and code spans (where links are)."""
    return _SPAN.sub("", _FENCE.sub("", text))


@lru_cache(maxsize=1)
def command_line() -> click.Group:
    """The ``attn-course`` click group."""
    return autograder.cli.main


def option_names(command: click.Command) -> set[str]:
    """Every spelling of every option of ``command`` (``--batch``, ``--single``, ``-j``, ``--help``)."""
    names = set(command.get_help_option_names(click.Context(command)))
    for parameter in command.params:
        if isinstance(parameter, click.Option):
            names.update(parameter.opts, parameter.secondary_opts)
    return names


def _tokens(arguments: str) -> list[str]:
    try:
        return shlex.split(arguments, comments=True)
    except ValueError:  # an unbalanced quote in prose: the words are enough
        return arguments.split()


def command_problems(line: str) -> list[str]:
    """What an ``attn-course ...`` invocation in ``line`` names that the command line does not have."""
    problems = []
    group = command_line()
    for arguments in _COMMAND.findall(line):
        tokens = _tokens(arguments)
        while tokens and tokens[0].startswith("-") and tokens[0].split("=")[0] in option_names(group):
            if tokens.pop(0) == "--course" and tokens:  # group options before the verb: --course FILE, -q
                tokens.pop(0)
        if tokens and tokens[0].startswith("-"):
            problems.append(f"`attn-course {tokens[0]}`: attn-course has no option {tokens[0].split('=')[0]}")
            continue
        if not tokens:
            continue
        verb, rest = tokens[0], tokens[1:]
        if verb not in group.commands:
            problems.append(f"`attn-course {verb}`: no such command (there are {', '.join(sorted(group.commands))})")
            continue
        command = group.commands[verb]
        known = option_names(command) | option_names(group)
        if isinstance(command, click.Group):  # export TARGET, new question: the subcommand's options count
            names = command.list_commands(click.Context(command))
            sub = rest[0] if rest and not rest[0].startswith("-") else None  # a group's own options come first
            if sub is not None and not sub.startswith("<") and "|" not in sub and sub not in names:
                problems.append(f"`attn-course {verb} {sub}`: no such {verb} command (there are {', '.join(names)})")
                continue
            chosen = [sub] if sub in names else names  # `export nbgrader|otter ...` or `<target>`: any of them
            for name in chosen:
                known |= option_names(command.get_command(click.Context(command), name))
        for token in rest:
            option = token.split("=")[0]
            if option.startswith("-") and len(option) > 1 and not option[1:].isdigit() and option not in known:
                problems.append(f"`attn-course {verb} {option}`: {verb} has no option {option}")
    return problems


@lru_cache(maxsize=1)
def make_targets() -> set[str]:
    """The targets of the Makefile (rule lines and .PHONY)."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", text, re.M))
    for phony in re.findall(r"^\.PHONY:(.*)$", text, re.M):
        targets.update(phony.split())
    return targets


@lru_cache(maxsize=1)
def top_level() -> set[str]:
    """The repository's own top-level files and folders (what a repository path starts with)."""
    return {p.name for p in ROOT.iterdir() if p.name not in GENERATED and not p.name.endswith(".egg-info")}


def repo_path(span: str) -> str | None:
    """The repository path a code span names, or None when it names none (a command, a release file)."""
    candidate = re.sub(r":\d[\d,-]*$", "", span.strip())
    if not candidate or any(c in candidate for c in " \t'\"()=$|,;") or candidate.startswith(("-", "/", "~", ".venv")):
        return None
    first = candidate.split("/")[0]
    return candidate if first in top_level() and (first != candidate or "." in first) else None


def path_exists(path: str) -> bool:
    """Whether ``path`` exists in the repository; a component holding a ``<placeholder>`` matches any name."""
    pattern = "/".join("*" if _PLACEHOLDER.search(part) else part for part in path.rstrip("/").split("/"))
    if "*" not in pattern and "?" not in pattern and "[" not in pattern:
        return (ROOT / pattern).exists()
    return any(ROOT.glob(pattern))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    return {slug(h) for h in re.findall(r"^#{1,6}\s+(.+?)\s*#*$", text, re.M)}


def link_problems(doc: Path, text: str) -> list[str]:
    """Relative links of ``doc`` whose file or heading does not exist."""
    problems = []
    for target in _LINK.findall(prose_of(text)):
        if re.match(r"^[a-z][\w+.-]*:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        linked = (doc.parent / file_part).resolve() if file_part else doc
        if not linked.exists():
            problems.append(f"link to {target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            problems.append(f"link to {target}: {_relative(linked)} has no heading #{anchor}")
    return problems


def doc_problems(doc: Path, text: str) -> list[str]:
    """Every name ``text`` (the document ``doc``) cites that does not exist."""
    problems = []
    for code in code_of(text):
        problems += command_problems(code)
        problems += [f"`make {t}`: no such target in the Makefile" for t in _MAKE.findall(code) if t not in make_targets()]
        path = repo_path(code)
        if path is not None and not path_exists(path):
            problems.append(f"`{code}`: no such file or folder in the repository")
    return problems + link_problems(doc, text)


@pytest.mark.parametrize("doc", DOCS, ids=_relative)
def test_every_name_a_document_cites_exists(doc):
    assert doc.is_file(), f"{_relative(doc)} is missing"
    assert doc_problems(doc, doc.read_text(encoding="utf-8")) == []


def test_the_readme_is_short_and_starts_with_the_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    first_code = [line.split("#")[0].strip() for line in _FENCE.findall(text)[0].splitlines()]
    assert first_code[:2] == ["make demo", "make test"]


def test_the_readme_links_every_guide():
    links = set(_LINK.findall(prose_of((ROOT / "README.md").read_text(encoding="utf-8"))))
    guides = {_relative(p) for p in DOCS if p.name != "README.md" or p.parent.name == "benchmarks"}
    assert guides <= {link.partition("#")[0] for link in links}


# --- the checker catches what it should (each against an honest control) ---------------------

def test_the_checker_reports_a_missing_verb_option_target_path_and_link():
    doc = ROOT / "docs" / "example.md"
    honest = ("Run `attn-course grade hw1 sub.py --format json --out r.json` or `make demo`; see "
              "`autograder/scoring.py`, `solutions/<id>/notebook.py` and [the README](../README.md#quick-start).\n")
    assert doc_problems(doc, honest) == []
    broken = ("Run `attn-course grades x` and `attn-course grade x y --fromat json`, `make tests`; see "
              "`autograder/scoring2.py`, `solutions/<id>/notebooks.py`, [gone](missing.md), [here](../README.md#nowhere).\n"
              "```bash\nattn-course --corse c.yml build\n```\n")
    problems = doc_problems(doc, broken)
    for expected in ("`attn-course grades`", "--fromat", "`make tests`", "scoring2.py", "notebooks.py", "missing.md",
                     "#nowhere", "--corse"):
        assert any(expected in problem for problem in problems), (expected, problems)
    assert len(problems) == 8


def test_the_checker_knows_each_export_target_s_own_options_and_the_targets():
    assert command_problems("`attn-course export nbgrader --seed 3 --out x`") == []
    assert command_problems("`attn-course export nbgrader --package x`")  # a github option
    assert command_problems("`attn-course export nbgraders --out x`")
    assert command_problems("`attn-course new question hw1 f --args n`") == []
    assert command_problems("`attn-course new question hw1 f --arguments n`")
