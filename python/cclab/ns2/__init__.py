"""ns-2.35 beside cclab: the same scenario in the simulator the papers used.

* :mod:`cclab.ns2.translate` writes an ns-2.35 Tcl script for a scenario (``cclab
  export-ns2``): the topology as cclab expands it, every flow started and stopped when
  cclab starts and stops it, cclab's routes; what has no ns-2 equivalent is refused with
  one line naming the field.
* :mod:`cclab.ns2.run` runs such a script with ``ns`` and reads its counters back as a
  :class:`cclab.Result`, so every table, metric and paper claim that works on a cclab run
  works on the ns-2 run of the same scenario.
* :mod:`cclab.ns2.crosscheck` runs both for several seeds and compares them metric by
  metric (``cclab crosscheck``).

Nothing here imports the engine's heavy dependencies until a result is made into tables.
"""
