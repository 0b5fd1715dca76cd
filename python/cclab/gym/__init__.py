"""Learned congestion control: a Gymnasium environment on cclab's TCP.

    import gymnasium, cclab.gym
    env = gymnasium.make("cclab/CongestionControl-v0", mode="rate")      # Aurora's action
    obs, info = env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    envs = cclab.gym.CongestionControlVectorEnv(64, mode="multiplier")   # 64 engines, one call a step

The agent drives one TCP flow of a scenario (with competing flows of built-in algorithms,
random loss, link traces: :class:`ScenarioDistribution`); a step is one monitor interval,
which the engine runs in Rust with no Python per ACK. Spaces, reward and numbers:
docs/guide/gym.md. Needs the ``gym`` extra (``pip install 'cclab[gym]'``).
"""
from __future__ import annotations

try:
    import gymnasium
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError("cclab.gym needs gymnasium: pip install 'cclab[gym]' (or pip install gymnasium)") from error

from cclab.gym.env import (AURORA_WEIGHTS, FEATURES, MODES, CongestionControlEnv, CongestionControlVectorEnv,
                           EnvConfig)
from cclab.gym.scenarios import ScenarioDistribution

ENV_ID = "cclab/CongestionControl-v0"

__all__ = ["ENV_ID", "AURORA_WEIGHTS", "FEATURES", "MODES", "CongestionControlEnv", "CongestionControlVectorEnv",
           "EnvConfig", "ScenarioDistribution", "record"]

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="cclab.gym.env:CongestionControlEnv",
                       vector_entry_point="cclab.gym.env:CongestionControlVectorEnv")


def __getattr__(name):
    if name == "record":
        from cclab.gym.dataset import record

        return record
    raise AttributeError(f"module 'cclab.gym' has no attribute {name!r}")
