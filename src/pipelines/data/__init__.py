"""Data shipped with the pipelines: the ranking-points table and the sample season."""
