"""Figures 2–11 of Zhang & Tsaoussidis (2002), listed (:data:`FIGURES`). Each says what
to run, what to measure, how to draw it, and what the paper claims about it: those of
whole runs against a swept x in :mod:`~cclab.papers.zhang2002.goodput` (Figures 2, 3, 4
and 8; friendliness, 9–11), those over time in :mod:`~cclab.papers.zhang2002.over_time`
(handoffs, 5; a changing population, 6 and 7), on :mod:`~cclab.papers.zhang2002.shared`.
"""
from __future__ import annotations

from cclab.papers.zhang2002 import goodput, over_time, scenarios
from cclab.papers.zhang2002.scenarios import RESPONSIVE, SMOOTH
from cclab.papers.zhang2002.shared import Figure, single_panel_plot, sweep_points



# ---------------------------------------------------------------- the figures
_WIRELESS_NOTE = ("The wireless links are the sink access links (10 Mb/s, 5 ms) with a Bernoulli error model on "
                  "the data direction (§4.1); bottleneck and source links 100 Mb/s.")
_START_NOTE = "Flows start at random in their first second; seeds differ in those phases and in the loss draws."

FIGURES: dict[int, Figure] = {figure.number: figure for figure in (
    Figure(2, "wired_10mbps", "Goodput over wired network (10Mbps bottleneck link)", "§5.1",
           goodput.wired_points(2, "10Mbps"), goodput.measure_system,
           single_panel_plot("flows", "system_goodput_mbps", "Number of flows", "System goodput (Mb/s)",
                             "Figure 2: goodput over wired network (10 Mb/s bottleneck)", ylim=(0, 10.5)),
           goodput.claims_fig2, _START_NOTE),
    Figure(3, "wired_100mbps", "Goodput over wired network (100Mbps bottleneck link)", "§5.1",
           goodput.wired_points(3, "100Mbps"), goodput.measure_system,
           single_panel_plot("flows", "system_goodput_mbps", "Number of flows", "System goodput (Mb/s)",
                             "Figure 3: goodput over wired network (100 Mb/s bottleneck)"),
           goodput.claims_fig3, _START_NOTE),
    Figure(4, "wireless_per", "Goodput over heterogeneous network (100 flows, 100Mbps bottleneck, 10Mbps wireless link)",
           "§5.1",
           lambda sizes: sweep_points(4, sizes, lambda protocol, per, seed: scenarios.wireless(
               protocol, per, 100, sizes.duration_s, seed), sizes.wireless_pers, "per"),
           goodput.measure_system,
           single_panel_plot("per", "system_goodput_mbps", "Packet error rate of the wireless links",
                             "System goodput (Mb/s)", "Figure 4: goodput over heterogeneous network\n"
                             "(100 flows, 100 Mb/s bottleneck, 10 Mb/s wireless links)", ylim=(0, 100)),
           goodput.claims_fig4, _WIRELESS_NOTE),
    Figure(5, "handoff", "Allotted throughput with 1 sec. handoff (1 flow)", "§5.1",
           over_time.handoff_points, over_time.measure_handoffs, over_time.plot_handoffs, over_time.claims_fig5,
           "One flow; bottleneck and source link 100 Mb/s, the 10 Mb/s wireless sink link goes down at 5, 10, 15, "
           "… s for an exponential time (mean 1 s, at most 5 s). Recovery is timed in 100-ms bins from the first "
           "delivery after the outage (so the retransmission timer's back-off is not counted). We read the paper's "
           "\"allotted throughput\" as allotted goodput."),
    Figure(6, "increasing_flows", "Allotted fairness with increasing number of flows", "§5.2",
           over_time.dynamic_points(6, scenarios.INCREASING_FLOWS), over_time.measure_allotted,
           over_time.plot_dynamic("allotted_fairness", "Allotted fairness (Jain index over active flows)",
                         "Figure 6: allotted fairness with increasing number of flows (100 Mb/s bottleneck)",
                         scenarios.INCREASING_FLOWS, ylim=(0, 1.02)),
           over_time.claims_fig6,
           "100 Mb/s bottleneck as in the text of §5.2 (the paper's caption says 10 Mb/s). N = 12, 25, 50, 100 "
           "from 0, 15, 20, 25 s; joining flows start at random within 1 s of their step. Fairness is Jain's index "
           "over the flows active in the bin."),
    Figure(7, "decreasing_flows", "Allotted goodput with decreasing number of flows (100Mbps bottleneck link)",
           "§5.2",
           over_time.dynamic_points(7, scenarios.DECREASING_FLOWS), over_time.measure_allotted,
           over_time.plot_dynamic("allotted_goodput_mbps", "Allotted system goodput (Mb/s)",
                         "Figure 7: allotted goodput with decreasing number of flows (100 Mb/s bottleneck)",
                         scenarios.DECREASING_FLOWS),
           over_time.claims_fig7,
           "N = 100, 50, 25, 12 from 0, 15, 20, 25 s; a leaving flow stops offering new data at its step and "
           "still repairs its losses."),
    Figure(8, "playback_success", "70% application success percentage (100 flows, 100Mbps bottleneck, 10Mbps "
           "wireless link)", "§5.3",
           lambda sizes: sweep_points(8, sizes, lambda protocol, per, seed: scenarios.playback(
               protocol, per, 100, sizes.duration_s, seed), sizes.playback_pers, "per"),
           goodput.measure_playback,
           single_panel_plot("per", "success_70_percent", "Packet error rate of the wireless links",
                             "70 % application success percentage (%)",
                             "Figure 8: 70 % application success percentage\n(100 flows of 1 Mb/s CBR, "
                             "100 Mb/s bottleneck, 10 Mb/s wireless links)", ylim=(0, 102), symlog_below=0.01),
           goodput.claims_fig8,
           "Each flow carries a 1 Mb/s CBR source writing into its TCP socket; the bottleneck is 1 Mb/s × N = "
           "100 Mb/s (§4.1). An attempt is one whole second of a flow's run; it succeeds when the flow's goodput in "
           "that second exceeds 70 % of 1 Mb/s (§4.2). " + _WIRELESS_NOTE),
    Figure(9, "friendliness_smooth", "TCP (0.31, 0.875) competing with TCP (1, 0.5) flows (10Mbps bottleneck)",
           "§5.4", goodput.pair_points(9, SMOOTH), goodput.measure_pair, goodput.plot_pair(SMOOTH), goodput.claims_pair(9, SMOOTH),
           "Half the flows TCP(0.31, 0.875), half TCP(1, 0.5); also run on 100 Mb/s (right panel). " + _START_NOTE),
    Figure(10, "friendliness_intermediate", "TCP (0.583, 0.75) competing with TCP (1, 0.5) flows (10Mbps bottleneck)",
           "§5.4", goodput.pair_points(10, scenarios.SMOOTHER_THAN_STANDARD), goodput.measure_pair,
           goodput.plot_pair(scenarios.SMOOTHER_THAN_STANDARD), goodput.claims_pair(10, scenarios.SMOOTHER_THAN_STANDARD),
           "Half the flows TCP(0.583, 0.75), half TCP(1, 0.5); also run on 100 Mb/s (right panel). " + _START_NOTE),
    Figure(11, "friendliness_responsive", "TCP (1.25, 0.25) competing with TCP (1, 0.5) flows (10Mbps bottleneck)",
           "§5.4", goodput.pair_points(11, RESPONSIVE), goodput.measure_pair, goodput.plot_pair(RESPONSIVE),
           goodput.claims_pair(11, RESPONSIVE),
           "Half the flows TCP(1.25, 0.25), half TCP(1, 0.5); also run on 100 Mb/s (right panel). " + _START_NOTE),
)}
