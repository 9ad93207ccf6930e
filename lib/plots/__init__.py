"""Figure modules, one per topic, beside the algorithms they draw.

An algorithm module never imports matplotlib; its figures live in ``lib/plots/<topic>.py``
(or in ``plots.py`` inside a topic package such as ``lib/bn/``).
"""
