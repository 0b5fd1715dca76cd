"""The analytic models of §2 (Eqs. 1, 3, 4, 5) and what they do and do not promise."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cclab.analysis.models import (
    congestion_epoch_rtts,
    fair_window,
    friendly_alpha,
    gaimd_throughput,
    pftk_throughput,
    slowcc_f_k,
)

PAPER_PROTOCOLS = [(0.31, 0.875), (0.583, 0.75), (1.0, 0.5), (1.25, 0.25)]
loss_rates = st.floats(min_value=1e-6, max_value=1.0)
betas = st.floats(min_value=0.05, max_value=0.95)


def test_eq3_gives_the_papers_alphas():
    assert friendly_alpha(7 / 8) == pytest.approx(0.31, abs=0.005)
    assert friendly_alpha(0.5) == pytest.approx(1.0)
    for alpha, beta in PAPER_PROTOCOLS:  # the paper's four protocols all satisfy Eq. 3
        assert friendly_alpha(beta) == pytest.approx(alpha, abs=0.005)


@given(p=loss_rates, rtt=st.floats(0.001, 2.0), t0=st.floats(0.01, 10.0))
def test_gaimd_with_1_and_half_is_pftk(p, rtt, t0):
    assert gaimd_throughput(p, rtt, t0, alpha=1.0, beta=0.5) == pytest.approx(pftk_throughput(p, rtt, t0), rel=1e-12)


def test_pftk_known_value():
    # p = 1 %, RTT 100 ms, T0 = 1 s: 1 / (0.1·√(0.02/3) + 1·min(1, 3·√(0.03/8))·0.01·1.0032)
    expected = 1 / (0.1 * np.sqrt(0.02 / 3) + 3 * np.sqrt(0.03 / 8) * 0.01 * 1.0032)
    assert pftk_throughput(0.01, 0.1, 1.0) == pytest.approx(expected, rel=1e-12)
    assert pftk_throughput(0.01, 0.1, 1.0) == pytest.approx(99.92, abs=0.01)


def test_sqrt_covers_p():
    # Without timeouts Eq. 1 is the square-root law: T·RTT·√p is constant.
    small = np.array([1e-6, 1e-5, 1e-4])
    law = gaimd_throughput(small, 0.1, 0.0, 0.31, 0.875) * 0.1 * np.sqrt(small)
    assert law == pytest.approx(np.full(3, law[0]), rel=1e-12)


@given(beta=betas)
def test_friendly_pairs_have_equal_timeout_terms(beta):
    # Eq. 3 equates the timeout term of Eq. 1 exactly: (1-β²)/(2α) = 3/8.
    alpha = friendly_alpha(beta)
    assert (1 - beta**2) / (2 * alpha) == pytest.approx(3 / 8)


@given(beta=betas)
def test_friendly_pairs_at_small_p_differ_by_exactly_2_1_plus_beta_over_3(beta):
    # Eq. 2 does NOT hold in the triple-duplicate regime: with α = 4(1-β²)/3 the first
    # term of Eq. 1 is √(3b/(2(1+β)²)·p) instead of √(2bp/3), so the ratio tends to
    # 2(1+β)/3 (1.25 for TCP(0.31, 0.875), 0.83 for TCP(1.25, 0.25)).
    p = 1e-9
    ratio = gaimd_throughput(p, 0.1, 1.0, friendly_alpha(beta), beta) / pftk_throughput(p, 0.1, 1.0)
    assert ratio == pytest.approx(2 * (1 + beta) / 3, rel=1e-3)


@pytest.mark.parametrize("alpha, beta", PAPER_PROTOCOLS)
def test_friendly_pairs_agree_where_timeouts_dominate(alpha, beta):
    # With T0 ≫ RTT and heavy loss the (identical) timeout term dominates: Eq. 2 holds.
    ratio = gaimd_throughput(0.3, 0.01, 10.0, friendly_alpha(beta), beta) / pftk_throughput(0.3, 0.01, 10.0)
    assert ratio == pytest.approx(1.0, abs=0.01)


@given(p1=loss_rates, p2=loss_rates, alpha=st.floats(0.05, 3.0), beta=betas)
def test_throughput_decreases_with_loss(p1, p2, alpha, beta):
    low, high = sorted((p1, p2))
    assert gaimd_throughput(low, 0.07, 1.0, alpha, beta) >= gaimd_throughput(high, 0.07, 1.0, alpha, beta)


@given(p=loss_rates, beta=betas)
def test_larger_alpha_is_never_slower(p, beta):
    assert gaimd_throughput(p, 0.07, 1.0, 1.0, beta) >= gaimd_throughput(p, 0.07, 1.0, 0.5, beta)


def test_bad_parameters_are_rejected():
    for p in (0.0, -0.1, 1.5):
        with pytest.raises(ValueError):
            gaimd_throughput(p, 0.1, 1.0, 1.0, 0.5)
    with pytest.raises(ValueError):
        gaimd_throughput(0.01, 0.1, 1.0, 1.0, 1.0)
    with pytest.raises(ValueError):
        gaimd_throughput(0.01, 0.1, 1.0, 0.0, 0.5)


def test_eq4_congestion_epoch():
    # TCP(1, 1/2) from W/2 to W = 40 packets: 20 RTTs of growth + the RTT with the drop
    assert congestion_epoch_rtts(40, 1.0, 0.5) == pytest.approx(21)
    # TCP(0.31, 0.875) at the same W: (1/8)·40/0.31 + 1
    assert congestion_epoch_rtts(40, 0.31, 0.875) == pytest.approx(5 / 0.31 + 1)


def test_eq5_fair_window():
    # 10 Mb/s of 1000-byte packets = 1250 packets/s, RTT 70 ms, 10 flows: 8.75 packets each
    assert fair_window(1250, 0.07, 10) == pytest.approx(8.75)
    # Observation 1: fewer flows, larger window, longer epoch
    assert congestion_epoch_rtts(fair_window(1250, 0.07, 10), 0.31, 0.875) > \
        congestion_epoch_rtts(fair_window(1250, 0.07, 100), 0.31, 0.875)


def test_slowcc_f_k():
    assert slowcc_f_k(0, 1.0, 0.1, 100) == pytest.approx(0.5)
    # after k RTTs the rate has grown by k·a/R = λ: average over the interval is 3/4
    assert slowcc_f_k(10, 1.0, 0.1, 100) == pytest.approx(0.75)
