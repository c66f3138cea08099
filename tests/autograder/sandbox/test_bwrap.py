"""The bubblewrap command line."""

from __future__ import annotations

import os

import autograder
from autograder.sandbox import bwrap, host

from .conftest import needs_bwrap

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(autograder.__file__)))


@needs_bwrap
def test_the_bwrap_view_binds_nothing_of_the_project_but_numpy():
    args = bwrap.bwrap_arguments()
    sources = [args[i + 1] for i, arg in enumerate(args) if arg in ("--ro-bind", "--bind", "--dev-bind")]
    assert not any(arg in ("--bind", "--dev-bind") for arg in args), "everything is bound read-only"
    numpy_dirs = set(host.numpy_dirs().values())
    inside_project = [s for s in sources if s.startswith(PROJECT_ROOT) and s not in numpy_dirs]
    assert inside_project == []
    assert {"--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session"} <= set(args)


@needs_bwrap
def test_every_host_site_packages_inside_a_bind_is_hidden():
    args = bwrap.bwrap_arguments()
    hidden = {args[i + 1] for i, arg in enumerate(args) if arg == "--tmpfs"}
    bound = [args[i + 2] for i, arg in enumerate(args) if arg == "--ro-bind"]
    for folder in host.host_site_packages():
        if any(folder == b or folder.startswith(b + "/") for b in bound):
            assert folder in hidden, folder
