"""Numbers printed in heat-map cells are readable: WCAG 2.1's 4.5:1 contrast (small text)
between each number's colour and its cell's, in every figure that prints them (Chapter 5's
confusion matrix, Chapter 6's link posteriors, Chapter 8's Baum-Welch explorer), over
cells of every shade of their colour map. Black or white reaches 4.5:1 on any colour;
``lib.plots.style.readable_on`` picks the one that does."""
import numpy as np
import pytest
from matplotlib.colors import to_rgb
from matplotlib.image import AxesImage

from lib.hmm import HMM, casino_model
from lib.plots.bn import plot_link_posteriors
from lib.plots.hmm import plot_baum_welch, record_baum_welch
from lib.plots.style import readable_on
from lib.plots.text import plot_confusion_matrix


def contrast(a, b):
    """WCAG 2.1's contrast ratio of two sRGB colours."""
    def luminance(colour):
        rgb = np.asarray(to_rgb(colour))
        return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4) @ [0.2126, 0.7152, 0.0722]
    hi, lo = sorted([luminance(a), luminance(b)], reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def cell_numbers(fig):
    """(text, its colour, its cell's colour) of every non-empty text drawn on an image cell."""
    found = []
    for ax in fig.axes:
        for image in (a for a in ax.get_children() if isinstance(a, AxesImage)):
            values = image.get_array()
            for text in ax.texts:
                j, i = (round(v) for v in text.get_position())
                if text.get_text() and 0 <= i < values.shape[0] and 0 <= j < values.shape[1] \
                        and not np.ma.is_masked(values[i, j]):
                    found.append((text.get_text(), text.get_color(), image.to_rgba(values[i, j])))
    return found


def link_posteriors():
    names = list("abcdefg")
    p = np.zeros((7, 7))
    p[np.triu_indices(7, 1)] = np.linspace(0, 1, 21)  # every shade of the map
    return plot_link_posteriors([p, p[::-1, ::-1].T], names, [("a", "b")], [{("a", "c")}] * 2, ["one", "two"])


def baum_welch():
    rng = np.random.default_rng(0)
    casino = casino_model()
    guess = HMM([0.5, 0.5], rng.dirichlet([1, 1], 2), rng.dirichlet(np.ones(6), 2))
    run = record_baum_welch(guess, casino.sample(300, np.random.default_rng(1))[1], casino, n_iter=5, tol=0)
    # the learned matrices shown at iteration 5 swept over every shade of the map
    run = run._replace(transitions=np.r_[run.transitions[:5], np.linspace(0, 1, 4).reshape(1, 2, 2)],
                       emissions=np.r_[run.emissions[:5], np.linspace(0, 1, 12).reshape(1, 2, 6)])
    return plot_baum_welch(5, run, state_labels=["fair", "loaded"], symbol_labels="123456")


FIGURES = {
    "confusion matrix": lambda: plot_confusion_matrix(np.arange(1, 26).reshape(5, 5) ** 2, list("abcde")),
    "link posteriors": link_posteriors,
    "Baum-Welch": baum_welch,
}


@pytest.mark.parametrize("name", FIGURES)
def test_numbers_in_cells_have_aa_contrast(name):
    numbers = cell_numbers(FIGURES[name]())
    assert len(numbers) >= 10, numbers  # the figure prints numbers on its cells
    poor = [(text, colour, round(contrast(colour, cell), 2)) for text, colour, cell in numbers
            if contrast(colour, cell) < 4.5]
    assert not poor, f"{name}: numbers under 4.5:1 against their cell: {poor}"


def test_readable_on_picks_the_colour_of_higher_contrast():
    for grey in np.linspace(0, 1, 101):
        cell = (grey, grey, grey)
        best = max(["black", "white"], key=lambda c: contrast(c, cell))
        assert readable_on(cell) == best, grey
        assert contrast(readable_on(cell), cell) >= 4.5
