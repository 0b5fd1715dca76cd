"""Analytic models of TCP(α, β), as used by Zhang & Tsaoussidis (2002), §2.

Units: ``p`` is the loss-event rate (0 < p ≤ 1); ``rtt`` and ``t0`` are seconds;
throughputs are packets per second; ``b`` is the number of packets acknowledged by each
ACK. Functions accept scalars or NumPy arrays.
"""
from __future__ import annotations

import numpy as np


def gaimd_throughput(p, rtt, t0, alpha, beta, b=1):
    """Steady-state throughput of TCP(α, β), Eq. (1) (GAIMD, Yang & Lam 2000), packets/s:

        T = 1 / ( RTT·√(2b(1−β)p / (α(1+β)))
                  + T0·min(1, 3·√((1−β²)b·p / (2α)))·p·(1 + 32p²) )

    The paper's typeset Eq. (1) lost the square root over ``p``; this is Yang & Lam's
    formula, which for α = 1, β = 0.5 is PFTK's approximation (:func:`pftk_throughput`).
    """
    p = _loss_rate(p)
    if np.any(np.asarray(alpha) <= 0):
        raise ValueError("alpha must be positive")
    beta = np.asarray(beta, dtype=float)
    if np.any((beta <= 0) | (beta >= 1)):
        raise ValueError("beta must be in (0, 1)")
    triple_duplicate_term = rtt * np.sqrt(2 * b * (1 - beta) * p / (alpha * (1 + beta)))
    timeout_term = t0 * np.minimum(1.0, 3 * np.sqrt((1 - beta**2) * b * p / (2 * alpha))) * p * (1 + 32 * p**2)
    return 1.0 / (triple_duplicate_term + timeout_term)


def pftk_throughput(p, rtt, t0, b=1):
    """Padhye–Firoiu–Towsley–Kurose approximate TCP throughput [6], packets/s:

        T = 1 / ( RTT·√(2bp/3) + T0·min(1, 3·√(3bp/8))·p·(1 + 32p²) )
    """
    p = _loss_rate(p)
    return 1.0 / (rtt * np.sqrt(2 * b * p / 3) + t0 * np.minimum(1.0, 3 * np.sqrt(3 * b * p / 8)) * p * (1 + 32 * p**2))


def friendly_alpha(beta):
    """Increase α that makes TCP(α, β) TCP-friendly, Eq. (3): α = 4(1 − β²)/3.

    β = 7/8 gives α ≈ 0.31; β = 1/2 gives α = 1 (standard TCP).
    """
    return 4 * (1 - np.asarray(beta, dtype=float) ** 2) / 3


def congestion_epoch_rtts(window, alpha, beta):
    """Length of a congestion epoch in RTTs, Eq. (4): n = (1 − β)·W/α + 1.

    The window grows by α per RTT from βW back to W (``window``, in packets).
    """
    return (1 - beta) * window / alpha + 1


def fair_window(bandwidth_pps, rtt, flows):
    """Each flow's fair window in packets, Eq. (5): W = B·RTT/N.

    ``bandwidth_pps`` is the bottleneck capacity B in packets/s, ``rtt`` in seconds.
    """
    return bandwidth_pps * rtt / flows


def slowcc_f_k(k, alpha, rtt, rate_pps):
    """Bansal et al. (2001) §4.2.3: average link utilization f(k) over the first ``k``
    RTTs after the available bandwidth doubles from λ (``rate_pps``, per flow) to 2λ,
    for TCP(a, b): f(k) ≈ 1/2 + k·a/(4Rλ).

    That holds while the flow is still climbing (k ≤ k* = Rλ/a); after k* RTTs it has
    the new capacity, so f(k) = (¾·k* + (k − k*))/k = 1 − k*/(4k) beyond (continuous at
    k*, where both give ¾).
    """
    k = np.asarray(k, dtype=float)
    k_full = rtt * rate_pps / alpha
    return np.where(k <= k_full, 0.5 + k * alpha / (4 * rtt * rate_pps), 1 - k_full / (4 * np.maximum(k, 1e-300)))


def aimd_fair_convergence_acks(b, p, delta=0.1):
    """ACKs two AIMD(b) flows need, from the most unfair start (one has everything), to
    reach a δ-fair allocation (|x₁ − x₂|/(x₁ + x₂) ≤ δ) at loss event rate ``p``.

    The SlowCC excerpt breaks off before its derivation of Fig. 11; this is ours, in the
    same synchronised-loss model: additive increase leaves x₁ − x₂ unchanged, each loss
    event multiplies both windows, hence the difference, by 1 − b while the sum returns to
    the capacity; the difference starts at the whole sum, so ⌈ln δ / ln(1 − b)⌉ loss
    events are needed, and with a loss event every 1/p packets that is
    ⌈ln δ / ln(1 − b)⌉ / p ACKs.
    """
    b = np.asarray(b, dtype=float)
    if np.any((b <= 0) | (b >= 1)):
        raise ValueError("b must be in (0, 1)")
    p = _loss_rate(p)
    if not 0 < delta < 1:
        raise ValueError("delta must be in (0, 1)")
    return np.ceil(np.log(delta) / np.log(1 - b)) / p


def _loss_rate(p):
    p = np.asarray(p, dtype=float)
    if np.any((p <= 0) | (p > 1)):
        raise ValueError("p must be in (0, 1]")
    return p
