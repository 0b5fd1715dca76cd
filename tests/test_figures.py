"""Figures that cannot mislead: every plotted value inside the axes, log axes labelled at
each decade and at the plotted points in plain numbers, step plots that draw their last
bin, wide figures laid out for the page; one --figure naming for every paper; JSON in
CSV cells."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest

import cclab
from cclab.papers.paper import ReproduceError, figure_name, figure_numbers
from cclab.papers.westwood import throughput as westwood
from cclab.plots import canvas, paper_figures
from conftest import SMALL_SCENARIO, run_cli


def labels(axis, which: str = "x") -> list[str]:
    scale = axis.xaxis if which == "x" else axis.yaxis
    low, high = sorted(axis.get_xlim() if which == "x" else axis.get_ylim())
    formatter = scale.get_major_formatter()
    return [formatter(tick, index) for index, tick in enumerate(scale.get_majorticklocs()) if low <= tick <= high]


@pytest.fixture
def drawn(monkeypatch):
    """The figures the westwood plots save, finished as they are written."""
    figures = []

    def keep(figure, path):
        canvas.finish(figure)
        figures.append(figure)

    monkeypatch.setattr(paper_figures, "save", keep)
    return figures


# ---------------------------------------------------------------- every value inside the axes
def test_fig19_shows_newreno_below_the_old_axis(drawn, tmp_path):
    runs = pd.DataFrame({"protocol": ["NewReno", "NewReno", "ABSE", "ABSE", "BE", "BE"],
                         "jain": [0.887, 0.888, 0.991, 0.993, 0.95, 0.96]})
    westwood.fairness_plot({"runs": runs}, tmp_path / "fig19.png")
    (axis,) = drawn[0].axes
    low, high = axis.get_ylim()
    assert low < 0.887 - 0.005 and high >= 0.993, (low, high)


def test_limits_set_by_hand_never_hide_a_value():
    figure, axis = canvas.subplots()
    axis.bar(["a", "b"], [0.5, 3.0])
    axis.errorbar([0, 1], [0.5, 3.0], yerr=[0.1, 0.4], fmt="none")
    axis.plot([0, 1], [-1.0, 2.0])
    axis.axhline(4.2)
    axis.set_ylim(1.0, 2.5)
    canvas.finish(figure)
    low, high = axis.get_ylim()
    assert low < -1.0 and high > 4.2, (low, high)
    values = canvas.plotted_values(axis, "y")
    assert {0.5, 3.0, 3.4, -1.0, 4.2} <= set(np.round(values, 6))
    figure, axis = canvas.subplots()
    axis.plot([1, 2], [1, 2])
    axis.set_ylim(0, 10)
    canvas.finish(figure)
    assert axis.get_ylim() == (0, 10), "limits holding every value stay"


# ---------------------------------------------------------------- logarithmic axes
def numbers(texts: list[str]) -> list[float]:
    """The labels as numbers: plain notation only ("6×10¹" or "$10^{0}$" would not parse)."""
    return [float(text) for text in texts]


def test_fig18_error_axis_is_labelled_at_decades_and_points(drawn, tmp_path):
    rows = [{"error_rate": rate, "protocol": protocol, "seed": seed, "throughput_mbps": 5 - 100 * rate + index * 0.1}
            for rate in (0.0, 0.001, 0.01, 0.05) for index, protocol in enumerate(("NewReno", "BE", "CRB", "ABSE"))
            for seed in (1, 2)]
    westwood.wireless_plot({"runs": pd.DataFrame(rows)}, tmp_path / "fig18.png")
    for axis in drawn[0].axes:
        shown = labels(axis, "x")
        assert {"0", "0.1", "1", "5"} <= set(shown), shown
        numbers(shown)


def test_fig16_buffer_axis_has_plain_labels(drawn, tmp_path):
    rows = [{"buffer": buffer, "protocol": protocol, "seed": 1, "throughput_mbps": 40.0 + buffer / 400,
             "drop_rate": 0.01 / buffer} for buffer in (100, 200, 400, 800, 1200, 1600)
            for protocol in ("NewReno", "BE", "ABSE")]
    westwood.many_plot({"runs": pd.DataFrame(rows)}, tmp_path / "fig16.png")
    for axis in drawn[0].axes:
        shown = labels(axis, "x")
        assert {"100", "1000", "1600"} <= set(shown), shown
        assert all(not set(text) & set("×^$") for text in shown), shown
        numbers(shown)


@pytest.mark.parametrize("data", [[0.5, 2, 60, 300], [1, 10, 100, 1000, 10000], [0.001, 0.002, 0.005]])
def test_log_ticks_at_every_decade_and_point(data):
    figure, axis = canvas.subplots(figsize=(8, 4))
    axis.plot(data, np.arange(len(data)), marker="o")
    axis.set_xscale("log")
    canvas.finish(figure)
    shown = numbers(labels(axis, "x"))
    low, high = min(data), max(data)
    decades = [10.0 ** k for k in range(-4, 6) if low <= 10.0 ** k <= high]
    assert set(decades) <= set(shown), shown
    assert low in shown and high in shown, shown


def test_log_ticks_label_points_not_every_vertex_of_a_curve():
    figure, axis = canvas.subplots(figsize=(8, 4))
    curve = np.geomspace(1, 1000, 200)
    axis.plot(curve, np.log(curve))  # a model curve: no markers
    axis.plot([3, 30, 300], [1, 3, 5], marker="o")
    axis.set_xscale("log")
    canvas.finish(figure)
    assert numbers(labels(axis, "x")) == [1, 3, 10, 30, 100, 300, 1000]
    figure, axis = canvas.subplots()
    axis.plot([2, 3, 4, 8], [1, 2, 3, 4])  # within a decade, no markers
    axis.set_xscale("log")
    canvas.finish(figure)
    assert len(labels(axis, "x")) >= 2


def test_symlog_axis_labels_zero():
    figure, axis = canvas.subplots()
    axis.plot([0, 0.1, 1, 5], [1, 2, 3, 4], marker="o")
    axis.set_xscale("symlog", linthresh=0.1)
    canvas.finish(figure)
    assert {"0", "0.1", "1", "5"} <= set(labels(axis, "x"))


# ---------------------------------------------------------------- steps
def test_bin_steps_draw_the_last_bin_to_its_end():
    figure, axis = canvas.subplots()
    (line,) = canvas.bin_steps(axis, [0, 1, 2], [5.0, 6.0, 7.0], 1.0)
    x, y = line.get_data()
    assert x[-1] == 3.0 and y[-1] == 7.0


def test_result_figures_reach_the_end_of_the_run(small_result):
    figure = cclab.plot.bins(small_result)
    ends = [max(line.get_xdata()) for axis in figure.axes for line in axis.get_lines()]
    assert ends and all(end == pytest.approx(small_result.duration_s) for end in ends)


# ---------------------------------------------------------------- wide figures
def test_wide_figures_are_laid_out_for_the_page():
    figure, axes = canvas.subplots(2, 5, figsize=(24, 8.4), sharey="row")
    for index, axis in enumerate(axes.flat):
        axis.plot([0, 1], [index, index + 1])
        axis.set_title(f"panel {index}")
    canvas.finish(figure)
    width, height = figure.get_size_inches()
    assert width <= canvas.PAGE_WIDTH_IN * canvas.SQUEEZE
    assert len(figure.axes) == 10
    rows = {axis.get_subplotspec().rowspan.start for axis in figure.axes}
    assert len(rows) == 6, "each row of five becomes three rows of two"
    # a panel keeps its size
    assert height / 6 == pytest.approx(8.4 / 2)
    # the first old row stays above the second
    first = [axis.get_subplotspec().rowspan.start for axis in axes[0]]
    second = [axis.get_subplotspec().rowspan.start for axis in axes[1]]
    assert max(first) < min(second)
    narrow, _ = canvas.subplots(1, 2, figsize=(11, 4))
    assert not canvas.fit_to_page(narrow)


# ---------------------------------------------------------------- --figure names
def papers():
    from cclab.papers.mraimd.run import MRAIMD
    from cclab.papers.slowcc.run import SLOWCC
    from cclab.papers.westwood.run import WESTWOOD
    from cclab.papers.zhang2002.run import ZHANG2002

    return [ZHANG2002, MRAIMD, WESTWOOD, SLOWCC]


@pytest.mark.parametrize("paper", papers(), ids=lambda paper: paper.key)
def test_every_paper_takes_the_same_figure_names(paper):
    for key, figure in paper.figures.items():
        kind, numbers_ = figure_numbers(paper.figure_title(figure))
        assert numbers_, paper.figure_title(figure)
        for number in numbers_:
            forms = ([f"table{number}", f"Table {number}", f"TABLE-{number}"] if kind == "table" else
                     [number, str(number), f"fig{number}", f"Fig. {number}", f"figure {number}", f"fig{number:02d}",
                      f"Figure {number}"])
            for form in forms:
                assert paper.select([form]) == [key], (paper.key, form)
        assert paper.select([key]) == [key]
    # no name selects two figures
    claimed = {}
    for key, figure in paper.figures.items():
        for number in figure_numbers(paper.figure_title(figure))[1]:
            assert claimed.setdefault(number, key) == key
    assert paper.select(None) == list(paper.figures)


@pytest.mark.parametrize("paper", papers(), ids=lambda paper: paper.key)
def test_an_unknown_figure_is_one_line_listing_the_names(paper):
    with pytest.raises(ReproduceError) as error:
        paper.select(["99"])
    message = str(error.value)
    assert "\n" not in message and message.startswith("--figure 99:")
    for number in itertools.chain.from_iterable(figure_numbers(paper.figure_title(f))[1] for f in paper.figures.values()):
        assert str(number) in message


def test_figure_names_are_normalised():
    assert figure_name("Fig. 019") == "fig19"
    assert figure_name(" figure 7 ") == "figure7"
    assert figure_name(10) == "10"
    assert figure_numbers("Figures 12–15") == ("figure", [12, 13, 14, 15])
    assert figure_numbers("Figures 2, 3, 5") == ("figure", [2, 3, 5])
    assert figure_numbers("Table 1") == ("table", [1])


def test_cli_figure_names_agree(tmp_path):
    for paper, figure in (("westwood", "22"), ("zhang2002", "fig99"), ("slowcc", "Figure 1")):
        completed = run_cli("reproduce", paper, "--quick", "--figure", figure, "--out", tmp_path / paper)
        assert completed.returncode == 2, completed.stderr
        assert completed.stderr.startswith(f"error: --figure {figure}:"), completed.stderr
        assert len(completed.stderr.splitlines()) == 1
        assert not (tmp_path / paper).exists()


# ---------------------------------------------------------------- JSON in CSV cells
def test_cc_state_is_json_in_csv(tmp_path):
    scenario = {**SMALL_SCENARIO, "flows": [{"group": "w", "count": 2, "cc": "westwood-plus"}]}
    result = cclab.run(scenario)
    assert isinstance(result.flows["cc_state"][0], dict) and result.flows["cc_state"][0]
    result.save(tmp_path / "out")
    cells = pd.read_csv(tmp_path / "out" / "flows.csv")["cc_state"]
    states = [json.loads(cell) for cell in cells]
    assert states == list(result.flows["cc_state"])
