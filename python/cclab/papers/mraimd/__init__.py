"""Psaras, Dianati & Tafazolli, "Why Rely on Blind AIMDs? A Response-Based Approach to TCP
Congestion Control" (MR-AIMD): Table 1 and Figures 4–7, reproduced.

* :mod:`~cclab.papers.mraimd.scenarios`: the experiments as scenarios (§2, §4);
* :mod:`~cclab.papers.mraimd.figures`: runs, measurements, plots and claims per table/figure;
* :mod:`~cclab.papers.mraimd.run`: :func:`reproduce`, behind ``cclab reproduce mraimd``.
"""
from cclab.papers.mraimd.run import MraimdError, reproduce
from cclab.papers.paper import Outcome

__all__ = ["reproduce", "Outcome", "MraimdError"]
