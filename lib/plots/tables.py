"""Markdown tables for the chapters: the one table builder of the course.

A chapter shows a computed table by handing the Markdown text to MyST-NB's ``glue``
(:func:`lib.glue.glue`, a ``{glue:md}`` directive in the text) or to IPython's
``Markdown`` (Chapter 1, "The candy bags"; Chapter 2, "Counting parameters"; Chapter 6,
"The earthquake network").
"""
__all__ = ["markdown_table"]

_RULES = {"l": "---", "r": "---:", "c": ":---:"}


def markdown_table(header, rows, align=None):
    """A Markdown table: a header row, a rule, then one line per row.

    Parameters
    ----------
    header : sequence of str
        The column titles (Markdown: ``$...$`` maths is kept as written).
    rows : iterable of sequences
        One sequence of cells per row, as many as ``header``; each cell is shown with
        ``str`` (format numbers before passing them).
    align : str, optional
        One letter per column: ``"l"`` (left, the default), ``"r"`` (right) or ``"c"``.

    Examples
    --------
    >>> print(markdown_table(["$n$", "count"], [[1, "3"], [2, "5"]], align="lr"))
    | $n$ | count |
    | --- | ---: |
    | 1 | 3 |
    | 2 | 5 |
    """
    header = [str(h) for h in header]
    align = "l" * len(header) if align is None else align
    if len(align) != len(header) or not set(align) <= set(_RULES):
        raise ValueError(f"align must give one of 'l', 'r', 'c' per column ({len(header)}), got {align!r}")
    lines = [_line(header), _line(_RULES[a] for a in align)]
    for k, row in enumerate(rows):
        row = [str(cell) for cell in row]
        if len(row) != len(header):
            raise ValueError(f"row {k} has {len(row)} cells, the header {len(header)}")
        lines.append(_line(row))
    return "\n".join(lines)


def _line(cells):
    return "| " + " | ".join(cells) + " |"
