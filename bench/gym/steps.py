"""Environment steps per second on one core: cclab.gym against Aurora's simulator, in one
invocation.

Aurora's simulator is PCC-RL's ``src/gym/network_sim.py`` (Jay et al., ICML 2019;
https://github.com/PCCproject/PCC-RL, Apache-2.0). It is not part of cclab: clone it and
pass the checkout's folder::

    git clone https://github.com/PCCproject/PCC-RL /tmp/PCC-RL
    .venv/bin/python bench/gym/steps.py --pcc-rl /tmp/PCC-RL --seconds 20

It imports the classic ``gym`` package, which this harness stands in for with gymnasium
(the spaces, seeding and registration it uses have the same names there); nothing else
of it is changed. Both environments take random actions drawn the same way (Aurora's a
uniform in [-1, 1], i.e. rate changes of up to ±2.5 %), in Aurora's rate mode.

Cases (each runs for ``--seconds`` of wall time after a warm-up):

- ``aurora``: SimulatedNetworkEnv as published (one link each way, no TCP: 100–500
  packets/s, 50–500 ms per link, 2–3000-packet queues, 0–5 % random loss each way, a
  monitor interval of half the mean latency, 400 steps an episode);
- ``cclab-aurora-1`` / ``cclab-aurora-N``: cclab.gym on the same networks (a dumbbell
  whose bottleneck has Aurora's rate, RTT, queue and loss, drawn as Aurora draws them),
  full TCP (SACK, RTO, delayed ACKs off), the same monitor interval and rate limits,
  as one environment and as a vector environment of N stepped in one call;
- ``cclab-default-N``: cclab.gym's own default distribution (5–100 Mb/s, 10–200 ms,
  competing CUBIC/Reno/BBR flows half of the time), one RTT a step: heavier steps.

Prints a Markdown table (steps/s, simulated packets per step, ratio to Aurora) and, with
``--json FILE``, writes the numbers.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import platform
import random
import sys
import time
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def gym_shim() -> None:
    """Stand in for the classic ``gym`` package with gymnasium (Aurora imports gym.Env,
    gym.spaces, gym.utils.seeding and gym.envs.registration.register)."""
    import gymnasium

    shim = types.ModuleType("gym")
    shim.Env = gymnasium.Env
    shim.spaces = gymnasium.spaces
    utils = types.ModuleType("gym.utils")
    utils.seeding = gymnasium.utils.seeding
    envs = types.ModuleType("gym.envs")
    registration = types.ModuleType("gym.envs.registration")
    registration.register = lambda **kwargs: None  # Aurora registers itself by module path; not needed here
    envs.registration = registration
    shim.utils, shim.envs = utils, envs
    sys.modules.update({"gym": shim, "gym.spaces": gymnasium.spaces, "gym.utils": utils,
                        "gym.utils.seeding": gymnasium.utils.seeding, "gym.envs": envs,
                        "gym.envs.registration": registration})


def load_aurora(checkout: Path):
    source = checkout / "src" / "gym" / "network_sim.py"
    if not source.is_file():
        raise SystemExit(f"--pcc-rl: {checkout} has no src/gym/network_sim.py (clone https://github.com/PCCproject/PCC-RL)")
    gym_shim()
    sys.path.insert(0, str(checkout / "src" / "gym"))
    sys.path.insert(0, str(checkout / "src"))
    argv, sys.argv = sys.argv, sys.argv[:1]  # its argument parser reads sys.argv at import
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            import network_sim
    finally:
        sys.argv = argv
    return network_sim


def run_aurora(network_sim, seconds: float, seed: int) -> dict:
    random.seed(seed)
    np.random.seed(seed)
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet):  # it prints at every reset
        env = network_sim.SimulatedNetworkEnv()
        env.reset()
        rng = np.random.default_rng(seed)
        steps, packets = 0, 0
        deadline = time.perf_counter() + 1.0
        while time.perf_counter() < deadline:  # warm-up
            _, _, done, _ = env.step(rng.uniform(-1, 1, size=1))
            if done:
                env.reset()
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            _, _, done, _ = env.step(rng.uniform(-1, 1, size=1))
            sender = env.senders[0]
            packets += sender.sent + sender.acked
            steps += 1
            if done:
                env.reset()
        wall = time.perf_counter() - start
        quiet.truncate(0)
    return {"steps": steps, "wall_s": wall, "steps_per_s": steps / wall, "packets_per_step": packets / steps}


def aurora_distribution():
    """Aurora's networks (network_sim.create_new_links_and_senders) as a cclab
    distribution: bandwidth 100–500 packets/s of 1500 B, a latency of 50–500 ms on each of
    its two links (RTT 100–1000 ms), a queue of 1 + e^U(0,8) packets (log-uniform in
    2–2982), random loss 0–5 % (on the data direction here: Aurora also drops ACKs)."""
    from cclab.gym import ScenarioDistribution

    return ScenarioDistribution(rate_mbps=(100 * 1500 * 8 / 1e6, 500 * 1500 * 8 / 1e6), rtt_ms=(100.0, 1000.0),
                                buffer_packets=(2.0, 2982.0), loss=(0.0, 0.05), loss_probability=1.0,
                                competitors=0, competitors_probability=0.0, packet_size=1460, duration_s=3600.0)


def run_cclab(num_envs: int, seconds: float, seed: int, settings: dict) -> dict:
    from cclab.gym import CongestionControlVectorEnv

    env = CongestionControlVectorEnv(num_envs, **settings)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    deadline = time.perf_counter() + 1.0
    while time.perf_counter() < deadline:
        env.step(rng.uniform(-1, 1, size=(num_envs, 1)).astype(np.float32))
    steps, packets = 0, 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, _, _, info = env.step(rng.uniform(-1, 1, size=(num_envs, 1)).astype(np.float32))
        steps += num_envs
        packets += float(np.sum(info["sent"] + info["delivered"]))
    wall = time.perf_counter() - start
    return {"steps": steps, "wall_s": wall, "steps_per_s": steps / wall, "packets_per_step": packets / steps}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pcc-rl", type=Path, required=True, help="a checkout of PCCproject/PCC-RL")
    parser.add_argument("--seconds", type=float, default=20.0, help="wall time per case (default 20)")
    parser.add_argument("--envs", type=int, default=64, help="environments of the vector cases (default 64)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write the numbers here")
    args = parser.parse_args()
    network_sim = load_aurora(args.pcc_rl)
    # Aurora's rate mode: δ = 0.025 per unit of a, rates 40–1000 packets/s, a monitor
    # interval of half the mean RTT, 400 steps an episode.
    aurora_like = {"mode": "rate", "action_scale": 1.0, "rate_range_mbps": (40 * 12e3 / 1e6, 1000 * 12e3 / 1e6),
                   "interval_rtts": 0.5, "max_steps": 400, "scenarios": aurora_distribution()}
    cases = [("aurora", lambda: run_aurora(network_sim, args.seconds, args.seed)),
             ("cclab-aurora-1", lambda: run_cclab(1, args.seconds, args.seed, aurora_like)),
             (f"cclab-aurora-{args.envs}", lambda: run_cclab(args.envs, args.seconds, args.seed, aurora_like)),
             (f"cclab-default-{args.envs}", lambda: run_cclab(args.envs, args.seconds, args.seed,
                                                              {"mode": "rate", "action_scale": 1.0}))]
    results = {}
    for name, case in cases:
        results[name] = case()
        print(f"{name}: {results[name]['steps_per_s']:.0f} steps/s", file=sys.stderr, flush=True)
    aurora = results["aurora"]["steps_per_s"]
    print(f"\n{platform.processor() or platform.machine()}, Python {platform.python_version()}, one core, "
          f"{args.seconds:g} s per case\n")
    print("| case | steps/s | packets per step | vs Aurora |")
    print("| --- | --- | --- | --- |")
    for name, r in results.items():
        print(f"| {name} | {r['steps_per_s']:.0f} | {r['packets_per_step']:.0f} | {r['steps_per_s'] / aurora:.1f}× |")
    if args.json:
        args.json.write_text(json.dumps({"seconds": args.seconds, "envs": args.envs, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
