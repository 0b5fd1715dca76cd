"""``cclab.plot``: the figures of one run, by the name the documentation and notebooks
use; they are drawn in :mod:`cclab.plots.run_figures` (:mod:`cclab.plots` draws every
figure of cclab)."""
from cclab.plots.run_figures import *  # noqa: F401,F403
from cclab.plots.run_figures import __all__  # noqa: F401
