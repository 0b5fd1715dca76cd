"""Metrics computed from results, statistics over runs, analytic models."""
