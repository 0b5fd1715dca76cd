"""cclab in notebooks: the tutorial notebook executed by a real Jupyter kernel; figures
that are matplotlib Figures shown once each, without cclab touching the backend; results
and stores shown as HTML tables."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "examples" / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_tutorial_notebook_runs_in_a_real_kernel(notebook, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    copy = tmp_path / notebook.name
    shutil.copy(notebook, copy)
    document = nbformat.read(copy, as_version=4)
    # the kernel is this interpreter (the one with cclab), whatever kernels Jupyter knows
    kernels = tmp_path / "jupyter" / "kernels" / "cclab-test"
    kernels.mkdir(parents=True)
    (kernels / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "cclab tests", "language": "python"}))
    client = nbclient.NotebookClient(document, timeout=600, kernel_name="cclab-test",
                                     resources={"metadata": {"path": str(tmp_path)}})
    saved = os.environ.copy()
    os.environ["JUPYTER_PATH"] = str(tmp_path / "jupyter")
    os.environ.pop("MPLBACKEND", None)  # the kernel's own (inline) backend
    try:
        client.execute()  # raises CellExecutionError, naming the cell, on any error
    finally:
        os.environ.clear()
        os.environ.update(saved)
    code = [cell for cell in document.cells if cell.cell_type == "code"]
    by_source = {cell.source.splitlines()[0] if cell.source else "": cell for cell in code}

    def outputs(first_line: str, kind: str) -> list:
        cell = by_source[first_line]
        return [output for output in cell.outputs if kind in output.get("data", {})]

    # a result and a store render as HTML tables
    assert "<table" in outputs("import cclab", "text/html")[0]["data"]["text/html"]
    assert "cclab.SweepStore" in outputs('store = cclab.SweepStore("protocols.duckdb", read_only=True)',
                                         "text/html")[0]["data"]["text/html"]
    # each figure is shown exactly once (no second copy from a pyplot registry)
    for first_line in ("cclab.plot.traces(result)", "cclab.plot.flows(result)", "cclab.plot.bins(result)",
                       "import matplotlib.pyplot as plt"):
        assert len(outputs(first_line, "image/png")) == 1, first_line
    # the sweep of protocols given as names and tables ran, and its tables are labelled
    summary = outputs("runs = store.runs()", "text/html")[0]["data"]["text/html"]
    assert "westwood-plus" in summary
    assert not any(output.get("output_type") == "error" for cell in code for output in cell.outputs)


def test_plots_never_touch_the_backend_nor_pyplot(tmp_path):
    """Importing cclab's figure modules and drawing with them leaves the backend the user
    chose, and never imports pyplot (whose figures would pile up in notebooks)."""
    script = textwrap.dedent("""
        import sys
        import matplotlib
        matplotlib.use("pdf")
        import cclab, cclab.plot
        import cclab.plots.report, cclab.plots.traces
        import cclab.papers.westwood.figures, cclab.papers.zhang2002.figures
        import cclab.papers.mraimd.figures, cclab.papers.slowcc.figures
        result = cclab.run(sys.argv[1], duration="2s", **{"trace.flows": True, "trace.queue": True})
        figures = [cclab.plot.traces(result), cclab.plot.flows(result), cclab.plot.queue(result),
                   cclab.plot.bins(result), cclab.plot.cwnd(result)]
        cclab.plots.traces.plot_traces(result, sys.argv[2])
        assert matplotlib.get_backend() == "pdf", matplotlib.get_backend()
        assert "matplotlib.pyplot" not in sys.modules
        print(" ".join(type(figure).__name__ for figure in figures))
    """)
    completed = subprocess.run([sys.executable, "-c", script, str(ROOT / "experiments" / "static-wired.toml"),
                                str(tmp_path / "traces.png")], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["Figure"] * 5
    assert (tmp_path / "traces.png").stat().st_size > 10_000
