"""The phrases that fill the diagnoses' hints: axes, named in the student's language.

A hint such as "Your softmax normalises along {actual} instead of along {expected}" is
filled with one of these (each a catalog message), so the axis reads "axis 0" in English and
"第 0 轴" in Chinese while its number stays the same.
"""

from __future__ import annotations

from autograder.i18n import Message, msg

#: The axis a function is told to normalise over (the ``axis`` argument of softmax).
AXIS_ARGUMENT = msg("the axis argument")
#: The last axis, named without its number.
LAST_AXIS = msg("the last axis")


def axis(number: int) -> Message:
    """``"axis -2"``: an axis by its number."""
    return msg("axis {axis}", axis=str(number))


def named_axis(name: str, number: int) -> Message:
    """``"L_k (axis -1)"``: an axis by the size it runs over and its number."""
    return msg("{name} (axis {axis})", name=name, axis=str(number))


def axis_of(axes: tuple[str, ...], number: int, ndim: int) -> Message:
    """The axis ``number`` of an ``ndim``-dimensional output whose trailing axes are named ``axes``.

    ``("L_q", "L_k")``, -1, 3 -> ``"L_k (axis -1)"``; an axis without a name -> ``"axis 0"``
    (what :meth:`attn_reference.contract.Output.axis_name` says, in the student's language).
    """
    negative = number - ndim if number >= 0 else number
    if -len(axes) <= negative < 0:
        return named_axis(axes[negative], negative)
    return axis(number)
