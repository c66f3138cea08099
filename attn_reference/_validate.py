"""Input checks shared by the reference functions.

Every public function turns its inputs into float arrays with :func:`as_float_array`
and reports shape problems with a ``ValueError`` naming the shapes involved.
"""

from __future__ import annotations

import numpy as np

#: Floating dtypes that are kept as given; anything else is promoted to float64.
PRESERVED_FLOAT_DTYPES = (np.float32, np.float64)


def as_float_array(x, name: str, min_ndim: int = 0) -> np.ndarray:
    """Return ``x`` as a float32 or float64 array.

    Parameters
    ----------
    x : array_like
        The input.
    name : str
        Its name, used in error messages.
    min_ndim : int
        The fewest dimensions it may have.

    Returns
    -------
    numpy.ndarray
        float32 when given float32, float64 otherwise.

    Raises
    ------
    ValueError
        When ``x`` has fewer than ``min_ndim`` dimensions or is not numeric.
    """
    array = np.asarray(x)
    if array.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be a real numeric array, got dtype {array.dtype}")
    if array.dtype.type not in PRESERVED_FLOAT_DTYPES:
        array = array.astype(np.float64)
    if array.ndim < min_ndim:
        raise ValueError(
            f"{name} must have at least {min_ndim} dimensions, got shape {array.shape}"
        )
    return array


def as_bool_mask(mask, name: str = "mask") -> np.ndarray:
    """Return a boolean mask from a boolean or 0/1 array (True/1 = may attend).

    Raises
    ------
    ValueError
        When the mask holds values other than 0 and 1.
    """
    array = np.asarray(mask)
    if array.dtype == np.bool_:
        return array
    if array.dtype.kind not in "biuf" or not np.isin(array, (0, 1)).all():
        raise ValueError(f"{name} must be boolean or hold only 0 and 1, got dtype {array.dtype}")
    return array.astype(bool)


def check_broadcastable(target_shape: tuple, shape: tuple, what: str) -> None:
    """Raise ``ValueError`` unless ``shape`` broadcasts to ``target_shape``."""
    try:
        broadcast = np.broadcast_shapes(target_shape, shape)
    except ValueError:
        broadcast = None
    if broadcast != tuple(target_shape):
        raise ValueError(f"{what} of shape {shape} does not broadcast to {tuple(target_shape)}")


def batch_shape(*named_shapes: tuple[str, tuple], core_ndim: dict[str, int]) -> tuple:
    """Broadcast the leading (batch) dimensions of several arrays.

    Parameters
    ----------
    *named_shapes : (str, tuple)
        Each array's name and shape.
    core_ndim : dict
        For each name, how many trailing dimensions are not batch dimensions.

    Raises
    ------
    ValueError
        Naming every shape when the batch dimensions do not broadcast.
    """
    batches = [shape[: len(shape) - core_ndim[name]] for name, shape in named_shapes]
    try:
        return np.broadcast_shapes(*batches)
    except ValueError:
        described = ", ".join(f"{name} {shape}" for name, shape in named_shapes)
        raise ValueError(f"batch dimensions do not broadcast: {described}") from None
