"""Metrics: one registry of figures per model, aggregated over repeats with intervals, noise and compare."""
