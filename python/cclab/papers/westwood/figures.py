"""The Westwood paper's figures, listed (:data:`FIGURES`) with why a claim may fail. Each
says what to run, what to measure, how to draw it, and what the paper claims about it
(judged with :mod:`cclab.papers.claims`): the estimators' in
:mod:`~cclab.papers.westwood.estimates`, throughput, fairness and friendliness in
:mod:`~cclab.papers.westwood.throughput`, on :mod:`~cclab.papers.westwood.shared`.

Figures reproduced: 2–3 and 5 (BE, RE and ABSE estimates), 7 (ABSE's adaptive τ_k against
on/off UDP), 9–10 (ACK compression by two-way traffic), 11 (data packet compression by
cross traffic), 12–15 (one flow, the buffer varied), 16 (10 flows, the buffer varied), 18
(wired/wireless, the error rate varied), 19–21 (fairness, friendliness, joining flows).
Figures 7 and 11 run with our choice of what the paper does not give (Fig. 7's on/off
pattern, Fig. 11's delays and UDP exits).
"""
from __future__ import annotations

from cclab.papers.claims import OPEN, SETUP, Why, reasoned
from cclab.papers.paper import Figure
from cclab.papers.westwood import estimates, shared, throughput


# ---------------------------------------------------------------- why a claim may fail
# ns-2.35 with UCLA's agent runs NewReno and BE (`reproduce westwood --ns2` with CCLAB_NS
# naming such an ns: the figure is judged on its runs of those points and on cclab's of
# the rest); what else decides a claim, no simulator can check: the paper leaves it open.
NS2_RUNS_IT = Why(SETUP, "judged on NewReno and UCLA's BE alone, which ns-2 runs")
ABSE_OPEN = Why(OPEN, "ABSE's estimator: Eqs. 1 and 4–6 admit two readings (cclab's: one sample per interval, τ_k "
                      "from past samples; `reading`) and Eq. 2's RTT and T_min are unstated (here the smoothed RTT "
                      "and the last ACK gap); no code of ABSE was published to check against")
RE_OPEN = Why(OPEN, "RE's sampling: the paper gives T = RTT for Fig. 2(b) only, no filter τ and no code (here T "
                    "the smoothed RTT, τ = 1 s as BE, one sample per interval)")
RE_FIG3 = Why(OPEN, "RE's sampling and ACK accounting (no code published). Every reading cclab can express was tried "
                    "on this point (bench/westwood/re_fig3.py): τ 0.1–3 s gives 3.33–2.83 Mb/s, T 35 ms–2 s 3.25–2.93, "
                    "the literal reading 3.13, cumulative ACKs capped at 2 3.24, the RFC TCP rules 3.21 — none 2.4; "
                    "crediting duplicate ACKs nothing and capping cumulative ones at 2 (a trial change, not kept) "
                    "gives 1.69, so the paper's 2.4 lies within what its unpublished accounting could give")
TAU_OPEN = Why(OPEN, "Fig. 7's on/off pattern and the fixed τ it was compared with (not given; ours in the notes)")
CROSS_OPEN = Why(OPEN, "Fig. 11's hop delays and where the UDP flows leave the path (not given; ours in the notes), "
                       "and ABSE's estimator (see Figs. 2–5)")
PATH_OPEN = Why(OPEN, "Fig. 18's flow count, buffers and where the errors strike (not given: one flow, one-BDP "
                      "buffers, the wireless hop's data direction here), and ABSE's estimator")
CRB_OPEN = Why(OPEN, "CRB's threshold θ (not given; 1.4 here) and RE's sampling, on Fig. 18's path of unstated "
                     "flow count and buffers")


# ---------------------------------------------------------------- the registry
FIGURES: dict[str, Figure] = {
    "fig2": Figure("fig2", "Figures 2, 3, 5", "estimates", "BE, RE and ABSE estimates", "§3.1",
                   estimates.estimate_points, estimates.measure_estimates, estimates.estimate_plot,
                   reasoned(estimates.estimate_claims, (NS2_RUNS_IT, RE_OPEN, RE_FIG3, RE_OPEN, ABSE_OPEN)),
                   notes="5 Mb/s, 70 ms, buffer = pipe (42 packets); 2 flows of one protocol (congestion) or 1 flow "
                         "with 1 % random errors. RE samples over one smoothed RTT, BE and RE filter with τ = 1 s."),
    "fig7": Figure("fig7", "Figure 7", "adaptive_tau", "ABSE's adaptive τ_k under on/off UDP", "§3.2",
                   estimates.tau_points, estimates.measure_adaptive_tau, estimates.tau_plot, reasoned(estimates.tau_claims, (TAU_OPEN,)),
                   notes="One TCPW flow on 5 Mb/s, 70 ms, buffer = pipe (42); UDP CBR 2 Mb/s from 20 to 40 s and "
                         "3.5 Mb/s from 60 to 80 s (our pattern: the paper says only \"on-off non-adaptive UDP traffic "
                         "with time varying intensity\"); the estimator of Fig. 7 (`westwood-abse`, `sampling = "
                         "\"ack_pair\"`) against BE's filter with τ fixed at 1 s and at the RTT; 100-s runs in both "
                         "modes."),
    "fig9": Figure("fig9", "Figures 9, 10", "ack_compression", "Estimates under ACK compression (two-way traffic)",
                   "§4.1", estimates.two_way_points, estimates.measure_two_way, estimates.two_way_plot,
                   reasoned(estimates.two_way_claims, (NS2_RUNS_IT, ABSE_OPEN)),
                   notes="10 Mb/s, 70 ms, buffer = pipe (84); one forward flow, one reverse flow of the same protocol "
                         "from 20 to 40 s; error-free and 0.5 % random errors on the forward data. 60-s runs in "
                         "both modes (the paper's traces span 0–60 s)."),
    "fig11": Figure("fig11", "Figure 11", "cross_traffic", "Estimates under data packet compression (cross traffic)",
                    "§4.2", estimates.cross_points, estimates.measure_cross, estimates.cross_plot, reasoned(estimates.cross_claims, (CROSS_OPEN,)),
                    notes="4 hops of 20, 10, 20, 30 Mb/s, 8.75 ms each (our choice: a 70-ms RTT), one-BDP buffers; "
                          "5 Mb/s UDP CBR on hop 3 from 20 s and on hop 4 from 40 s, each leaving after its hop "
                          "(our choice); 60-s runs in both modes."),
    "fig12": Figure("fig12", "Figures 12–15", "buffer_single", "One connection, buffer varied", "§4.3.1",
                    throughput.single_points, shared.measure_system, throughput.single_plot,
                    reasoned(throughput.single_claims, (ABSE_OPEN, ABSE_OPEN, ABSE_OPEN)),
                    notes="One flow on 5 Mb/s, 70 ms (pipe 42 packets of 1040 bytes); cwnd traces at buffers 4 and "
                          "160 (seed 1)."),
    "fig16": Figure("fig16", "Figure 16", "buffer_many", "Ten connections, buffer varied", "§4.3.2",
                    throughput.many_points, shared.measure_system, throughput.many_plot, reasoned(throughput.many_claims, (ABSE_OPEN,) * 3),
                    notes="10 flows of one protocol on 45 Mb/s, 70 ms (pipe ≈ 400 packets)."),
    "fig18": Figure("fig18", "Figure 18", "wired_wireless", "Throughput vs link error rate", "§4.4",
                    throughput.wireless_points, shared.measure_system, throughput.wireless_plot,
                    reasoned(throughput.wireless_claims, (PATH_OPEN, PATH_OPEN, CRB_OPEN)),
                    notes="One flow over Fig. 17's path (`kind = \"wired-wireless\"`), Bernoulli errors on the "
                          "wireless hop's data direction; the paper gives neither the flow count nor the buffers: "
                          "one flow, one-BDP buffers."),
    "fig19": Figure("fig19", "Figure 19", "fairness", "Fairness of 10 connections", "§5.1",
                    throughput.fairness_points, shared.measure_system, throughput.fairness_plot, reasoned(throughput.fairness_claims, (ABSE_OPEN,)),
                    notes="10 flows of one protocol, 10 Mb/s, 70 ms, buffer = pipe (84)."),
    "fig20": Figure("fig20", "Figure 20", "friendliness", "Friendliness towards NewReno", "§5.2",
                    throughput.friendly_points, shared.measure_system, throughput.friendly_plot,
                    reasoned(throughput.friendly_claims, (NS2_RUNS_IT, ABSE_OPEN)),
                    notes="k NewReno and 10 − k BE (a) or ABSE (b) flows, 10 Mb/s, 70 ms, buffer = pipe."),
    "fig21": Figure("fig21", "Figure 21", "joining", "Transient dynamics: 5 flows join 5", "§5.3",
                    throughput.joining_points, throughput.measure_joining, throughput.joining_plot, reasoned(throughput.joining_claims, (ABSE_OPEN,)),
                    notes="5 ABSE flows from the start; 5 new ABSE (a) or NewReno (b) flows start within a second "
                          "of half the run."),
}
