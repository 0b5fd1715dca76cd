"""The SlowCC claims on made-up tables: each rule must hold where the paper's statement
is true of the numbers and fail where it is not."""
from __future__ import annotations

import pandas as pd
import pytest

from cclab.papers.claims import NOT_SUPPORTED, PARTLY, SUPPORTED
from cclab.papers.slowcc import figures
from cclab.papers.slowcc.figures import CONTROLS, QUICK, claims_12, claims_13, claims_14, claims_16, claims_17


def fig13_tables(f20: dict, f200: float = 0.9) -> dict:
    rows = [{"control": control, "b": b, "seed": 1, "f20": f20.get((control, b), 0.6), "f200": f200}
            for b in QUICK.slowness for control in CONTROLS.values()]
    return {"runs": pd.DataFrame(rows), "model": figures.model_13(QUICK.slowness)}


def verdicts(claims) -> list[str]:
    return [claim.verdict for claim in claims]


def test_fig13_about_values_and_order():
    paper = {("TCP(1/b)", 2): 0.86, ("TCP(1/b)", 8): 0.75, ("TFRC(b)", 8): 0.65, ("TCP(1/b)", 256): 0.60, ("TFRC(b)", 256): 0.60}
    holds = verdicts(claims_13(fig13_tables(paper, f200=0.67), QUICK))
    assert holds[:3] == [SUPPORTED] * 3 and holds[3] == SUPPORTED and holds[4] == SUPPORTED
    wrong = {**paper, ("TCP(1/b)", 2): 0.70, ("TFRC(b)", 8): 0.80}
    fails = verdicts(claims_13(fig13_tables(wrong, f200=0.9), QUICK))
    assert fails[0] == NOT_SUPPORTED and fails[2] == NOT_SUPPORTED
    assert fails[3] == NOT_SUPPORTED  # f(20) at b = 256 still 60 % (2 checks), f(200) 0.9 not 65–70 % (2): half
    assert fails[4] == NOT_SUPPORTED  # 0.70 < 0.75 < 0.80: neither pair in order


def test_fig13_model_claim_follows_the_model():
    model = figures.model_13(QUICK.slowness).set_index(["b", "k"])["f_model"]
    exact = {("TCP(1/b)", b): float(model[(b, 20)]) for b in QUICK.slowness}
    assert verdicts(claims_13(fig13_tables(exact), QUICK))[-1] == SUPPORTED
    off = {key: value + 0.2 for key, value in exact.items()}
    assert verdicts(claims_13(fig13_tables(off), QUICK))[-1] == NOT_SUPPORTED


def wave_tables(values: dict) -> dict:
    rows = [{"control": control, "period_s": period, "seed": 1, "utilization": value, "drop_rate": 0.01}
            for (control, period), value in values.items()]
    return {"runs": pd.DataFrame(rows)}


def test_fig14_high_at_50ms_below_80_at_200ms():
    good = {(c, p): v for c in ("TCP", "TCP(1/8)", "TFRC(6)") for p, v in ((0.05, 0.95), (0.2, 0.7), (2, 0.8))}
    assert verdicts(claims_14(wave_tables(good), QUICK)) == [SUPPORTED, SUPPORTED]
    bad = {**good, ("TCP", 0.05): 0.5, ("TCP(1/8)", 0.2): 0.85, ("TFRC(6)", 0.2): 0.9}
    assert verdicts(claims_14(wave_tables(bad), QUICK)) == [PARTLY, NOT_SUPPORTED]


def test_fig16_needs_a_period_where_tfrc_lags_tcp():
    values = {(c, p): 0.7 for c in ("TCP", "TCP(1/8)", "TFRC(6)") for p in QUICK.periods_s}
    assert verdicts(claims_16(wave_tables(values), QUICK)) == [NOT_SUPPORTED]
    values[("TFRC(6)", 2)] = 0.5
    assert verdicts(claims_16(wave_tables(values), QUICK)) == [SUPPORTED]


def test_fig17_compares_variability():
    def tables(tfrc_cov, tcp_cov):
        return {"runs": pd.DataFrame([{"control": "TFRC(8)", "seed": 1, "cov_200ms": tfrc_cov, "smoothness_200ms": 0.9},
                                      {"control": "TCP(1/8)", "seed": 1, "cov_200ms": tcp_cov, "smoothness_200ms": 0.7}])}
    assert verdicts(claims_17(tables(0.1, 0.2), QUICK)) == [SUPPORTED]
    assert verdicts(claims_17(tables(0.2, 0.2), QUICK)) == [NOT_SUPPORTED]


def test_fig12_convergence_growth():
    def tables(times):
        return {"runs": pd.DataFrame([{"b": b, "seed": 1, "convergence_s": t} for b, t in zip(QUICK.convergence_b, times)]),
                "model": figures.model_11()}
    assert verdicts(claims_12(tables([5, 6, 8]), QUICK)) == [SUPPORTED, SUPPORTED]
    # Growing as fast as AIMD(1/b)'s ACK count does (×37 from b = 2 to 64): not supported.
    assert verdicts(claims_12(tables([1, 10, 60]), QUICK))[1] == NOT_SUPPORTED
    assert verdicts(claims_12(tables([1, 10, float("nan")]), QUICK))[1] == NOT_SUPPORTED


@pytest.mark.parametrize("claims,figure", [(claims_14, 14), (claims_16, 16)])
def test_every_claim_carries_its_figure_quote_and_rule(claims, figure):
    values = {(c, p): 0.7 for c in ("TCP", "TCP(1/8)", "TFRC(6)") for p in QUICK.periods_s}
    for claim in claims(wave_tables(values), QUICK):
        assert claim.figure == figure
        assert "§4.2.4" in claim.quote and claim.rule.metric
