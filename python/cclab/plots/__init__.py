"""Every figure cclab draws: of one run (:mod:`~cclab.plots.run_figures`, public as
:mod:`cclab.plot`; to files: :mod:`~cclab.plots.traces`), of a paper reproduction
(:mod:`~cclab.plots.paper_figures`), a sweep's report (:mod:`~cclab.plots.report`), on
the axis rules of :mod:`~cclab.plots.canvas`; and the HTML views and page template
(:mod:`~cclab.plots.html`)."""
