"""Datasets for offline learning: trajectories of a built-in algorithm as the environment
sees them, to Parquet.

    cclab.gym.record("cubic", "cubic.parquet", episodes=100, seed=0, action_mode="cwnd")

The algorithm drives the flow itself: the environment's flow runs
``cc = { algorithm = "agent", mode = "multiplier", base = ALGORITHM }`` and every step
leaves the multiplier at 1, which is exactly the algorithm (the engine's tests check it
counter for counter). Each step's row holds the observation the environment computes, the
reward it gives, the interval in plain units, and the action that would have made the
algorithm's decision in ``action_mode``:

- ``cwnd``: the window at the end of the interval, in the log scale of ``cwnd_range``;
- ``multiplier``: log2 of the window's change over the interval, over ``action_scale``
  (Orca's exponent, 2 by default);
- ``rate``: Aurora's a for the change of the sending rate from the interval before,
  over ``action_scale`` (10 by default);
- ``pacing``: the sending rate, in the log scale of ``rate_range_mbps``.

All clipped to [-1, 1], as the environment's actions are.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Union

import numpy as np

from cclab.core import ScenarioError


def record(algorithm: str, path: Union[str, Path], episodes: int = 10, seed: int = 0, action_mode: str = "cwnd",
           num_envs: int = 8, **settings: Any) -> Path:
    """Run ``episodes`` episodes (scenarios drawn as the environment draws them, from
    ``seed``) with ``algorithm`` in control, ``num_envs`` at a time, and write one row per
    step to the Parquet file ``path``; returns it. ``settings``: the environment's
    (:class:`cclab.gym.EnvConfig`; not ``mode`` nor ``base``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from cclab.gym.env import MODES, CongestionControlVectorEnv, EnvConfig

    if not isinstance(algorithm, str) or algorithm in ("agent", "python"):
        raise ScenarioError(f"algorithm: {algorithm!r} is not a built-in algorithm name such as \"cubic\"")
    if action_mode not in MODES:
        raise ScenarioError(f"action_mode: {action_mode!r} is not one of {', '.join(MODES)}")
    if not (isinstance(episodes, int) and episodes >= 1):
        raise ScenarioError(f"episodes: {episodes!r} is not a number of episodes from 1")
    for name in ("mode", "base"):
        if name in settings:
            raise ScenarioError(f"{name}: the recorded flow runs the algorithm itself; give action_mode instead")
    labels = EnvConfig(mode=action_mode, **{k: v for k, v in settings.items() if k != "scenarios"})
    num_envs = max(1, min(num_envs, episodes))
    env = CongestionControlVectorEnv(num_envs, mode="multiplier", base=algorithm, **settings)
    obs, _ = env.reset(seed=[seed + k for k in range(num_envs)])
    episode_of = list(range(num_envs))
    next_episode = num_envs
    step_of = [0] * num_envs
    prev_cwnd = np.full(num_envs, np.nan)
    prev_rate = np.full(num_envs, np.nan)
    columns: dict = {name: [] for name in ("episode", "step", "observation", "action", "reward", "scenario_seed")}
    info_columns: dict = {}
    zeros = np.zeros((num_envs, 1), dtype=np.float32)
    scenario_seed = [env._batch.scenarios[k]["seed"] for k in range(num_envs)]
    done = 0
    while done < episodes:
        next_obs, rewards, _, truncated, info = env.step(zeros)
        cwnd, send = info["cwnd"], info["send_rate_mbps"] * 1e6
        action = implied_actions(labels, action_mode, cwnd, prev_cwnd, send, prev_rate)
        for k in range(num_envs):
            if episode_of[k] >= episodes:
                continue
            columns["episode"].append(episode_of[k])
            columns["step"].append(step_of[k])
            columns["observation"].append(obs[k].tolist())
            columns["action"].append(float(action[k]))
            columns["reward"].append(float(rewards[k]))
            columns["scenario_seed"].append(scenario_seed[k])
            for key, values in info.items():
                if key not in ("final_obs", "_final_obs"):
                    info_columns.setdefault(key, []).append(float(values[k]))
            step_of[k] += 1
        prev_cwnd, prev_rate = cwnd.copy(), send.copy()
        obs = next_obs
        for k in np.flatnonzero(truncated):
            if episode_of[k] < episodes:
                done += 1
            episode_of[k] = next_episode
            next_episode += 1
            step_of[k] = 0
            prev_cwnd[k] = prev_rate[k] = np.nan
            scenario_seed[k] = env._batch.scenarios[k]["seed"]
    table = pa.table({**columns, **info_columns, "algorithm": [algorithm] * len(columns["step"]),
                      "action_mode": [action_mode] * len(columns["step"])})
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
    return path


def implied_actions(config, mode: str, cwnd, prev_cwnd, send_bps, prev_send_bps) -> np.ndarray:
    """The actions in [-1, 1] that would have made these decisions (see the module docs)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        if mode == "cwnd":
            low, high = config.cwnd_range
            a = 2.0 * (np.log(np.clip(cwnd, low, high)) - math.log(low)) / (math.log(high) - math.log(low)) - 1.0
        elif mode == "pacing":
            low, high = config.rate_range_bps
            a = 2.0 * (np.log(np.clip(send_bps, low, high)) - math.log(low)) / (math.log(high) - math.log(low)) - 1.0
        elif mode == "multiplier":
            a = np.log2(cwnd / prev_cwnd) / config.action_scale
        else:
            ratio = send_bps / prev_send_bps
            delta = np.where(ratio >= 1.0, ratio - 1.0, 1.0 - 1.0 / ratio) / 0.025
            a = delta / config.action_scale
    return np.clip(np.nan_to_num(a, nan=0.0, posinf=1.0, neginf=-1.0), -1.0, 1.0)
