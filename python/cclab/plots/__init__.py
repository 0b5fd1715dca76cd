"""Figures of results and the static HTML reports."""
