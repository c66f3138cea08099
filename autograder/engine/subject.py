"""What a suite's tests call: the submission, and what each test learns about it on the way.

:class:`Subject` wraps whatever runs the student's functions (the sandbox proxy, or a
trusted in-process double in the project's own tests). Besides forwarding calls, it
knows the assignment's graded functions (error carried forward may only lean on those)
and collects, per test, the upstream functions a result was carried forward from.
"""

from __future__ import annotations

from autograder.call import CallOutcome


class Subject:
    """A submission as hidden tests see it.

    Parameters
    ----------
    proxy : object
        Has ``call(function, *args, **kwargs)``, and ideally ``call_observed`` (the sandbox's
        :class:`~autograder.sandbox.client.SandboxedSubmission` has both).
    questions : tuple of str
        The assignment's graded functions.
    """

    def __init__(self, proxy, questions: tuple[str, ...] = ()):
        self.proxy = proxy
        self.questions = tuple(questions)
        self.carried: list[str] = []

    def start_test(self) -> None:
        """Forget what the previous test learned."""
        self.carried = []

    def carry_from(self, functions: tuple[str, ...]) -> None:
        """Record that the current test's result follows from these (wrong) upstream functions."""
        for function in functions:
            if function not in self.carried:
                self.carried.append(function)

    def call_observed(self, function: str, *args, **kwargs) -> CallOutcome:
        """Call ``function`` in the submission; the outcome says what else the call did.

        A proxy without observations gives an outcome that reports nothing modified.
        """
        observed = getattr(self.proxy, "call_observed", None)
        if observed is not None:
            return observed(function, *args, **kwargs)
        return CallOutcome(self.proxy.call(function, *args, **kwargs))

    def call(self, function: str, *args, **kwargs):
        """The result of ``function(*args, **kwargs)`` in the submission."""
        return self.proxy.call(function, *args, **kwargs)

    def __getattr__(self, name: str):
        """``subject.softmax(x)`` is ``subject.call("softmax", x)``."""
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self.call(name, *args, **kwargs)
