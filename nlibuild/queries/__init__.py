"""Read paths over the store, one module per subject (votes, pairs, premises, ...).

Stages and statistics read through these functions instead of through each other, so no
stage imports another stage. A query takes a `Store` and returns plain rows or columns; it
never writes.
"""
