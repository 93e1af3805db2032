"""Scoring's store side: the job plans a score run writes and reads back, the tables of
`score report` (Keung et al.'s selection rules, the transfer gap), and cartography. The
training loop itself, which needs torch, is nlibuild/scoring/ (the score extra)."""
