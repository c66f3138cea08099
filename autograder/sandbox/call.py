"""What one call into a submission did, as the grader receives it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from autograder.sandbox.protocol import MAX_ARRAYS as MAX_PARTS
from autograder.sandbox.protocol import ProtocolError

#: Longest label of an argument or a returned kind taken from the worker.
MAX_LABEL_CHARS = 64


@dataclass(frozen=True)
class CallOutcome:
    """What one call into the submission did.

    Attributes
    ----------
    result : ndarray or tuple of ndarray
        The converted return value.
    mutated : tuple of str
        Array arguments the call changed in place: a position (``"0"``), a keyword
        (``"mask"``), or a path into a tuple argument (``"1.0"``).
    container : str or None
        ``"tuple"`` or ``"list"`` when the function returned one, else None.
    parts : tuple of str
        The kind of each returned object: ``"ndarray"``, ``"numpy_scalar"``,
        ``"python_scalar"``, ``"list"``, or another type's name.
    """

    result: np.ndarray | tuple[np.ndarray, ...]
    mutated: tuple[str, ...] = ()
    container: str | None = None
    parts: tuple[str, ...] = ("ndarray",)

    @classmethod
    def from_report(cls, result, observed) -> "CallOutcome":
        """Build from the worker's ``observed`` header (validated: it is the worker's word).

        Raises
        ------
        ProtocolError
            When the report is malformed.
        """
        if not isinstance(observed, dict):
            raise ProtocolError("a call response lacks its observations")
        mutated, returned = observed.get("mutated"), observed.get("returned")
        if not isinstance(mutated, list) or not all(isinstance(m, str) for m in mutated) or not isinstance(returned, dict):
            raise ProtocolError("malformed call observations")
        container, parts = returned.get("container"), returned.get("parts")
        if container not in (None, "tuple", "list") or not isinstance(parts, list) or not all(isinstance(p, str) for p in parts):
            raise ProtocolError("malformed description of the returned value")
        return cls(result, tuple(m[:MAX_LABEL_CHARS] for m in mutated[: MAX_PARTS]),
                   container, tuple(p[:MAX_LABEL_CHARS] for p in parts[: MAX_PARTS]))
