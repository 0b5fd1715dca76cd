"""Zhang & Tsaoussidis (2002), "The Interrelation of TCP Responsiveness and Smoothness in
Heterogeneous Networks": every figure of its §5, reproduced.

* :mod:`~cclab.papers.zhang2002.scenarios`: the experiments as scenarios (§4.1);
* :mod:`~cclab.papers.zhang2002.metrics`: the §4.2 metrics not in every result;
* :mod:`~cclab.papers.zhang2002.figures`: Figures 2–11 (runs, tables, plots, claims),
  those of whole runs in :mod:`~cclab.papers.zhang2002.goodput`, those over time in
  :mod:`~cclab.papers.zhang2002.over_time`, on :mod:`~cclab.papers.zhang2002.shared`;
* :mod:`~cclab.papers.zhang2002.run`: :func:`reproduce`, behind ``cclab reproduce zhang2002``.
"""
from cclab.papers.paper import Outcome, ReproduceError
from cclab.papers.zhang2002.run import parse_figures, reproduce

__all__ = ["reproduce", "parse_figures", "Outcome", "ReproduceError"]
