"""What a suite's tests call: the submission, and what each test learns about it on the way.

:class:`Subject` wraps whatever runs the student's functions (the sandbox proxy, or a
trusted in-process double in the project's own tests). Besides forwarding calls, it
knows the assignment's graded functions (error carried forward may only lean on those)
and collects, per test, the upstream functions a result was carried forward from.
"""

from __future__ import annotations

from autograder.sandbox.call import CallOutcome


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
        self.question = ""
        self.figures: list = []  # what the current test kept to draw (see autograder.grade.figures)
        self._failing_drawn: set[str] = set()
        self._failed: set[str] = set()
        self._diagnosis_memos: dict[str, dict] = {}

    def diagnosis_memo(self, function: str) -> dict:
        """What the diagnoses of ``function`` learned on its earlier failed calls in this run (the slips that
        explained them): kept across its tests, like the failures, in test order."""
        return self._diagnosis_memos.setdefault(function, {})

    def start_test(self, question: str = "") -> None:
        """Forget what the previous test learned; ``question`` is the one the new test belongs to."""
        self.carried = []
        self.question = question
        self.figures = []

    def note_result(self, result) -> None:
        """Note how a finished test ended (a :class:`~autograder.engine.results.TestResult`)."""
        if not result.passed:
            self._failed.add(result.question)

    def has_failed(self, question: str) -> bool:
        """Whether a test of ``question`` has failed so far in this run (upstream tests run first)."""
        return question in self._failed

    def record_figure(self, figure, failing_case: bool = False) -> None:
        """Keep a figure for the current test; of failing cases, only the first of each question."""
        if failing_case:
            if self.question in self._failing_drawn:
                return
            self._failing_drawn.add(self.question)
        self.figures.append(figure)

    def wants_failing_case(self) -> bool:
        """Whether no failing case of the current question has been drawn yet in this run."""
        return self.question not in self._failing_drawn

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

    def call_with_standins(self, function: str, standins: dict, args: tuple, kwargs: dict) -> CallOutcome:
        """``function`` called with the names of ``standins`` answered by those trusted functions (see
        :mod:`autograder.grade.carry`).

        Raises
        ------
        SubmissionError
            As :meth:`call_observed`.
        AttributeError
            When the proxy cannot bind stand-ins.
        """
        return self.proxy.call_with_standins(function, standins, args, kwargs)

    @property
    def rebinds(self) -> bool:
        """Whether the proxy can bind stand-ins (error carried forward needs it)."""
        return hasattr(self.proxy, "call_with_standins")

    def __getattr__(self, name: str):
        """``subject.softmax(x)`` is ``subject.call("softmax", x)``."""
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self.call(name, *args, **kwargs)
