"""Every paper cclab reproduces: the name of its command (``cclab reproduce KEY``), what
that command's help says, and where the paper's :class:`~cclab.papers.paper.Paper` is.

Only names and text here: the command line lists the papers, and ``--help`` shows them,
without importing any (each brings pandas and matplotlib). :func:`paper_named` imports
the one asked for, as a worker process does when it is given a paper's name (a paper's
figure functions do not pickle; its name does).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

from cclab.papers.paper import Paper


@dataclass(frozen=True)
class PaperEntry:
    key: str  # the command's name
    paper: str  # where its Paper is: "module:NAME"
    summary: str  # the command's help
    quick: str  # --quick's help


PAPERS = {entry.key: entry for entry in (
    PaperEntry("zhang2002", "cclab.papers.zhang2002.run:ZHANG2002",
               "Zhang & Tsaoussidis 2002: Figures 2–11 (--figure 2 … 11) as PNG + CSV/Parquet, and summary.md "
               "judging each claim.",
               "Shorter runs, fewer points and 3 seeds: the whole set in about a minute."),
    PaperEntry("mraimd", "cclab.papers.mraimd.run:MRAIMD",
               "MR-AIMD (Psaras, Dianati & Tafazolli): Table 1 and Figures 4–7 (--figure table1, 4 … 7) as PNG + "
               "CSV/Parquet, and summary.md.",
               "60 s runs, 3 flow counts, 2 seeds: the whole set in well under a minute."),
    PaperEntry("westwood", "cclab.papers.westwood.run:WESTWOOD",
               "TCP Westwood BE/RE/CRB/ABSE (Wang et al., ICNP 2002): Figures 2–3, 5, 7, 9–16, 18–21 (--figure 2, 7, "
               "9, 11, 12, 16, 18, 19, 20, 21; a figure drawn with others, e.g. 3 with 2, selects their file) as PNG + "
               "CSV/Parquet, and summary.md.",
               "40 s runs, a few points per figure, 2 seeds: the whole set in about a minute."),
    PaperEntry("slowcc", "cclab.papers.slowcc.run:SLOWCC",
               "Slowly-responsive congestion control (Bansal et al., SIGCOMM 2001): Figures 11–17 (--figure 11 … 17; "
               "11 and 12 are one file, so are 14 and 15) as PNG + CSV/Parquet, and summary.md.",
               "Five flows stop at 100 s, three values of b, three periods, 2 seeds: well under a minute."),
)}


def paper_named(key: str) -> Paper:
    """The paper whose command is ``key`` (its module imported now)."""
    module, name = PAPERS[key].paper.split(":")
    return getattr(importlib.import_module(module), name)
