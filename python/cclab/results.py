"""The outcome of one simulation run, as dicts and pandas DataFrames.

pandas is imported when a table is first asked for, not before: a result read only as
JSON (``cclab run --json``) never loads it.
"""
from __future__ import annotations

import json
from functools import cached_property
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from cclab.plots.html import result_html
from cclab.store.directory import read as read_directory
from cclab.store.directory import save as save_directory

if TYPE_CHECKING:
    import pandas as pd


class Result:
    """One run: ``raw`` is the engine's JSON document, the other attributes are views of it.

    * ``scenario``: the normalized scenario that ran (every default filled in).
    * ``system``: system metrics, plus duration_s, events, data_packets_sent, wall_time_s.
    * ``flows`` / ``groups``: one row per flow / per group (TCP-only columns are null for
      UDP flows and the other way round).
    * ``links``: one row per link direction (name, from, to, rate, drops, marks,
      utilization, mean queueing delay, ...).
    * ``queues``: one row per internal queue of a multi-queue discipline (DualPI2's L and C:
      packets, mean/max delay, marks, drops), or None.
    * ``bins``: per-flow goodput per time bin (bin_start_s, flow_id, group, delivered_bytes,
      goodput_mbps).
    * ``bottleneck_bins``: the bottleneck per bin (arrivals, drops, transmitted bytes,
      utilization, loss rate).
    * ``system_bins``: allotted system goodput and allotted fairness per bin (paper §4.2).
    * ``traces``: ``{"flows": ..., "bottleneck_queue": ..., "links": ...}`` DataFrames (and
      ``delay_histogram`` / ``queue_delay_histogram`` when asked for), or None when the
      scenario asked for no tracing.
    """

    def __init__(self, raw: dict[str, Any]):
        self.raw = raw

    @classmethod
    def from_json(cls, text: str) -> "Result":
        return cls(json.loads(text))

    def to_json(self, indent: Optional[int] = None) -> str:
        return json.dumps(self.raw, indent=indent)

    @classmethod
    def load(cls, directory: str | PathLike) -> "Result":
        """Read back a result written by :meth:`save`."""
        return cls(read_directory(directory))

    def save(self, directory: str | PathLike) -> Path:
        """Write this result to ``directory`` (see :func:`cclab.store.directory.save`)."""
        return save_directory(self, directory)

    @property
    def scenario(self) -> dict[str, Any]:
        return self.raw["scenario"]

    @property
    def warnings(self) -> list[str]:
        """Legal but probably unintended settings of the scenario, one line each."""
        return list(self.raw.get("warnings", []))

    @property
    def duration_s(self) -> float:
        return float(self.raw["duration_s"])

    @cached_property
    def system(self) -> dict[str, Any]:
        run_totals = {key: self.raw[key] for key in ("duration_s", "events", "data_packets_sent", "wall_time_s")}
        return {**self.raw["system"], **run_totals}

    @cached_property
    def flows(self) -> pd.DataFrame:
        import pandas as pd

        flows = pd.DataFrame(self.raw["flows"])
        if flows.empty:  # only arriving flows (see fcts): the columns, no rows
            flows = pd.DataFrame(columns=["id", "group", "transport", "cc", "goodput_mbps", "throughput_mbps",
                                          "start_s", "stop_s"])
        if "stop_s" in flows:  # null (runs to the end) becomes NaN in a float column
            flows["stop_s"] = flows["stop_s"].astype(float)
        return flows

    @cached_property
    def groups(self) -> pd.DataFrame:
        """One row per flow group; groups with finite flows add their completion times
        (``fct_flows``, ``fct_completed``, ``mean_fct_ms``, ``p50_fct_ms``, ``p99_fct_ms``
        and the same of ``slowdown``, ``fct_percentiles_exact``: false past 10 000
        completed flows, where they are within 0.1 %; by size in :attr:`fct_by_size`)."""
        import pandas as pd

        rows = []
        for group in self.raw["groups"]:
            row = {key: value for key, value in group.items() if key != "fct"}
            fct = group.get("fct")
            if fct:
                row.update({"fct_flows": fct["flows"], "fct_completed": fct["completed"],
                            "fct_percentiles_exact": fct["percentiles_exact"]})
                row.update({key: fct[key] for key in fct if key.endswith(("_ms", "_slowdown")) or key == "mean_slowdown"})
            rows.append(row)
        return pd.DataFrame(rows)

    @cached_property
    def fcts(self) -> Optional[pd.DataFrame]:
        """Every finite flow (flows with a size, and flows that arrived): group,
        start_s, size_bytes, completed, fct_ms, ideal_fct_ms, slowdown; None without any."""
        import pandas as pd

        table = self.raw.get("fcts")
        if not table:
            return None
        frame = pd.DataFrame(table)
        for column in ("fct_ms", "slowdown"):
            frame[column] = frame[column].astype(float)  # null (not completed) as NaN
        return frame

    @cached_property
    def fct_by_size(self) -> Optional[pd.DataFrame]:
        """Completion-time percentiles of each group's finite flows by size bucket."""
        import pandas as pd

        rows = [{"group": group["name"], **bucket} for group in self.raw["groups"] if group.get("fct")
                for bucket in group["fct"]["by_size"]]
        return pd.DataFrame(rows) if rows else None

    @cached_property
    def links(self) -> pd.DataFrame:
        import pandas as pd

        links = pd.DataFrame([{k: v for k, v in link.items() if k != "queues"} for link in self.raw["links"]])
        first = ["name", "from", "to", "rate_mbps", "delay_ms", "buffer_packets"]
        return links[first + [c for c in links.columns if c not in first]]

    @cached_property
    def queues(self) -> Optional[pd.DataFrame]:
        """One row per internal queue of a discipline that has several (DualPI2's L and C):
        link, queue, packets sent, mean and max queueing delay (ms), marks, drops; None
        when no link has one."""
        import pandas as pd

        rows = [{"link": link["name"], "queue": q["name"], **{k: v for k, v in q.items() if k != "name"}}
                for link in self.raw["links"] for q in link.get("queues", [])]
        return pd.DataFrame(rows) if rows else None

    @cached_property
    def bins(self) -> pd.DataFrame:
        from cclab.analysis import metrics as analysis

        bins = self.raw["bins"]
        table = analysis.bin_goodput(bins["delivered_bytes"], bins["width_s"], self.duration_s)
        group_of_flow = dict(zip(self.flows["id"], self.flows["group"]))
        table.insert(2, "group", table["flow_id"].map(group_of_flow))
        return table

    @property
    def bottleneck_rate_mbps(self) -> float:
        """The bottleneck link's nominal rate."""
        name = self.raw["system"]["bottleneck_link"]
        return float(next(link["rate_mbps"] for link in self.raw["links"] if link["name"] == name))

    @cached_property
    def bottleneck_bins(self) -> pd.DataFrame:
        """The bottleneck per bin: bin_start_s, arrivals, drops, transmitted_bytes,
        utilization (of its nominal rate) and loss_rate (drops ÷ arrivals; NaN if none)."""
        import numpy as np
        import pandas as pd

        bins = self.raw["bins"]
        width = float(bins["width_s"])
        arrivals = np.asarray(bins.get("bottleneck_arrivals", []), dtype=np.int64)
        drops = np.asarray(bins.get("bottleneck_drops", []), dtype=np.int64)
        sent = np.asarray(bins.get("bottleneck_transmitted_bytes", []), dtype=np.int64)
        rate_bps = self.bottleneck_rate_mbps * 1e6
        with np.errstate(invalid="ignore", divide="ignore"):
            loss_rate = np.where(arrivals > 0, drops / np.maximum(arrivals, 1), np.nan)
        return pd.DataFrame({
            "bin_start_s": np.arange(len(arrivals)) * width,
            "arrivals": arrivals,
            "drops": drops,
            "transmitted_bytes": sent,
            "utilization": sent * 8 / (rate_bps * width),
            "loss_rate": loss_rate,
        })

    @cached_property
    def system_bins(self) -> pd.DataFrame:
        from cclab.analysis import metrics as analysis

        return analysis.allotted(self.bins, self.flows, self.raw["bins"]["width_s"])

    @cached_property
    def traces(self) -> Optional[dict[str, pd.DataFrame]]:
        import pandas as pd

        traces = self.raw.get("traces")
        if not traces:
            return None
        tables = {}
        if traces.get("flows"):
            flows = pd.concat(
                [
                    pd.DataFrame({key: values for key, values in flow.items() if key != "id"}).assign(flow_id=flow["id"])
                    for flow in traces["flows"]
                ],
                ignore_index=True,
            )
            # what caused the row, the window, then the algorithm's own state (cc_* columns)
            window = [c for c in ("flow_id", "t_s", "event", "cwnd", "ssthresh", "srtt_ms") if c in flows.columns]
            tables["flows"] = flows[window + sorted(c for c in flows.columns if c not in window)]
        if traces.get("bottleneck_queue"):
            tables["bottleneck_queue"] = pd.DataFrame(traces["bottleneck_queue"])[["t_s", "packets"]]
        if traces.get("links"):
            # one row per (link direction, bin), the link named in the first column
            tables["links"] = pd.concat(
                [pd.DataFrame({key: values for key, values in link.items() if key != "name"}).assign(link=link["name"])
                 for link in traces["links"]],
                ignore_index=True,
            )
            columns = list(tables["links"].columns)
            tables["links"] = tables["links"][["link"] + [c for c in columns if c != "link"]]
        if traces.get("delay_histograms"):
            # one row per (flow, bin): the bin's lower edge and the packets in it; an
            # arrivals group's arrived flows together (flow_id null, their group named)
            histograms = traces["delay_histograms"]
            by_group = any("group" in histogram for histogram in histograms)
            tables["delay_histogram"] = pd.concat(
                [pd.DataFrame({"flow_id": pd.array([histogram.get("flow")] * len(histogram["counts"]), dtype="Int64")
                               if by_group else histogram["flow"],
                               **({"group": histogram.get("group")} if by_group else {}),
                               "delay_ms": [k * histogram["bin_ms"] for k in range(len(histogram["counts"]))],
                               "packets": histogram["counts"]})
                 for histogram in histograms],
                ignore_index=True,
            )
        if traces.get("queue_delay_histograms"):
            # one row per (link direction, bin): the bin's lower edge and the packets in it
            tables["queue_delay_histogram"] = pd.concat(
                [pd.DataFrame({"link": histogram["link"],
                               "delay_ms": [k * histogram["bin_ms"] for k in range(len(histogram["counts"]))],
                               "packets": histogram["counts"]})
                 for histogram in traces["queue_delay_histograms"]],
                ignore_index=True,
            )
        return tables or None

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table of this result by file stem: flows, groups, links, bins, system_bins,
        with finite flows fcts and fct_by_size, with DualPI2 queues, and when traced trace_flows,
        trace_bottleneck_queue, trace_links and the histograms asked for."""
        tables = {"flows": self.flows, "groups": self.groups, "links": self.links, "bins": self.bins,
                  "system_bins": self.system_bins}
        for name in ("fcts", "fct_by_size", "queues"):
            table = getattr(self, name)
            if table is not None:
                tables[name] = table
        for name, table in (self.traces or {}).items():
            tables[f"trace_{name}"] = table
        return tables

    def _repr_html_(self) -> str:
        """Jupyter's view: system metrics and one row per group, as HTML tables."""
        return result_html(self)

    def __repr__(self) -> str:
        system = self.raw["system"]
        return (
            f"<cclab.Result {self.scenario.get('name', '')!r}: {len(self.raw['flows'])} flows, "
            f"{self.duration_s:g} s, goodput {system['goodput_mbps']:.3f} Mb/s, Jain {system['jain_index']:.3f}>"
        )
