"""Labels and the gold rule: label names, the majority rule (the SQL of the hot path's gold
is queries/pair_labels.py's), agreement statistics, annotators and their platform IDs, and
annotation artifacts (cue words and PMI)."""
