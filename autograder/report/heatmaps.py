"""PNG pictures for the feedback pages, drawn with matplotlib's Agg canvas (no display, no pyplot state).

matplotlib is imported when a picture is drawn, never when a report module is imported,
so commands that draw nothing start as fast as before.
"""

from __future__ import annotations

import io

import numpy as np

from autograder.grade.figures import WeightsFigure

#: Figure size in inches and resolution: 720 x 320 pixels, sharp on a phone when scaled down.
WEIGHTS_SIZE_IN = (7.2, 3.2)
HISTOGRAM_SIZE_IN = (4.8, 2.6)
DPI = 100
#: Cells annotated with their value when the matrix is this small or smaller.
ANNOTATE_MAX_SIDE = 6
COLORMAP = "viridis"
#: Colour of entries that are NaN or infinite.
NOT_FINITE_COLOUR = "#d0d7de"
BAR_COLOUR = "#0969da"
#: Smallest difference of two weights a reader sees in the pair of heatmaps (half the step of their 2-decimal labels).
VISIBLE_DIFFERENCE = 0.005


def _canvas(size_in: tuple[float, float]):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=size_in, dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI)
    return buffer.getvalue()


def _array(matrix) -> np.ma.MaskedArray:
    values = np.array([[np.nan if v is None else v for v in row] for row in matrix], dtype=float)
    if values.size == 0:
        values = np.full((1, 1), np.nan)
    return np.ma.masked_invalid(values)


def _limits(*arrays: np.ma.MaskedArray) -> tuple[float, float]:
    """0 to 1 for weights, widened to what a wrong result holds."""
    finite = [a.compressed() for a in arrays if a.count()]
    low = min([0.0, *(float(f.min()) for f in finite)])
    high = max([1.0, *(float(f.max()) for f in finite)])
    return low, high


def _panel(axes, values: np.ma.MaskedArray, title: str, limits: tuple[float, float]):
    from matplotlib import colormaps

    colormap = colormaps[COLORMAP].with_extremes(bad=NOT_FINITE_COLOUR)
    image = axes.imshow(values, cmap=colormap, vmin=limits[0], vmax=limits[1], aspect="auto")
    axes.set_title(title, fontsize=13)
    axes.set_xlabel("key", fontsize=11)
    axes.set_ylabel("query", fontsize=11)
    rows, columns = values.shape
    axes.set_xticks(range(columns))
    axes.set_yticks(range(rows))
    axes.tick_params(labelsize=8)
    if max(rows, columns) <= ANNOTATE_MAX_SIDE:
        middle = (limits[0] + limits[1]) / 2
        for (row, column), value in np.ndenumerate(values.filled(np.nan)):
            text = "NaN" if not np.isfinite(value) else f"{value:.2f}"
            colour = "white" if np.isfinite(value) and value < middle else "black"
            axes.text(column, row, text, ha="center", va="center", fontsize=10, color=colour)
    return image


def shows_the_failure(figure: WeightsFigure) -> bool:
    """Whether the pair of heatmaps shows what is wrong: always for a right result (the pair says it is right); for a
    wrong one, only when the slices drawn have the same shape, some finite entry, and an entry that visibly differs.

    A failure of the dtype, of the shape, of the contract alone, or one outside the slice drawn, would show two
    pictures that look the same under a caption saying they differ; a result that is NaN everywhere draws one grey panel.
    """
    if not figure.failing:
        return True
    reference, student = _array(figure.reference), _array(figure.student)
    shapes = tuple(figure.shape), tuple(figure.student_shape)
    if reference.shape != student.shape or (all(shapes) and shapes[0] != shapes[1]) or not student.count():
        return False
    if (reference.mask != student.mask).any():
        return True
    return bool(np.ma.max(np.abs(reference - student), fill_value=0.0) > VISIBLE_DIFFERENCE)


def weights_png(figure: WeightsFigure) -> bytes:
    """The reference's weights (left) and the student's (right), same colour scale."""
    reference, student = _array(figure.reference), _array(figure.student)
    limits = _limits(reference, student)
    canvas = _canvas(WEIGHTS_SIZE_IN)
    left, right = canvas.subplots(1, 2)
    _panel(left, reference, "expected", limits)
    image = _panel(right, student, "yours", limits)
    canvas.colorbar(image, ax=[left, right], shrink=0.9)
    return _png(canvas)


def histogram_png(scores: list[float], maximum: float, title: str) -> bytes:
    """A histogram of a question's scores over the class, from 0 to its points."""
    canvas = _canvas(HISTOGRAM_SIZE_IN)
    axes = canvas.subplots()
    top = maximum if maximum > 0 else 1.0
    bins = np.linspace(0.0, top, 11)
    axes.hist(np.clip(np.asarray(scores, dtype=float), 0.0, top), bins=bins, color=BAR_COLOUR, edgecolor="white")
    axes.set_title(title, fontsize=10)
    axes.set_xlabel("points", fontsize=9)
    axes.set_ylabel("students", fontsize=9)
    axes.set_xlim(0, top)
    axes.yaxis.get_major_locator().set_params(integer=True)
    axes.tick_params(labelsize=8)
    return _png(canvas)
