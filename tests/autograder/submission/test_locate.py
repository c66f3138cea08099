"""read_submission: every accepted shape of submission, and a clear LoadFailed for every bad one."""

from __future__ import annotations

import json
import zipfile

import pytest

from autograder.errors import AmbiguousSubmission, LoadFailed
from autograder.submission import locate
from autograder.submission.locate import SubmissionSource, read_submission
from autograder.submission.notebook_code import notebook_to_module
from autograder.submission.stubs import _same_notebook_code

MODULE = "scaled_attention.py"
NOTEBOOK = "scaled_attention.ipynb"
CODE = "import numpy as np\n\n\ndef softmax(x):\n    return np.exp(x) / np.exp(x).sum()\n"


def notebook_text(*cells: str) -> str:
    return json.dumps({
        "cells": [{"cell_type": "code", "metadata": {}, "source": cell, "outputs": [], "execution_count": None} for cell in cells],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    })


def read(path) -> SubmissionSource:
    return read_submission(path, MODULE, NOTEBOOK)


def failure(path) -> str:
    """The student message of the LoadFailed that reading ``path`` raises."""
    with pytest.raises(LoadFailed) as caught:
        read(path)
    assert caught.value.kind == "load_failed"
    assert str(caught.value) == caught.value.student_message
    return caught.value.student_message


def write_zip(path, members: dict[str, bytes], compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


@pytest.fixture
def opened_members(monkeypatch):
    """Names of zip members the code under test opens for reading."""
    opened: list[str] = []
    original = zipfile.ZipFile.open

    def spy(self, name, mode="r", *args, **kwargs):
        if mode == "r":
            opened.append(getattr(name, "filename", name))
        return original(self, name, mode, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", spy)
    return opened


def test_python_file_is_read_as_a_module(tmp_path):
    path = tmp_path / MODULE
    path.write_text(CODE, encoding="utf-8")
    assert read(path) == SubmissionSource("scaled_attention", CODE, MODULE, "module")


def test_python_file_under_another_name_keeps_the_expected_module_name(tmp_path):
    path = tmp_path / "my_attempt.py"
    path.write_text(CODE, encoding="utf-8")
    source = read(path)
    assert (source.module_name, source.origin) == ("scaled_attention", "my_attempt.py")


def test_byte_order_mark_is_removed(tmp_path):
    path = tmp_path / MODULE
    path.write_bytes(b"\xef\xbb\xbf" + CODE.encode())
    assert read(path).source == CODE


def test_notebook_is_read_as_its_gradable_code(tmp_path):
    path = tmp_path / NOTEBOOK
    path.write_text(notebook_text("import numpy as np", "def f(x):\n    return np.sum(x)", "f([1])"), encoding="utf-8")
    source = read(path)
    assert source.kind == "notebook"
    assert "def f(x)" in source.source and "f([1])" not in source.source


STUB = "# Generated stub\n\n\ndef softmax(x):\n    raise NotImplementedError\n"
STUB_NOTEBOOK = notebook_text("import numpy as np", "def softmax(x):\n    raise NotImplementedError")
STUBS = locate.ReleaseStubs(STUB, notebook_to_module(STUB_NOTEBOOK, ("softmax",)), ("softmax",))


def read_with_stubs(path, **options) -> SubmissionSource:
    return read_submission(path, MODULE, NOTEBOOK, ("softmax",), stubs=STUBS, **options)


def test_folder_with_a_changed_module_and_a_changed_notebook_names_both(tmp_path):
    (tmp_path / MODULE).write_text(CODE, encoding="utf-8")
    (tmp_path / NOTEBOOK).write_text(notebook_text("def softmax(x):\n    return x"), encoding="utf-8")
    with pytest.raises(AmbiguousSubmission) as caught:
        read_with_stubs(tmp_path)
    assert MODULE in str(caught.value) and NOTEBOOK in str(caught.value)


def test_the_changed_notebook_wins_over_the_untouched_stub_module(tmp_path):
    (tmp_path / MODULE).write_text(STUB + "\n\n", encoding="utf-8")  # trailing blank lines: still the stub
    (tmp_path / NOTEBOOK).write_text(notebook_text("import numpy as np", "def softmax(x):\n    return np.exp(x)"), encoding="utf-8")
    assert read_with_stubs(tmp_path).kind == "notebook"


def test_the_changed_module_wins_over_the_untouched_stub_notebook(tmp_path):
    (tmp_path / MODULE).write_text(CODE, encoding="utf-8")
    (tmp_path / NOTEBOOK).write_text(STUB_NOTEBOOK, encoding="utf-8")
    assert read_with_stubs(tmp_path).source == CODE


def test_untouched_stubs_only_grade_the_module(tmp_path):
    (tmp_path / MODULE).write_text(STUB, encoding="utf-8")
    (tmp_path / NOTEBOOK).write_text(STUB_NOTEBOOK, encoding="utf-8")
    assert read_with_stubs(tmp_path).kind == "module"


def test_the_top_level_module_wins_over_an_old_nested_copy(tmp_path):
    (tmp_path / MODULE).write_text(CODE, encoding="utf-8")
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / MODULE).write_text(CODE.replace("sum()", "sum() + 1"), encoding="utf-8")
    assert read_with_stubs(tmp_path).origin == f"{tmp_path.name}/{MODULE}"


def test_the_same_rule_holds_inside_a_zip(tmp_path):
    path = write_zip(tmp_path / "sub.zip", {f"hw1/{MODULE}": STUB.encode(), f"hw1/{NOTEBOOK}": notebook_text("def softmax(x):\n    return x").encode(),
                                            f"hw1/old/{MODULE}": CODE.encode()})
    assert read_with_stubs(path).origin == f"sub.zip:hw1/{NOTEBOOK}"


def test_excluded_folders_are_never_picked(tmp_path):
    (tmp_path / "solutions" / "hw1").mkdir(parents=True)
    (tmp_path / "solutions" / "hw1" / MODULE).write_text(CODE, encoding="utf-8")
    (tmp_path / "assignments" / "hw1").mkdir(parents=True)
    (tmp_path / "assignments" / "hw1" / MODULE).write_text(STUB, encoding="utf-8")
    source = read_with_stubs(tmp_path, exclude=(tmp_path / "solutions",))
    assert source.origin == f"{tmp_path.name}/assignments/hw1/{MODULE}" and source.source == STUB
    assert "course's own code or masters" in str(pytest.raises(LoadFailed, read_with_stubs, tmp_path / "solutions" / "hw1" / MODULE,
                                                        exclude=(tmp_path / "solutions",)).value)


def test_release_stubs_are_read_from_a_release_folder(tmp_path):
    (tmp_path / MODULE).write_text(STUB, encoding="utf-8")
    (tmp_path / NOTEBOOK).write_text(STUB_NOTEBOOK, encoding="utf-8")
    assert locate.release_stubs(tmp_path, MODULE, NOTEBOOK, ("softmax",)) == STUBS
    assert locate.release_stubs(tmp_path / "missing", MODULE, NOTEBOOK) == locate.ReleaseStubs()


def test_folder_with_only_the_notebook_uses_it(tmp_path):
    (tmp_path / NOTEBOOK).write_text(notebook_text("def f():\n    return 1"), encoding="utf-8")
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    assert read(tmp_path).kind == "notebook"


def test_folder_finds_the_module_in_a_subfolder(tmp_path):
    (tmp_path / "hw1" / "src").mkdir(parents=True)
    (tmp_path / "hw1" / "src" / MODULE).write_text(CODE, encoding="utf-8")
    assert read(tmp_path).origin == f"{tmp_path.name}/hw1/src/{MODULE}"


def test_folder_with_one_candidate_under_another_name_uses_it(tmp_path):
    (tmp_path / "attention_final.py").write_text(CODE, encoding="utf-8")
    (tmp_path / "test_mine.py").write_text("def test(): pass\n", encoding="utf-8")
    (tmp_path / ".scratch.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("# mine\n", encoding="utf-8")
    assert read(tmp_path).origin == f"{tmp_path.name}/attention_final.py"


def test_folder_with_several_candidates_names_them(tmp_path):
    (tmp_path / "a.py").write_text(CODE, encoding="utf-8")
    (tmp_path / "b.ipynb").write_text(notebook_text(), encoding="utf-8")
    message = failure(tmp_path)
    assert "a.py" in message and "b.ipynb" in message
    assert MODULE in message


def test_empty_folder_says_what_was_expected(tmp_path):
    message = failure(tmp_path)
    assert MODULE in message and NOTEBOOK in message


def test_symlink_inside_a_folder_is_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / MODULE).write_text(CODE, encoding="utf-8")
    folder = tmp_path / "submission"
    folder.mkdir()
    (folder / MODULE).symlink_to(outside / MODULE)
    assert "holds no" in failure(folder)


def test_zip_with_a_nested_folder(tmp_path, opened_members):
    path = write_zip(tmp_path / "sub.zip", {"hw1/": b"", f"hw1/{MODULE}": CODE.encode(), "hw1/notes.md": b"hi"})
    source = read(path)
    assert (source.source, source.origin, source.kind) == (CODE, f"sub.zip:hw1/{MODULE}", "module")
    assert opened_members == [f"hw1/{MODULE}"]


def test_zip_ignores_macosx_resource_forks(tmp_path):
    path = write_zip(
        tmp_path / "mac.zip",
        {f"hw1/{MODULE}": CODE.encode(), f"__MACOSX/hw1/{MODULE}": b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X"},
    )
    assert read(path).origin == f"mac.zip:hw1/{MODULE}"


def test_zip_with_a_notebook(tmp_path):
    path = write_zip(tmp_path / "nb.zip", {NOTEBOOK: notebook_text("def f():\n    return 1").encode()})
    assert read(path).kind == "notebook"


def test_zip_bomb_is_rejected_without_being_unpacked(tmp_path, opened_members):
    bomb = b"\x00" * (locate.MAX_ZIP_UNPACKED_BYTES + 1)
    path = write_zip(tmp_path / "bomb.zip", {MODULE: bomb})
    assert path.stat().st_size < locate.MAX_FILE_BYTES
    message = failure(path)
    assert "too many files or bytes" in message
    assert opened_members == []


def test_zip_member_over_the_file_limit_is_rejected_without_being_unpacked(tmp_path, opened_members):
    path = write_zip(tmp_path / "big.zip", {MODULE: b"\x00" * (locate.MAX_FILE_BYTES + 1)})
    assert "larger than" in failure(path)
    assert opened_members == []


def test_zip_with_too_many_members_is_rejected(tmp_path, monkeypatch):
    monkeypatch.setattr(locate, "MAX_ZIP_MEMBERS", 3)
    path = write_zip(tmp_path / "many.zip", {f"f{i}.txt": b"x" for i in range(4)} | {MODULE: CODE.encode()})
    assert "too many files" in failure(path)


def test_corrupt_zip_is_rejected(tmp_path):
    path = tmp_path / "broken.zip"
    path.write_bytes(b"PK\x03\x04 this is not really a zip file")
    assert "not a valid zip file" in failure(path)


def test_file_over_the_size_limit_is_rejected(tmp_path, monkeypatch):
    monkeypatch.setattr(locate, "MAX_FILE_BYTES", 100)
    path = tmp_path / MODULE
    path.write_bytes(b"#" * 101)
    message = failure(path)
    assert MODULE in message and "101" in message and "100" in message


def test_file_at_the_size_limit_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(locate, "MAX_FILE_BYTES", 100)
    path = tmp_path / MODULE
    path.write_bytes(b"#" * 100)
    assert read(path).source == "#" * 100


def test_binary_file_is_rejected(tmp_path):
    path = tmp_path / MODULE
    path.write_bytes(b"def f():\n    return 1\n\x00\x01\x02")
    assert "binary file" in failure(path)


def test_non_utf8_text_is_rejected_with_the_byte_position(tmp_path):
    path = tmp_path / MODULE
    path.write_bytes("# café\n".encode("latin-1"))
    message = failure(path)
    assert "not UTF-8" in message and "byte 5" in message


def test_notebook_with_broken_json_is_rejected(tmp_path):
    path = tmp_path / NOTEBOOK
    path.write_text('{"cells": [', encoding="utf-8")
    message = failure(path)
    assert message.startswith(NOTEBOOK) and "not valid JSON" in message


def test_notebook_without_cells_is_rejected(tmp_path):
    path = tmp_path / NOTEBOOK
    path.write_text('{"metadata": {}}', encoding="utf-8")
    assert "no list of cells" in failure(path)


@pytest.mark.parametrize("name", ["scaled_attention.txt", "scaled_attention.pdf", "scaled_attention"])
def test_wrong_extension_is_rejected(tmp_path, name):
    path = tmp_path / name
    path.write_text(CODE, encoding="utf-8")
    message = failure(path)
    assert name in message and ".py" in message and ".ipynb" in message


def test_missing_path_is_rejected(tmp_path):
    assert "does not exist" in failure(tmp_path / "nothing_here.py")


def test_symlinked_file_is_rejected(tmp_path):
    target = tmp_path / "real.py"
    target.write_text(CODE, encoding="utf-8")
    link = tmp_path / MODULE
    link.symlink_to(target)
    assert "symbolic link" in failure(link)


def test_a_fifo_is_refused_without_blocking(tmp_path):
    import os

    fifo = tmp_path / "scaled_attention.py"
    os.mkfifo(fifo)
    with pytest.raises(LoadFailed, match="not a regular file"):
        read_submission(fifo, "scaled_attention.py", "scaled_attention.ipynb")


def test_checkpoint_copies_inside_a_zip_are_ignored(tmp_path):
    archive = tmp_path / "work.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("work/my_work.ipynb", json.dumps({"cells": [{"cell_type": "code", "source": "x = 1"}]}))
        handle.writestr("work/.ipynb_checkpoints/my_work-checkpoint.ipynb", json.dumps({"cells": []}))
    assert read_submission(archive, "scaled_attention.py", "scaled_attention.ipynb").kind == "notebook"


# --- a release in several languages: scaled_attention.zh.ipynb is the assignment's notebook too ---

ZH_NOTEBOOK = "scaled_attention.zh.ipynb"
ZH_STUB_NOTEBOOK = notebook_text("import numpy as np", 'def softmax(x):\n    """中文说明。"""\n    raise NotImplementedError')


def bilingual_release(folder, zh_notebook: str = ZH_STUB_NOTEBOOK):
    (folder / MODULE).write_text(STUB, encoding="utf-8")
    (folder / NOTEBOOK).write_text(STUB_NOTEBOOK, encoding="utf-8")
    (folder / ZH_NOTEBOOK).write_text(zh_notebook, encoding="utf-8")
    return folder


def test_the_changed_chinese_notebook_wins_over_the_untouched_module_and_english_notebook(tmp_path):
    worked = notebook_text("import numpy as np", 'def softmax(x):\n    """中文说明。"""\n    return np.exp(x)')
    source = read_with_stubs(bilingual_release(tmp_path, worked))
    assert (source.kind, source.origin) == ("notebook", f"{tmp_path.name}/{ZH_NOTEBOOK}")


def test_an_untouched_chinese_stub_notebook_is_the_english_stub_with_other_docstrings(tmp_path):
    assert read_with_stubs(bilingual_release(tmp_path)).kind == "module"
    other_code = notebook_text("import numpy as np", 'def softmax(x):\n    """中文说明。"""\n    raise ValueError')
    changed = read_with_stubs(bilingual_release(tmp_path, other_code))  # other code is a change, docstring or not
    assert changed.origin == f"{tmp_path.name}/{ZH_NOTEBOOK}"


def test_a_stub_notebook_whose_code_does_not_parse_is_changed(tmp_path):
    assert not _same_notebook_code("def f(:\n", STUBS.notebook_code)
    assert _same_notebook_code(STUBS.notebook_code.replace("raise", "raise"), STUBS.notebook_code)


# --- how much code is graded: the limit, said before anything is parsed ---------------------------------


def test_a_module_of_more_code_than_the_limit_is_too_large_to_grade(tmp_path):
    path = tmp_path / MODULE
    path.write_bytes(b"#" * (locate.MAX_CODE_BYTES + 1))
    message = failure(path)
    assert message == (f"{MODULE} is too large to grade: it holds {locate.MAX_CODE_BYTES + 1:,} bytes of code, "
                       f"more than the {locate.MAX_CODE_BYTES:,} accepted")


def test_a_module_at_the_limit_is_read(tmp_path):
    path = tmp_path / MODULE
    path.write_bytes(b"#" * locate.MAX_CODE_BYTES)
    assert len(read(path).source) == locate.MAX_CODE_BYTES


def test_a_notebook_counts_its_code_cells_not_its_outputs(tmp_path, monkeypatch):
    monkeypatch.setattr(locate, "MAX_CODE_BYTES", 100)
    document = json.loads(notebook_text("def f():\n    return 1\n"))
    document["cells"][0]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "y" * 10_000}]
    document["cells"].append({"cell_type": "markdown", "metadata": {}, "source": "prose " * 10_000})
    path = tmp_path / NOTEBOOK
    path.write_text(json.dumps(document), encoding="utf-8")
    assert "def f()" in read(path).source
    path.write_text(notebook_text("x = 1\n" * 10, "#" * 41), encoding="utf-8")
    assert "it holds 101 bytes of code, more than the 100 accepted" in failure(path)


def test_a_candidate_with_more_code_than_the_limit_is_not_extracted_to_compare_with_the_stub(tmp_path, monkeypatch):
    extracted: list[int] = []
    original = locate.gradable_source
    monkeypatch.setattr(locate, "gradable_source", lambda sources, functions: extracted.append(1) or original(sources, functions))
    (tmp_path / MODULE).write_text(STUB, encoding="utf-8")
    (tmp_path / NOTEBOOK).write_text(notebook_text("#" * (locate.MAX_CODE_BYTES + 1)), encoding="utf-8")
    with pytest.raises(LoadFailed, match="too large to grade"):
        read_with_stubs(tmp_path)
    assert extracted == []


def test_only_two_changed_candidates_are_read_to_refuse_choosing(tmp_path):
    opened: list[str] = []
    for name in ("a", "b", "c", "d"):
        (tmp_path / name).mkdir()
        (tmp_path / name / MODULE).write_text(CODE, encoding="utf-8")

    def reading(name):
        opened.append(name)
        return (tmp_path / name).read_bytes()

    with pytest.raises(AmbiguousSubmission):
        locate.choose(sorted(f"{n}/{MODULE}" for n in "abcd"), MODULE, NOTEBOOK, "folder", reading, STUBS)
    assert opened == [f"a/{MODULE}", f"b/{MODULE}"]


# --- zip members that cannot be unpacked are a result, not a crash ---------------------------------------


def _damaged(path, member: str, data: bytes, compression=zipfile.ZIP_DEFLATED):
    """A zip whose member has a byte in the middle of its stored data flipped (its CRC, or its compressed stream, fails)."""
    write_zip(path, {member: data}, compression)
    with zipfile.ZipFile(path) as archive:
        stored = archive.getinfo(member).compress_size
    raw = bytearray(path.read_bytes())
    start = raw.index(member.encode()) + len(member)  # the local header's name; the data follows (no extra field)
    raw[start + stored // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    return path


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_a_damaged_zip_member_is_a_clear_load_failure(tmp_path, compression):
    path = _damaged(tmp_path / "damaged.zip", MODULE, CODE.encode() * 20, compression)
    assert failure(path).startswith(f"{MODULE} in damaged.zip cannot be unpacked: ")


def test_an_encrypted_zip_member_is_a_clear_load_failure(tmp_path):
    path = write_zip(tmp_path / "locked.zip", {MODULE: CODE.encode()}, zipfile.ZIP_STORED)
    raw = bytearray(path.read_bytes())
    for signature, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # set the "encrypted" bit in both headers
        raw[raw.index(signature) + flags] |= 0x01
    path.write_bytes(bytes(raw))
    assert "cannot be unpacked: " in failure(path) and "encrypted" in failure(path)
