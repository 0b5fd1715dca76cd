"""Psaras, Dianati & Tafazolli, "Why Rely on Blind AIMDs? A Response-Based Approach to TCP
Congestion Control" (MR-AIMD): Table 1 and Figures 4–7, reproduced.

* :mod:`~cclab.mraimd.scenarios`: the experiments as scenarios (§2, §4);
* :mod:`~cclab.mraimd.figures`: runs, measurements, plots and claims per table/figure;
* :mod:`~cclab.mraimd.run`: :func:`reproduce`, behind ``cclab reproduce mraimd``.
"""
from cclab.mraimd.run import MraimdError, Outcome, reproduce

__all__ = ["reproduce", "Outcome", "MraimdError"]
