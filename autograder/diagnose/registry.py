"""Every bug the grader can name: a stable id, the questions it belongs to, and a hint.

This is the one registry of diagnoses: the engine's bugs of any call (:data:`ENGINE_BUGS`, ``call.*``) and the
course's own, read from its mistakes (``BUGS`` and ``PREFIXES`` of ``mistakes/*.py`` beside ``course.yml``,
:mod:`autograder.mistakes`). The mutants, the behavioural probes (:mod:`autograder.diagnose.probes`) and the
call properties (:mod:`autograder.diagnose.properties`) all name bugs by these ids; a test checks that
none of them uses an id missing here. A hint is one sentence to the student that says
what to change; ``{placeholders}`` are filled with the facts the grader measured (the
scale it found, the argument that was modified). Each hint is an entry of the message
catalog (marked ``N_``): the facts are kept with it, so the feedback says it in the
student's language (:mod:`autograder.i18n`).
"""

from __future__ import annotations

from dataclasses import dataclass

import functools
from pathlib import Path
from types import MappingProxyType

from autograder import mistakes
from autograder.i18n import Message, N_

#: The engine's own prefixes: ``call`` for the bugs of any function. The course adds its own (``PREFIXES`` of its
#: mistakes, :mod:`autograder.mistakes`); a prefix listed nowhere is the name of the one function it belongs to
#: (``sliding_window_mask.off_by_one`` is a bug of ``sliding_window_mask``).
ENGINE_PREFIXES: dict[str, tuple[str, ...]] = {"call": ("*",)}


@dataclass(frozen=True)
class Bug:
    """A nameable bug: ``id`` is ``<prefix>.<what>``; ``hint`` may hold ``{placeholders}``."""

    id: str
    hint: str

    @property
    def functions(self) -> tuple[str, ...]:
        """The graded functions this bug can be found in (``("*",)`` for any)."""
        prefix = self.id.split(".")[0]
        return _prefixes(mistakes.active_folder()).get(prefix, (prefix,))

    def belongs_to(self, function: str) -> bool:
        return "*" in self.functions or function in self.functions

    def say(self, **facts) -> Message:
        """The hint with its placeholders filled (English text that keeps its catalog id and facts)."""
        return Message(self.hint, facts)


#: The bugs any graded function can have: properties of any call.
ENGINE_BUGS: tuple[Bug, ...] = (
    Bug("call.modifies_input", N_("Your {function} changes its argument {argument} in place (e.g. `x -= x.max(...)`); compute into a new array so the caller's data is left as it was.")),
    Bug("call.returns_list", N_("Your {function} returns a Python list where a numpy array is documented; return np.asarray(...) of it, or build it with numpy operations.")),
    Bug("call.float32_promoted", N_("Your {function} turns float32 input into a float64 result: an explicit cast (.astype(np.float64), dtype=np.float64), a float64 value such as np.sqrt(d_k) (which promotes float32 arrays under NumPy 2), or a new array from np.zeros, np.ones or np.empty without dtype=x.dtype (float64 by default) does it, so keep float32 as it is, use math.sqrt(d_k) or a Python float, or cast back with .astype(x.dtype).")),
    Bug("call.wrong_dtype", N_("Your {function} returns {got} where {expected} is documented: float32 input gives float32 results and every other input float64, so look for what sets your result's dtype: a cast (.astype, dtype=), or an array made like the input (np.empty_like(x), out=) that keeps a float16 or integer input's type.")),
    Bug("call.not_float", N_("Your {function} returns {dtype} values where real numbers are documented; compute in floating point (integer input is computed in float64, e.g. np.asarray(x, dtype=np.float64)), and do not cast the result back to an integer input's type (.astype(x.dtype) truncates it).")),
    Bug("call.rejects_valid_input", N_("Your {function} refuses an input its docstring allows: line {line} of your file raises ({error}) although the call is valid; make that check match the documented contract, or remove it.")),
    Bug("call.mismatched_sizes", N_("Your {function} stops on line {line} of your file, where {sizes}: that line combines axes that do not belong together; check which axis of each operand it uses.")),
    Bug("call.array_truth_value", N_("Your {function} uses an array as a condition on line {line} of your file (`if mask:`, `x or y`); numpy cannot tell whether a whole array is true: test `mask is not None` for an optional argument, or use .any() / .all().")),
    Bug("call.partial_transpose", N_("Your {function} calls transpose on line {line} of your file with axes that are not an order of all the array's axes: numpy's x.transpose(...) takes a position for every axis (PyTorch's transpose(-2, -1) swaps two); to swap the last two axes use np.swapaxes(x, -1, -2).")),
    Bug("call.integer_mask", N_("Your {function} is right with a boolean mask but wrong with the same mask as 0/1 {dtype} values, which the docstring allows: convert it first, mask = np.asarray(mask, dtype=bool) (on integers ~mask is -1 or -2, both true).")),
    Bug("call.integer_input", N_("Your {function} is wrong on integer {arguments} but right on the same values as floats, which the docstring allows: convert first, np.asarray(x, dtype=np.float64) (an integer array cannot hold a division: `/=` on it raises; a cast to an input's type, np.asarray(w, dtype=x.dtype) or .astype(x.dtype), and an integer output array truncate).")),
    Bug("call.not_shift_invariant", N_("Your {function} is right once each slice of {argument} is shifted so that its maximum is 0, which leaves the documented result unchanged, but wrong on {argument} as given: it clips the scores or shifts them by a fixed number, where the exponentials need each slice's own maximum subtracted (a shift of every score by one number leaves the weights as they are).")),
    Bug("call.blocked_keys_matter", N_("Your {function} changes with the values of {arguments} at the keys the mask blocks for every query, which must not matter (it is right once they are 0): apply the mask to the scores before the maximum and the exponentials, so a blocked key never enters them.")),
    Bug("call.part_without_mask", N_("Your {function} computes {part} as if there were no mask, while the rest of its result applies it: compute {part} from the weights after the masked positions are zeroed.")),
    Bug("call.overflows", N_("Your {function} gives inf or NaN on large inputs where the result is finite, and is right on the same inputs scaled down: an exponential overflows (np.exp of a large number is inf) or underflows (every exponential of a slice 0, then 0 / 0), as in a hand-written tanh or sigmoid, or exponentials of scores not shifted by each slice's own maximum; use np.tanh, and subtract np.max(x, axis=-1, keepdims=True) before np.exp.")),
    Bug("call.axis_moved", N_("Your {function} returns the expected values with axis {axis} moved to position {position}: an np.moveaxis (or swapaxes) to work on the last axis that is never undone; move it back before returning, or compute along axis directly with keepdims=True.")),
    Bug("call.inplace_product", N_("Your {function} writes the result of an operation into one of its operands on line {line} of your file (`a @= b`, `a += b`, or out=a), which must keep a's shape while the result needs another (a product's, or the broadcast one): write a = a @ b or a = a + b, a new array (in place would also change the caller's array).")),
    Bug("call.batch_of_one_argument", N_("Your {function} is right when every argument has the same batch axes, and wrong on this call, where their batch shapes differ and must broadcast ({shapes}): a step takes the batch shape from one argument alone (a reshape to one argument's shape, or to (-1, n, d), that merges batch axes; np.broadcast_to one argument's shape; an in-place a += b that cannot grow a; a gradient summed back over other axes than the stretched ones); let numpy broadcast, or take np.broadcast_shapes of every argument's batch shape.")),
    Bug("call.one_entry_short", N_("Your {function} returns the expected values without the {end} entry along axis {axis}: a slice or a range stops one short (Python's end is exclusive: features i*d to (i+1)*d - 1 are x[..., i*d:(i+1)*d], and range(n) already stops at n - 1).")),
    Bug("call.one_entry_only", N_("Your {function} returns only the {end} of the {size} expected entries along axis {axis} (that axis has size 1): an index such as [..., 0] drops another axis than the one meant ([..., 0, :] keeps the last), or a loop keeps its first result; keep every entry along that axis.")),
    Bug("call.last_axis_only", N_("Your {function} is right when axis is the last one and wrong for axis={axis}: a step works along the last axis whatever axis says: a sum or maximum without keepdims=True that broadcasts along the last axis, rows made by reshape(-1, n) without moving axis to the end first, or a hard-coded -1; move axis last with np.moveaxis(x, axis, -1) and back, or pass axis=axis, keepdims=True to every reduction.")),
    Bug("call.extra_unit_axis", N_("Your {function} returns the right values in {part} with an extra axis of size 1, shape {shape} where {expected} is documented: a keepdims=True, a [None] or np.newaxis, a column vector (v[:, None] or a reshape to (n, 1)) or a leading batch axis that is never removed; return the documented shape.")),
    Bug("call.missing_unit_axis", N_("Your {function} returns the right values in {part} without an axis of size 1, shape {shape} where {expected} is documented: an np.squeeze, an index such as [0] or [..., 0], or a shortcut return for a size that is 1 drops it; keep every documented axis, sizes of 1 included.")),
    Bug("call.reversed_axis", N_("Your {function} returns {part} reversed along axis {axis}: the expected entries in the opposite order there (an np.flip, np.flipud or [::-1], a range run backwards, a triangle turned upside down); keep the documented order.")),
    Bug("call.shifted_by_maximum", N_("Your {function} returns {part} minus the maximum of each slice along axis {axis} (the largest entry of every slice is 0): subtracting the maximum keeps exponentials from overflowing, inside the step that normalises them; the values returned here are the unshifted ones.")),
    Bug("call.scores_for_weights", N_("Your {function} returns as {part} the scores that should be turned into weights: {part} is their normalised exponentials along the last axis, exp(s - max) / sum, each row summing to 1 (the masked entries 0).")),
    Bug("call.step_skipped", N_("Your {gradients} are what {function} gives with its step {step} left out, its input {argument} passed on as if it were the step's result: apply {step} there (in a backward pass, each gradient goes through every step between it and the input, in reverse order).")),
    Bug("call.mask_multiplied", N_("Your {function} is right once the masked entries of {argument} are finite, and wrong with the NaN they hold: it multiplies by the mask, and NaN * 0 is NaN; select with np.where(mask, {argument}, 0), which puts an exact 0 wherever the mask is False.")),
    Bug("call.finite_mask_fill", N_("Your {function} gives weight to masked positions when the allowed scores are extreme, and is right on the same inputs scaled down: it fills masked scores with a finite number (such as -1e4) that allowed scores far below zero pass; fill them with -np.inf, np.where(mask, scores, -np.inf).")),
    Bug("call.array_like", N_("Your {function} is right on numpy arrays and wrong when {names} come as Python lists, which the docstring allows (array_like): convert first, {first} = np.asarray({first}) (a list has no .dtype, .shape or .astype, and list * list raises).")),
    Bug("call.mean_for_sum", N_("Your {function} returns {part} divided by {size}: a mean (np.mean) over that axis where the documented sum belongs (np.sum, or a weighted sum whose weights already add up to 1).")),
    Bug("call.one_batch_axis_only", N_("Your {function} is right when the inputs have exactly one batch axis and wrong with {count}: a step assumes exactly one (a reshape to (-1, ...) that merges several or adds one that stays, X.shape[0] read as the batch size, a transpose that names axes 0, 1, 2); index the axes from the end so that any number of leading axes, none included, pass through.")),
    Bug("call.shift_along_other_axis", N_("Your {function}'s weights are what the exponentials give when the scores are shifted by the maxima along axis {axis} (np.max(x, axis={axis})) instead of each slice's own maximum along the normalised axis: the entries of one slice then lose different numbers and the weights change; subtract np.max(x, axis=-1, keepdims=True), the maximum along the axis that is normalised.")),
    Bug("call.behaves_as_edited", N_("Your {function} gives what the right computation gives with {becomes} where {was} belongs: one slip in that step explains every result here; find the step in your code that does it and write it as {was}.")),
    Bug("call.outputs_swapped", N_("Your {function} returns its outputs in another order; return ({expected}) in that order.")),
)

def prefixes(folder: Path | None = None) -> dict[str, tuple[str, ...]]:
    """Every listed id prefix and its graded functions: the engine's and the course's (``PREFIXES`` of its
    mistakes; ``folder`` is a mistakes folder, default :func:`autograder.mistakes.active_folder`)."""
    return dict(_prefixes(mistakes.active_folder() if folder is None else Path(folder).resolve()))


@functools.lru_cache(maxsize=None)
def _prefixes(folder: Path) -> MappingProxyType:
    return MappingProxyType({**ENGINE_PREFIXES, **mistakes.merged("PREFIXES", folder)})


def bugs(folder: Path | None = None) -> tuple[Bug, ...]:
    """Every registered bug: the engine's, then the course's (``BUGS`` of its mistakes).

    Raises
    ------
    ConfigError
        When a module of the course's mistakes cannot be loaded.
    """
    return ENGINE_BUGS + mistakes.collected("BUGS", folder)


@functools.lru_cache(maxsize=None)
def _by_id(folder: Path) -> dict[str, Bug]:
    return {registered.id: registered for registered in bugs(folder)}


def bug(bug_id: str) -> Bug:
    """The registered bug with this id (the engine's or the course's in use).

    Raises
    ------
    KeyError
        When no bug has this id.
    """
    try:
        return _by_id(mistakes.active_folder())[bug_id]
    except KeyError:
        raise KeyError(f"no diagnosis with id {bug_id!r}") from None


def prefix_of(function: str) -> str:
    """The id prefix of a graded function's own bugs (``"attention"`` for scaled_dot_product_attention): a listed
    prefix, else the function's own name (a question added to the course needs no entry in any ``PREFIXES``)."""
    for prefix, functions in _prefixes(mistakes.active_folder()).items():
        if function in functions:
            return prefix
    return function
