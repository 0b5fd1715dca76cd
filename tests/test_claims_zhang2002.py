"""Every claim of the zhang2002 reproduction on small synthetic tables: for each figure a
table on which every one of its claims must be supported and one on which every one must
be not supported, so a flipped sign, a swapped protocol or a wrong window in any claim
fails here. Adding a claim without a case fails :func:`test_every_claim_is_covered`.

The tables have the columns the figure's ``measure`` writes (mean over the seeds given).
"""
from __future__ import annotations

import math

import pandas as pd
import pytest
from claim_cases import claim_tests

from cclab.papers.claims import NOT_SUPPORTED, PARTLY, SUPPORTED
from cclab.papers.zhang2002 import scenarios
from cclab.papers.zhang2002.goodput import LOW_PER, breakdown_per
from cclab.papers.zhang2002.figures import FIGURES
from cclab.papers.zhang2002.scenarios import RESPONSIVE, SMOOTH, protocol_label
from cclab.papers.zhang2002.shared import LABELS, QUICK, RESPONSIVE_LABEL, SMOOTH_LABEL, STANDARD_LABEL

SEEDS = (1, 2)
RANK = {label: rank for rank, label in enumerate(LABELS)}  # 0 = smoothest (β 0.875) … 3 = most responsive
SECOND = LABELS[1]  # TCP(0.583, 0.75)


def runs(x_name: str, xs, value: str, value_of) -> dict[str, pd.DataFrame]:
    """One row per protocol, x and seed: ``value_of(label, x)``."""
    return {"runs": pd.DataFrame([{x_name: x, "protocol": label, "seed": seed, value: value_of(label, x)}
                                  for x in xs for label in LABELS for seed in SEEDS])}


def series(value: str, level_of, seconds: int = 50) -> dict[str, pd.DataFrame]:
    """1-s bins for every protocol and seed; ``level_of(label, t)`` gives the value."""
    return {"series": pd.DataFrame([{"protocol": label, "seed": seed, "bin_start_s": float(t),
                                     value: level_of(label, t)}
                                    for label in LABELS for seed in SEEDS for t in range(seconds)])}


# ---------------------------------------------------------------- Figures 2 and 3 (goodput vs N)
def fig2(spread_of) -> dict:
    return runs("flows", QUICK.flow_counts, "system_goodput_mbps",
                lambda label, n: 9.5 - spread_of(label, n))


def fig3(by_beta: bool) -> dict:
    # Ordered by β (smoothest highest) 1 Mb/s apart, or the reverse.
    return runs("flows", QUICK.flow_counts, "system_goodput_mbps",
                lambda label, n: 95.0 - RANK[label] if by_beta else 92.0 + RANK[label])


# ---------------------------------------------------------------- Figure 4 (goodput vs PER)
def fig4(holds: bool) -> dict:
    def goodput(label, per):
        if per <= LOW_PER:  # the smooth TCP 1 Mb/s ahead at every low PER (or behind)
            return 50.0 + ((1.0 if holds else -1.0) if label == SMOOTH_LABEL else 0.0)
        if per < max(QUICK.wireless_pers):
            return 40.0
        # At the highest PER ordered by α (responsive first, 2 Mb/s apart), or by β.
        return 30.0 + 2 * RANK[label] if holds else 36.0 - 2 * RANK[label]

    return runs("per", QUICK.wireless_pers, "system_goodput_mbps", goodput)


# ---------------------------------------------------------------- Figure 5 (handoffs)
def fig5(holds: bool) -> dict:
    alpha_rank = RANK if holds else {label: 3 - rank for label, rank in RANK.items()}
    handoffs = pd.DataFrame([{"protocol": label, "seed": seed, "handoff": k, "resumed_s": 10.0 * k + 5,
                              "ssthresh_after": 2.0 if holds else 4.0,
                              "goodput_after_mbps": 1.0 + 0.5 * alpha_rank[label], "recovery_s": 1.0}
                             for label in LABELS for seed in SEEDS for k in (1, 2, 3)])
    jumpy = SMOOTH_LABEL if holds else RESPONSIVE_LABEL  # the one whose 1-s goodput swings 2 ↔ 8 Mb/s
    bins = pd.DataFrame([{"protocol": label, "seed": seed, "bin_start_s": float(t),
                          "goodput_mbps": (2.0 if t % 2 else 8.0) if label == jumpy else 5.0}
                         for label in LABELS for seed in SEEDS for t in range(20)])
    return {"handoffs": handoffs, "series": bins}


# ---------------------------------------------------------------- Figure 6 (fairness, flows join)
def fig6(holds: bool) -> dict:
    # After the 25 s arrivals each protocol's fairness stays at 0.8 for this many seconds.
    low_for = {RESPONSIVE_LABEL: 3, STANDARD_LABEL: 5, SECOND: 6, SMOOTH_LABEL: 8}
    if not holds:
        low_for = {label: 11 - seconds for label, seconds in low_for.items()}  # the responsive TCP slowest

    def fairness(label, t):
        if t < 15:  # smoother is fairer, 0.01 apart (or the reverse)
            return 0.99 - 0.01 * RANK[label] if holds else 0.96 + 0.01 * RANK[label]
        if t >= 25 and t < 25 + low_for[label]:
            return 0.8
        if t >= 30:  # late: the responsive TCP highest, 0.01 apart (or lowest)
            return 0.96 + 0.01 * RANK[label] if holds else 0.99 - 0.01 * RANK[label]
        if holds and any(step <= t < step + 3 for step in (15, 20)):
            return 0.8  # a drop that lasts past the joining second
        return 0.99 if holds else (0.6 if t in (15, 20) else 0.99)  # only the joining second: the artefact

    return series("allotted_fairness", fairness)


# ---------------------------------------------------------------- Figure 7 (goodput, flows leave)
def fig7(holds: bool) -> dict:
    if holds:
        before = {label: 90.0 - RANK[label] for label in LABELS}  # by β, 1 Mb/s apart
        after = {SMOOTH_LABEL: 90.0, SECOND: 92.0, STANDARD_LABEL: 99.0, RESPONSIVE_LABEL: 93.0}
        # Seconds at half rate after each step: the responsive TCP 1, the others 2, the smooth
        # TCP 4 after the last step (fewer flows, slower).
        dip = {(label, step): 1 if label == RESPONSIVE_LABEL else (4 if (label, step) == (SMOOTH_LABEL, 25) else 2)
               for label in LABELS for step in (15, 20, 25)}
    else:
        before = {label: 80.0 + RANK[label] for label in LABELS}  # against β
        after = {SMOOTH_LABEL: 99.0, SECOND: 92.0, STANDARD_LABEL: 85.0, RESPONSIVE_LABEL: 90.0}
        dip = {(label, step): 0 for label in LABELS for step in (15, 20, 25)}  # no drop, all back at once

    def goodput(label, t):
        passed = [step for step in (15, 20, 25) if step <= t]
        if not passed:
            return before[label]
        return 50.0 if t - passed[-1] < dip[(label, passed[-1])] else after[label]

    return series("allotted_goodput_mbps", goodput)


# ---------------------------------------------------------------- Figure 8 (playback)
def fig8(holds: bool) -> dict:
    pers = QUICK.playback_pers  # 0, 0.005, 0.02, 0.05, 0.4
    if holds:  # the smooth TCP ahead at PER 0 and the first to halve (by 0.02; the others by 0.4)
        curves = {SMOOTH_LABEL: (95, 90, 30, 10, 0)}
        default = (90, 88, 85, 60, 10)
    else:  # the smooth TCP behind at PER 0 and never halving
        curves = {SMOOTH_LABEL: (85, 84, 83, 82, 80)}
        default = (90, 88, 85, 60, 10)
    return runs("per", pers, "success_70_percent",
                lambda label, per: curves.get(label, default)[pers.index(per)])


# ---------------------------------------------------------------- Figures 9–11 (friendliness)
def pair(share_10mbps: float, share_100mbps: float):
    """``runs`` for a pair figure: the protocol's group takes these shares of the goodput."""
    def tables(label: str) -> dict:
        rows = []
        for bottleneck, share in (("10Mbps", share_10mbps), ("100Mbps", share_100mbps)):
            for flows in QUICK.flow_counts:
                for seed in SEEDS:
                    for group, mine in ((label, share), (STANDARD_LABEL, 1 - share)):
                        rows.append({"bottleneck": bottleneck, "flows": flows, "seed": seed, "group": group,
                                     "share": mine, "aggregated_goodput_mbps": 10.0 * mine})
        return {"runs": pd.DataFrame(rows)}

    return tables


def pair_cases(figure: int) -> tuple[dict, dict]:
    label = protocol_label(_PAIR_PROTOCOLS[figure])
    smooth = _PAIR_PROTOCOLS[figure][1] > 0.5
    # A smooth protocol claims < 47.5 % on 10 Mb/s, a responsive one > 52.5 %; both 40–60 % on 100 Mb/s.
    holds = pair(0.40 if smooth else 0.60, 0.5)(label)
    fails = pair(0.55 if smooth else 0.45, 0.7)(label)
    return holds, fails


_PAIR_PROTOCOLS = {9: SMOOTH, 10: scenarios.SMOOTHER_THAN_STANDARD, 11: RESPONSIVE}

CASES = {
    2: (fig2(lambda label, n: 0.0), fig2(lambda label, n: 1.5 if label == RESPONSIVE_LABEL else 0.0)),
    3: (fig3(True), fig3(False)),
    4: (fig4(True), fig4(False)),
    5: (fig5(True), fig5(False)),
    6: (fig6(True), fig6(False)),
    7: (fig7(True), fig7(False)),
    8: (fig8(True), fig8(False)),
    **{figure: pair_cases(figure) for figure in (9, 10, 11)},
}


def claims_of(figure: int, tables: dict) -> list:
    return FIGURES[figure].claims(tables, QUICK)


(test_every_claim_is_covered, test_claim_is_supported_where_it_must_hold,
 test_claim_is_not_supported_where_it_must_fail, test_claim_states_its_rule) = claim_tests(CASES, claims_of, FIGURES)


# ---------------------------------------------------------------- ties: "beats" needs a margin
S, N = SUPPORTED, NOT_SUPPORTED
# Every protocol identical: claims that one beats another must fail; claims that they are
# alike (or that a drop to ssthresh 2 happens) hold.
TIES = {
    2: (runs("flows", QUICK.flow_counts, "system_goodput_mbps", lambda label, n: 9.5), [S]),
    3: (runs("flows", QUICK.flow_counts, "system_goodput_mbps", lambda label, n: 95.0), [N, N]),
    4: (runs("per", QUICK.wireless_pers, "system_goodput_mbps", lambda label, per: 50.0 - 100 * per), [N, N, N, N]),
    5: ({"handoffs": fig5(True)["handoffs"].assign(goodput_after_mbps=2.0),
         "series": fig5(True)["series"].assign(goodput_mbps=5.0)}, [S, N, N]),
    6: (series("allotted_fairness", lambda label, t: 0.99), [N, N, N, N]),
    7: (series("allotted_goodput_mbps", lambda label, t: 90.0), [N, N, N, N, N, N]),
    8: (runs("per", QUICK.playback_pers, "success_70_percent", lambda label, per: 90.0 - 200 * per), [N, N]),
    **{figure: (pair(0.5, 0.5)(protocol_label(_PAIR_PROTOCOLS[figure])), [N, S]) for figure in (9, 10, 11)},
}


@pytest.mark.parametrize("figure", sorted(TIES))
def test_identical_protocols(figure):
    tables, expected = TIES[figure]
    assert [claim.verdict for claim in claims_of(figure, tables)] == expected


# ---------------------------------------------------------------- rules at their edges
def test_fig2_spread_is_five_percent_at_every_n():
    just_inside = fig2(lambda label, n: 0.049 * 9.5 if label == RESPONSIVE_LABEL else 0.0)
    just_outside = fig2(lambda label, n: 0.051 * 9.5 if label == RESPONSIVE_LABEL and n == 100 else 0.0)
    assert claims_of(2, just_inside)[0].verdict == SUPPORTED
    assert claims_of(2, just_outside)[0].verdict == PARTLY  # 3 of 4 values of N


def test_fig3_compares_at_the_fewest_flows():
    # Ordered by β at the fewest flows only: claim 1 holds, claim 2 (every N) does not.
    fewest = min(QUICK.flow_counts)
    tables = runs("flows", QUICK.flow_counts, "system_goodput_mbps",
                  lambda label, n: 95.0 - RANK[label] if n == fewest else 92.0 + RANK[label])
    assert [claim.verdict for claim in claims_of(3, tables)] == [SUPPORTED, NOT_SUPPORTED]


def test_fig3_order_needs_more_than_the_margin():
    within_margin = runs("flows", QUICK.flow_counts, "system_goodput_mbps", lambda label, n: 95.0 - 0.4 * RANK[label])
    assert [claim.verdict for claim in claims_of(3, within_margin)] == [NOT_SUPPORTED, NOT_SUPPORTED]


def test_fig5_every_handoff_counts():
    tables = fig5(True)
    handoffs = tables["handoffs"].copy()
    handoffs.loc[handoffs.index[:3], "ssthresh_after"] = 3.0  # 3 of 24 handoffs keep a larger ssthresh
    assert claims_of(5, {**tables, "handoffs": handoffs})[0].verdict == PARTLY


def test_fig8_a_protocol_breaking_down_as_early_is_not_later():
    tables = fig8(True)
    rows = tables["runs"].copy()
    early = {0.0: 95, 0.005: 90, 0.02: 30, 0.05: 10, 0.4: 0}
    rows.loc[rows["protocol"] == RESPONSIVE_LABEL, "success_70_percent"] = rows["per"].map(early)
    assert claims_of(8, {"runs": rows})[1].verdict == NOT_SUPPORTED


def test_fig5_smoothness_leaves_out_the_outages():
    # The responsive TCP is steady at 5 Mb/s except for outage bins at 0: outside outages
    # it varies less than the smooth TCP (2 ↔ 8); counting the outages would reverse that.
    tables = fig5(True)
    bins = tables["series"].copy()
    outage = (bins["protocol"] == RESPONSIVE_LABEL) & (bins["bin_start_s"] % 2 == 0)  # CoV 1.0 if counted
    bins.loc[outage, "goodput_mbps"] = 0.0
    assert claims_of(5, {**tables, "series": bins})[2].verdict == SUPPORTED


def fig7_levels(after: dict, dips: dict | None = None) -> dict:
    """Figure 7 series: 90 before 15 s, then ``after[label]``, at 50 for ``dips[label]``
    seconds after each step (default 1)."""
    dips = dips or {}

    def goodput(label, t):
        passed = [step for step in (15, 20, 25) if step <= t]
        if not passed:
            return 90.0
        return 50.0 if t - passed[-1] < dips.get(label, 1) else after[label]

    return series("allotted_goodput_mbps", goodput)


def test_fig7_lowest_and_highest_must_clear_every_other_protocol():
    close = {SMOOTH_LABEL: 90.0, SECOND: 90.02, STANDARD_LABEL: 99.0, RESPONSIVE_LABEL: 98.99}
    verdicts = [claim.verdict for claim in claims_of(7, fig7_levels(close))]
    assert verdicts[2:4] == [NOT_SUPPORTED, NOT_SUPPORTED]  # each within 0.05 Mb/s of the next
    apart = {SMOOTH_LABEL: 90.0, SECOND: 91.0, STANDARD_LABEL: 99.0, RESPONSIVE_LABEL: 98.0}
    assert [claim.verdict for claim in claims_of(7, fig7_levels(apart))][2:4] == [SUPPORTED, SUPPORTED]


def test_fig7_fastest_must_beat_the_fastest_other():
    after = {label: 90.0 for label in LABELS}
    # The responsive TCP (2 s) beats two protocols (3 s) but not the quickest (1 s).
    dips = {RESPONSIVE_LABEL: 2, SMOOTH_LABEL: 3, SECOND: 1, STANDARD_LABEL: 3}
    assert claims_of(7, fig7_levels(after, dips))[4].verdict == NOT_SUPPORTED


# ---------------------------------------------------------------- the rules issue 16 fixed
def fig4_runs(smooth_minus_responsive: dict[float, float]) -> dict[str, pd.DataFrame]:
    def goodput(label, per):
        if label == SMOOTH_LABEL:
            return 50.0 + smooth_minus_responsive.get(per, 0.0)
        return 50.0 - 10 * per * RANK[label]

    return runs("per", QUICK.wireless_pers, "system_goodput_mbps", goodput)


def fig4_claim1(table) -> str:
    return claims_of(4, table)[0].verdict


def test_fig4_low_per_claim_needs_the_smooth_tcp_ahead_at_each_low_per():
    assert fig4_claim1(fig4_runs({0.0: 1.0, 0.01: 1.0, 0.02: 1.0})) == SUPPORTED
    assert fig4_claim1(fig4_runs({0.0: 1.0, 0.01: 1.0, 0.02: -1.0})) == PARTLY
    # The old rule called ties everywhere but one PER "supported".
    assert fig4_claim1(fig4_runs({0.02: 1.0})) == NOT_SUPPORTED
    assert fig4_claim1(fig4_runs({0.0: -1.0, 0.01: -1.0, 0.02: -1.0})) == NOT_SUPPORTED


# ---------------------------------------------------------------- zhang2002 Figures 6 and 7 (time series)
def fig6_claims(level_of) -> list:
    return claims_of(6, series("allotted_fairness", level_of))


def test_fig6_join_drop_counts_only_once_the_newcomers_have_sent_a_second():
    steps = (15, 20, 25)

    def only_in_the_joining_bin(label, t):
        return 0.6 if t in steps else 0.95  # the artefact of idle newcomers, then straight back

    def lasting(label, t):
        return 0.7 if any(step <= t < step + 3 for step in steps) else 0.95

    assert fig6_claims(only_in_the_joining_bin)[1].verdict == NOT_SUPPORTED
    assert fig6_claims(lasting)[1].verdict == SUPPORTED


def test_fig6_highest_late_fairness_must_beat_each_other_protocol():
    def late(ahead_by: dict):
        return lambda label, t: 0.9 + ahead_by.get(label, 0.0)

    assert fig6_claims(late({RESPONSIVE_LABEL: 0.02}))[3].verdict == SUPPORTED
    assert fig6_claims(late({RESPONSIVE_LABEL: 0.02, SMOOTH_LABEL: 0.03}))[3].verdict == PARTLY  # ahead of 2 of 3
    assert fig6_claims(late({}))[3].verdict == NOT_SUPPORTED  # all tied


def fig7_recoveries(recovery_s: dict, never: tuple = ()) -> list:
    """Allotted goodput 10 before each step (15, 20, 25 s), 5 in the step's bin, back to
    10 after ``recovery_s[label]`` seconds. Protocols in ``never`` halve at every step
    and stay there (never back at their pre-step level)."""
    def level_of(label, t):
        passed = [s for s in (15, 20, 25) if s <= t]
        if label in never:
            return 10.0 / 2 ** len(passed)
        if not passed:
            return 10.0
        return 10.0 if t - passed[-1] >= recovery_s[label] else 5.0

    return claims_of(7, series("allotted_goodput_mbps", level_of))


def test_fig7_fastest_recovery_is_the_time_to_recover():
    fast = {label: 3 for label in LABELS} | {RESPONSIVE_LABEL: 1}
    assert fig7_recoveries(fast)[4].verdict == SUPPORTED
    tied = {label: 1 for label in LABELS}
    assert fig7_recoveries(tied)[4].verdict == NOT_SUPPORTED
    slow = {label: 1 for label in LABELS} | {RESPONSIVE_LABEL: 3}
    assert fig7_recoveries(slow)[4].verdict == NOT_SUPPORTED


def test_fig7_never_recovering_is_one_cap_at_every_step():
    # The smooth TCP never recovers after any step: the same cap everywhere, so it is
    # not "slower after the 25 s step" (the old caps, 5 s vs 25 s, said it was).
    claim = fig7_recoveries({label: 2 for label in LABELS}, never=(SMOOTH_LABEL,))[5]
    assert claim.verdict == NOT_SUPPORTED and "5.00 s after 15 s, 5.00 s after 25 s" in claim.evidence


def test_fig7_smooth_slower_with_fewer_flows_needs_a_real_difference():
    def slower_after_25(label, t):
        passed = [s for s in (15, 20, 25) if s <= t]
        if not passed:
            return 10.0
        wait = 3 if (label == SMOOTH_LABEL and passed[-1] == 25) else 1
        return 10.0 if t - passed[-1] >= wait else 5.0

    assert claims_of(7, series("allotted_goodput_mbps", slower_after_25))[5].verdict == SUPPORTED
    assert fig7_recoveries({label: 2 for label in LABELS})[5].verdict == NOT_SUPPORTED  # the same at both steps


def test_pair_many_flows_starts_at_fifty():
    # The smooth TCP is fair at N = 50 (share 50 %) and too conservative above: claim 1
    # looks at N ≥ 50, so 2 of 3 values of N hold.
    label = SMOOTH_LABEL
    rows = []
    for bottleneck in ("10Mbps", "100Mbps"):
        for flows in (10, 50, 60, 100):
            share = 0.5 if (bottleneck == "100Mbps" or flows <= 50) else 0.4
            for seed in SEEDS:
                for group, mine in ((label, share), (STANDARD_LABEL, 1 - share)):
                    rows.append({"bottleneck": bottleneck, "flows": flows, "seed": seed, "group": group,
                                 "share": mine, "aggregated_goodput_mbps": 10.0 * mine})
    assert claims_of(9, {"runs": pd.DataFrame(rows)})[0].verdict == PARTLY


def test_fig7_first_drop_is_the_first_second_after_the_step():
    # A one-second dip at 15 s followed by an overshoot: the 15–16 s bin is the drop.
    def goodput(label, t):
        return {15: 50.0, 16: 200.0}.get(t, 90.0)

    assert claims_of(7, series("allotted_goodput_mbps", goodput))[1].verdict == SUPPORTED


def test_fig6_join_drop_is_against_the_second_before():
    # Fairness low two seconds before each step, high in the second before, lower in the
    # second after the joining one: a drop against the second before.
    def fairness(label, t):
        if any(t == step - 2 for step in (15, 20, 25)):
            return 0.5
        if any(t == step + 1 for step in (15, 20, 25)):
            return 0.9
        return 0.99

    assert claims_of(6, series("allotted_fairness", fairness))[1].verdict == SUPPORTED


def test_breakdown_per_interpolates_between_the_points_around_half():
    # Half of 100 is 50: crossed between PER 0.02 (80) and 0.05 (40), at 0.02 + 0.03·30/40.
    curve = pd.Series({0.0: 100.0, 0.005: 95.0, 0.02: 80.0, 0.05: 40.0, 0.4: 0.0})
    assert breakdown_per(curve) == pytest.approx(0.0425)
    assert math.isnan(breakdown_per(pd.Series({0.0: 100.0, 0.1: 60.0})))  # never below half
