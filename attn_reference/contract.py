"""What each graded function promises, written next to the function itself.

A :class:`Contract` says what a function returns (the names and kinds of its outputs,
and which output is a probability distribution over which axis), and which other graded
functions it calls. The grader reads contracts to compare and explain results, and to
carry an error forward: a function that calls ``softmax`` is also judged against the
reference computed with the student's own ``softmax``. Every function that calls
another graded function accepts it as a keyword-only argument of the same name, so
the grader can pass the student's version in.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Callable

#: Attribute under which :func:`graded` stores a function's contract.
CONTRACT_ATTRIBUTE = "__contract__"


class OutputKind(enum.Enum):
    """What one returned part is documented to be."""

    ARRAY = "array"  # a numpy.ndarray
    NUMBER = "number"  # a float (Python or numpy scalar, or a 0-d array)


@dataclass(frozen=True)
class Output:
    """One returned part: its name in messages, its kind, and the names of its last axes.

    ``axes`` names the trailing axes from the docstring's shape, e.g. ``("L_q", "L_k")``
    for ``A`` of shape ``(..., L_q, L_k)``; messages use them to say which axis is meant.
    """

    name: str
    kind: OutputKind = OutputKind.ARRAY
    axes: tuple[str, ...] = ()

    def axis_name(self, axis: int, ndim: int) -> str:
        """``"L_k (axis -1)"`` for a named trailing axis, else ``"axis 0"``."""
        negative = axis - ndim if axis >= 0 else axis
        if -len(self.axes) <= negative < 0:
            return f"{self.axes[negative]} (axis {negative})"
        return f"axis {axis}"


@dataclass(frozen=True)
class Distribution:
    """An output that must sum to 1 along an axis: a fixed axis, or the argument naming it."""

    output: int
    axis: int | str


@dataclass(frozen=True)
class Contract:
    """The documented behaviour of one graded function.

    Attributes
    ----------
    outputs : tuple of Output
        The returned parts, in order.
    returns_tuple : bool
        Whether the function returns a tuple (even of one part) rather than one value.
    distribution : Distribution or None
        The part that is a probability distribution, if any.
    calls : tuple of str
        Other graded functions it calls; each is also a keyword-only argument.
    core_ndim : tuple of (str, int)
        For each array argument, how many trailing axes are not batch axes; the
        remaining leading axes broadcast like numpy's.
    accepted : tuple of tuple of (str, object)
        Keyword arguments of the reference that give other results that are right too
        (e.g. another valid estimator); a result equal to any of them is accepted.
    """

    outputs: tuple[Output, ...]
    returns_tuple: bool = False
    distribution: Distribution | None = None
    calls: tuple[str, ...] = ()
    core_ndim: tuple[tuple[str, int], ...] = ()
    accepted: tuple[tuple[tuple[str, object], ...], ...] = ()

    @property
    def output_names(self) -> tuple[str, ...]:
        return tuple(output.name for output in self.outputs)

    def core_ndim_of(self, argument: str) -> int | None:
        """Trailing non-batch axes of ``argument``, or None when it has no batch axes."""
        return dict(self.core_ndim).get(argument)


def graded(
    *outputs: Output,
    returns_tuple: bool | None = None,
    distribution: Distribution | None = None,
    calls: tuple[str, ...] = (),
    core_ndim: dict[str, int] | None = None,
    accepted: tuple[dict[str, object], ...] = (),
) -> Callable[[Callable], Callable]:
    """Attach a :class:`Contract` to a reference function.

    ``returns_tuple`` defaults to "more than one output".
    """
    contract = Contract(
        outputs=tuple(outputs),
        returns_tuple=len(outputs) > 1 if returns_tuple is None else returns_tuple,
        distribution=distribution,
        calls=tuple(calls),
        core_ndim=tuple((core_ndim or {}).items()),
        accepted=tuple(tuple(variant.items()) for variant in accepted),
    )

    def attach(function: Callable) -> Callable:
        setattr(function, CONTRACT_ATTRIBUTE, contract)
        return function

    return attach


def contract_of(function: Callable) -> Contract:
    """The contract attached to ``function``.

    Raises
    ------
    LookupError
        When the function carries none (it is not a graded reference function).
    """
    contract = getattr(function, CONTRACT_ATTRIBUTE, None)
    if contract is None:
        raise LookupError(f"{getattr(function, '__name__', function)!r} has no contract")
    return contract
