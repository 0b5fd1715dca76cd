"""The environments: :class:`CongestionControlEnv` (one simulation) and
:class:`CongestionControlVectorEnv` (many, stepped by the engine in one call). Both run on
:class:`_Batch`, which turns the engine's monitor intervals into observations and rewards
with NumPy, for all simulations at once.

A step is one monitor interval of the agent's flow: the action sets its decision, the
engine runs in Rust until the interval ends (no Python per ACK) and reports what the flow
sent and learnt from its ACKs (``cclab._core.Engines``); the observation is the last
``history`` intervals' features, the reward a function of the interval.
"""
from __future__ import annotations

import json
import math
from typing import Any, Callable, Optional, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from cclab.core import Engines, ScenarioError, duration_s, topology_json
from cclab.gym.scenarios import ScenarioDistribution

MODES = ("rate", "multiplier", "cwnd", "pacing")

# One interval's features (the observation holds `history` of them, oldest first), their
# bounds, and what each is: see docs/guide/gym.md.
FEATURES = ("send_ratio", "latency_ratio", "latency_gradient", "delivery_rate", "send_rate", "latest_rtt_ratio",
            "min_rtt_ratio", "loss_fraction", "ecn_fraction", "inflight_bdp", "cwnd_bdp")
LOW = np.array([0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], dtype=np.float32)
HIGH = np.array([10.0, 10.0, 1.0, 1.0, 10.0, 10.0, 10.0, 1.0, 1.0, 10.0, 10.0], dtype=np.float32)

# Aurora's reward (PCC-RL network_sim.py): 10·throughput (packets/s) − 1000·latency (s)
# − 2000·loss, times 0.001.
AURORA_WEIGHTS = {"throughput": 10.0, "latency": 1000.0, "loss": 2000.0, "scale": 0.001}

# The engine's interval fields (cclab._core.Engines.FIELDS), by name.
_F = {name: k for k, name in enumerate(Engines.FIELDS)}


class EnvConfig:
    """The environment's settings, checked once; a bad one is a ScenarioError naming it.

    ``mode``: the action's meaning ("rate": Aurora's rate change, "multiplier": Orca's
    2^a on ``base``'s window, "cwnd": a window, "pacing": a pacing rate). ``action_scale``:
    the action in [-1, 1] times this is Aurora's a (rate mode, default 10: ×1.25 at most
    per step) or Orca's exponent (multiplier mode, default 2: ×4 at most). ``cwnd_range``
    (segments) and ``rate_range_mbps``: the log-scale ranges [-1, 1] maps onto in cwnd and
    pacing modes. ``interval``: a fixed monitor interval ("20ms"), or None for
    ``interval_rtts`` smoothed RTTs (the base RTT before the first sample). ``history``:
    intervals in an observation. ``max_steps``: steps in an episode (the scenario's end
    also ends it). ``reward``: "aurora", a dict of Aurora's weights, or a function of the
    step's ``info`` dict returning a float. ``scenarios``: a :class:`ScenarioDistribution`
    (or a dict of its fields), or a fixed scenario (dict, or TOML path) with exactly one
    group of ``cc = { algorithm = "agent", ... }`` and one flow in it (then ``mode`` and
    ``base`` are the scenario's; its ``seed`` is drawn each episode).
    """

    def __init__(self, mode: str = "rate", base: str = "cubic", action_scale: Optional[float] = None,
                 cwnd_range: tuple = (1.0, 10_000.0), rate_range_mbps: tuple = (0.1, 1000.0),
                 interval: Optional[str] = None, interval_rtts: float = 1.0, history: int = 10, max_steps: int = 400,
                 reward: Union[str, dict, Callable[[dict], float]] = "aurora",
                 scenarios: Any = None):
        if mode not in MODES:
            raise ScenarioError(f"mode: {mode!r} is not one of {', '.join(MODES)}")
        self.mode = mode
        if not isinstance(base, str) or base in ("agent", "python"):
            raise ScenarioError(f"base: {base!r} is not a built-in algorithm name such as \"cubic\"")
        self.base = base
        if action_scale is None:
            action_scale = {"rate": 10.0, "multiplier": 2.0}.get(mode, 1.0)
        if not (isinstance(action_scale, (int, float)) and 0 < action_scale <= 1000):
            raise ScenarioError(f"action_scale: {action_scale!r} is not a number in (0, 1000]")
        self.action_scale = float(action_scale)
        self.cwnd_range = _pair("cwnd_range", cwnd_range, 1.0, 1e7)
        self.rate_range_bps = tuple(v * 1e6 for v in _pair("rate_range_mbps", rate_range_mbps, 0.064, 1e5))
        self.interval_s = None
        if interval is not None:
            try:
                seconds = duration_s(interval) if isinstance(interval, str) else None
            except ScenarioError as error:
                raise ScenarioError(f"interval: {error}") from None
            if seconds is None or not (1e-4 <= seconds <= 100):
                raise ScenarioError(f"interval: {interval!r} is not a duration from 100us to 100s (write e.g. \"20ms\")")
            self.interval_s = seconds
        if not (isinstance(interval_rtts, (int, float)) and 0.05 <= interval_rtts <= 100):
            raise ScenarioError(f"interval_rtts: {interval_rtts!r} is not a number of RTTs in [0.05, 100]")
        self.interval_rtts = float(interval_rtts)
        if not (isinstance(history, int) and 1 <= history <= 1000):
            raise ScenarioError(f"history: {history!r} is not a number of intervals from 1 to 1000")
        self.history = history
        if not (isinstance(max_steps, int) and 1 <= max_steps <= 10_000_000):
            raise ScenarioError(f"max_steps: {max_steps!r} is not a number of steps from 1 to 10000000")
        self.max_steps = max_steps
        self.weights = None
        self.reward_fn = None
        if reward == "aurora":
            self.weights = dict(AURORA_WEIGHTS)
        elif isinstance(reward, dict):
            unknown = set(reward) - set(AURORA_WEIGHTS)
            if unknown:
                raise ScenarioError(f"reward.{sorted(unknown)[0]}: unknown weight; known: {', '.join(AURORA_WEIGHTS)}")
            bad = [k for k, v in reward.items() if not (isinstance(v, (int, float)) and math.isfinite(v))]
            if bad:
                raise ScenarioError(f"reward.{bad[0]}: {reward[bad[0]]!r} is not a finite number")
            self.weights = {**AURORA_WEIGHTS, **reward}
        elif callable(reward):
            self.reward_fn = reward
        else:
            raise ScenarioError(f"reward: {reward!r} is not \"aurora\", a dict of weights or a function of the step's info")
        self.fixed = None
        if scenarios is None or isinstance(scenarios, ScenarioDistribution):
            self.distribution = scenarios or ScenarioDistribution()
        elif isinstance(scenarios, dict) and "topology" in scenarios or isinstance(scenarios, str):
            from cclab.scenario import load_scenario

            self.fixed = load_scenario(scenarios)
            self.distribution = None
            self._check_fixed()
        else:
            self.distribution = ScenarioDistribution.from_mapping(scenarios)

    def _check_fixed(self) -> None:
        groups = [g for g in self.fixed.get("flows", []) if isinstance(g.get("cc"), dict) and g["cc"].get("algorithm") == "agent"]
        if len(groups) != 1 or groups[0].get("count", 1) != 1:
            raise ScenarioError("scenarios: a fixed scenario needs exactly one group with cc = { algorithm = \"agent\", ... } "
                                "and one flow in it (count = 1)")
        self.mode = groups[0]["cc"].get("mode", "rate")
        if self.mode == "multiplier":
            self.base = groups[0]["cc"].get("base", "cubic")

    def agent_cc(self, rng, rate_bps: float) -> dict:
        """The agent's congestion control for an episode on a path of ``rate_bps``."""
        if self.mode == "multiplier":
            return {"algorithm": "agent", "mode": "multiplier", "base": self.base}
        if self.mode == "cwnd":
            return {"algorithm": "agent", "mode": "cwnd", "cwnd": 10}
        low, high = self.rate_range_bps
        # Aurora starts each episode at 0.3–1.5 times the link's rate.
        start = min(max(rate_bps * rng.uniform(0.3, 1.5), low), high)
        return {"algorithm": "agent", "mode": self.mode, "rate": f"{start:.0f}bps",
                "min_rate": f"{low:.0f}bps", "max_rate": f"{high:.0f}bps"}

    def core_action(self, actions: np.ndarray) -> np.ndarray:
        """Actions in [-1, 1] (one per simulation) as the engine's values."""
        a = np.clip(np.nan_to_num(np.asarray(actions, dtype=np.float64).reshape(-1), nan=0.0), -1.0, 1.0)
        if self.mode in ("rate", "multiplier"):
            return a * self.action_scale
        low, high = self.cwnd_range if self.mode == "cwnd" else self.rate_range_bps
        values = np.exp(math.log(low) + (a + 1.0) / 2.0 * (math.log(high) - math.log(low)))
        # (a window to 1/10000 of a segment: a float32 action's rounding must not take a
        # whole segment off, as 24.99999 segments would)
        return np.round(values, 4) if self.mode == "cwnd" else values

    def action_for(self, value: float) -> float:
        """The action in [-1, 1] that sets a window of ``value`` segments (cwnd mode), a
        pacing rate of ``value`` bits/s (pacing mode), or Aurora's a / Orca's exponent."""
        if self.mode in ("rate", "multiplier"):
            return float(np.clip(value / self.action_scale, -1, 1))
        low, high = self.cwnd_range if self.mode == "cwnd" else self.rate_range_bps
        return float(np.clip(2.0 * (math.log(value) - math.log(low)) / (math.log(high) - math.log(low)) - 1.0, -1, 1))


def _pair(name: str, value: Any, low: float, high: float) -> tuple:
    ok = (isinstance(value, (list, tuple)) and len(value) == 2
          and all(isinstance(v, (int, float)) and low <= v <= high for v in value) and value[0] < value[1])
    if not ok:
        raise ScenarioError(f"{name}: {value!r} is not a (low, high) pair with {low:g} <= low < high <= {high:g}")
    return float(value[0]), float(value[1])


class _Batch:
    """``n`` simulations and what the observations need of each: the history of features,
    the least RTT and largest delivery rate seen in the episode, the step count."""

    def __init__(self, n: int, config: EnvConfig):
        self.n = n
        self.config = config
        self.engines = Engines(n)
        k, f = config.history, len(FEATURES)
        self.history = np.zeros((n, k, f), dtype=np.float32)
        self.min_rtt = np.full(n, np.nan)
        self.max_delivery = np.zeros(n)
        self.prev_rtt = np.full(n, np.nan)
        self.srtt = np.full(n, np.nan)
        self.base_rtt = np.ones(n) * 0.1
        self.capacity_bps = np.zeros(n)
        self.wire_bits = np.ones(n) * 12_000.0
        self.payload_bits = np.ones(n) * 11_680.0
        self.steps = np.zeros(n, dtype=np.int64)
        self.horizon = np.zeros(n)
        self.scenarios: list = [None] * n
        self.neutral = np.nan if config.mode in ("cwnd", "pacing") else 0.0

    def draw(self, rng) -> dict:
        config = self.config
        if config.fixed is not None:
            scenario = json.loads(json.dumps(config.fixed))
            scenario["seed"] = int(rng.integers(2**31))
            return scenario
        rate = config.distribution.rate_mbps
        scenario = config.distribution.sample(rng, {"algorithm": "agent"})
        bottleneck = scenario["topology"]["bottleneck"]
        rate_bps = float(bottleneck["rate"].removesuffix("Mbps")) * 1e6 if "rate" in bottleneck else (
            float(rate if isinstance(rate, (int, float)) else rate[0]) * 1e6)
        scenario["flows"][0]["cc"] = config.agent_cc(rng, rate_bps)
        return config.distribution.resolve(scenario)

    def reset(self, indices, rngs) -> np.ndarray:
        """New episodes in simulations ``indices`` (drawn with their generators ``rngs``),
        each run for its first interval: the observations of all simulations."""
        only = np.zeros(self.n, dtype=bool)
        for i, rng in zip(indices, rngs):
            self._reset_one(int(i), rng)
            only[i] = True
        raw = self.step_engines(np.full(self.n, self.neutral), only)
        obs, _, info = self.observe(raw, only, rewarded=False)
        self.steps[only] = 0  # (that first interval is the reset's, not a step)
        return obs, info

    def _reset_one(self, i: int, rng) -> None:
        scenario = self.draw(rng)
        text = json.dumps(scenario)
        agents, horizon, payload, wire = self.engines.reset(i, text)
        if len(agents) != 1:
            raise ScenarioError(f"flows: the scenario has {len(agents)} agent flows; an environment drives exactly one")
        topology = json.loads(topology_json(text))
        route = topology["flows"][agents[0]]["route"]
        links = {(link["from"], link["to"]): link for link in topology["links"]}
        rates = [duration_free_rate(links.get((a, b)) or links.get((b, a))) for a, b in zip(route, route[1:])]
        self.capacity_bps[i] = min(r for r in rates if r > 0) if any(r > 0 for r in rates) else np.nan
        self.base_rtt[i] = duration_s(topology["flows"][agents[0]]["base_rtt"])
        self.scenarios[i] = scenario
        self.horizon[i] = horizon
        self.wire_bits[i], self.payload_bits[i] = 8.0 * wire, 8.0 * payload
        self.history[i] = 0.0
        self.min_rtt[i] = np.nan
        self.max_delivery[i] = 0.0
        self.prev_rtt[i] = np.nan
        self.srtt[i] = np.nan
        self.steps[i] = 0

    def durations(self, active: np.ndarray) -> np.ndarray:
        config = self.config
        if config.interval_s is not None:
            d = np.full(self.n, config.interval_s)
        else:
            rtt = np.where(np.isnan(self.srtt), self.base_rtt, self.srtt)
            d = np.clip(config.interval_rtts * rtt, 1e-4, 100.0)
        return np.where(active, d, 0.0)

    def step_engines(self, core_actions: np.ndarray, active: np.ndarray) -> np.ndarray:
        actions = np.where(active, core_actions, np.nan)
        raw = self.engines.step(actions.tolist(), self.durations(active).tolist())
        return np.frombuffer(raw, dtype=np.float64).reshape(self.n, len(Engines.FIELDS))

    def observe(self, raw: np.ndarray, active: np.ndarray, rewarded: bool = True) -> tuple:
        """Observations, rewards and infos from the engine's intervals (active rows)."""
        F = _F
        dt = raw[:, F["end_s"]] - raw[:, F["start_s"]]
        dt = np.where(dt > 0, dt, np.nan)
        wire = self.wire_bits
        send_bps = raw[:, F["sent"]] * wire / dt
        delivery_bps = raw[:, F["delivered"]] * wire / dt
        goodput_bps = raw[:, F["received"]] * self.payload_bits / dt
        rtt_mean = raw[:, F["rtt_mean_s"]]
        rtt_mean = np.where(np.isnan(rtt_mean), np.where(np.isnan(self.prev_rtt), self.base_rtt, self.prev_rtt), rtt_mean)
        rtt_min_i = raw[:, F["rtt_min_s"]]
        rtt_latest = raw[:, F["rtt_latest_s"]]
        with np.errstate(invalid="ignore", divide="ignore"):
            self.min_rtt = np.where(active, np.fmin(self.min_rtt, rtt_min_i), self.min_rtt)
            min_rtt = np.where(np.isnan(self.min_rtt), self.base_rtt, self.min_rtt)
            self.max_delivery = np.where(active, np.fmax(self.max_delivery, np.nan_to_num(delivery_bps)), self.max_delivery)
            max_delivery = np.where(self.max_delivery > 0, self.max_delivery, np.nan)
            send_ratio = np.where(delivery_bps > 0, send_bps / delivery_bps, np.where(send_bps > 0, 10.0, 1.0))
            prev = np.where(np.isnan(self.prev_rtt), rtt_mean, self.prev_rtt)
            gradient = (rtt_mean - prev) / dt
            sent = raw[:, F["sent"]]
            loss = np.where(sent > 0, raw[:, F["retransmitted"]] / sent, 0.0)
            acks = raw[:, F["acks"]]
            ecn = np.where(acks > 0, raw[:, F["ece_acks"]] / acks, 0.0)
            bdp = max_delivery * min_rtt / wire
            features = np.stack([
                send_ratio,
                rtt_mean / min_rtt,
                gradient,
                delivery_bps / max_delivery,
                send_bps / max_delivery,
                np.where(np.isnan(rtt_latest), rtt_mean, rtt_latest) / min_rtt,
                np.where(np.isnan(rtt_min_i), rtt_mean, rtt_min_i) / min_rtt,
                loss,
                ecn,
                raw[:, F["in_flight"]] / bdp,
                raw[:, F["cwnd"]] / bdp,
            ], axis=1)
        features = np.clip(np.nan_to_num(features, nan=0.0, posinf=10.0, neginf=-1.0), LOW, HIGH).astype(np.float32)
        rows = np.flatnonzero(active)
        self.history[rows] = np.roll(self.history[rows], -1, axis=1)
        self.history[rows, -1] = features[rows]
        self.prev_rtt = np.where(active, rtt_mean, self.prev_rtt)
        srtt = raw[:, F["srtt_s"]]
        self.srtt = np.where(active & ~np.isnan(srtt), srtt, self.srtt)
        loss_rate = loss
        # The interval in plain units, one array each (a dict per simulation would cost
        # more than the engine's step in a large vector environment).
        info = {
            "time_s": raw[:, F["end_s"]],
            "interval_s": np.nan_to_num(dt),
            "throughput_mbps": np.nan_to_num(delivery_bps) / 1e6,
            "send_rate_mbps": np.nan_to_num(send_bps) / 1e6,
            "goodput_mbps": np.nan_to_num(goodput_bps) / 1e6,
            "rtt_ms": rtt_mean * 1e3,
            "min_rtt_ms": min_rtt * 1e3,
            "loss": loss_rate,
            "ecn": ecn,
            "cwnd": raw[:, F["cwnd"]],
            "in_flight": raw[:, F["in_flight"]],
            "pacing_rate_mbps": np.nan_to_num(raw[:, F["pacing_rate_bps"]]) / 1e6,
            "capacity_mbps": self.capacity_bps / 1e6,
            "base_rtt_ms": self.base_rtt * 1e3,
            "delivered": raw[:, F["delivered"]],
            "received": raw[:, F["received"]],
            "sent": sent,
            "retransmitted": raw[:, F["retransmitted"]],
            "timeouts": raw[:, F["timeouts"]],
        }
        weights = self.config.weights
        if weights is not None:
            packets_per_s = np.nan_to_num(delivery_bps) / wire
            rewards = weights["scale"] * (weights["throughput"] * packets_per_s - weights["latency"] * rtt_mean
                                          - weights["loss"] * loss_rate)
            rewards = np.where(active, rewards, 0.0)
        else:
            rewards = np.zeros(self.n)
            for i in rows if rewarded else ():
                value = self.config.reward_fn(info_row(info, i))
                if not isinstance(value, (int, float, np.floating)) or not math.isfinite(value):
                    raise ScenarioError(f"reward: the function returned {value!r}, not a finite number")
                rewards[i] = float(value)
        self.steps = np.where(active, self.steps + 1, self.steps)
        return self.history.reshape(self.n, -1).copy(), rewards, info

    def finished(self, raw: np.ndarray) -> np.ndarray:
        """Whose episode ended: max_steps taken, or the scenario's end reached."""
        ended = raw[:, _F["end_s"]] >= self.horizon - 1e-9
        return (self.steps >= self.config.max_steps) | ended


def info_row(info: dict, i: int) -> dict:
    """Simulation ``i``'s interval, as a dict of Python numbers."""
    return {key: float(values[i]) for key, values in info.items()}


def duration_free_rate(link: Optional[dict]) -> float:
    """A topology link's rate in bits/s (0 when it follows a trace without a rate)."""
    if not link or not link.get("rate"):
        return 0.0
    from cclab.core import rate_bps

    return float(rate_bps(link["rate"]))


def _spaces(config: EnvConfig) -> tuple:
    k = config.history
    observation = spaces.Box(np.tile(LOW, k), np.tile(HIGH, k), dtype=np.float32)
    action = spaces.Box(-1.0, 1.0, shape=(1,), dtype=np.float32)
    return observation, action


class CongestionControlEnv(gym.Env):
    """One flow of a cclab scenario, controlled by the agent one monitor interval at a
    time (``gymnasium.make("cclab/CongestionControl-v0", **settings)``; settings:
    :class:`EnvConfig`). ``reset(seed=s)`` draws the episode's scenario from the
    environment's generator; the same seed and actions give the same trajectory, bit for
    bit. ``info`` of each step carries the interval in plain units (throughput, goodput,
    RTT, loss, cwnd, ...) and ``scenario`` at reset the episode's scenario."""

    metadata = {"render_modes": []}

    def __init__(self, **settings: Any):
        self.config = EnvConfig(**settings)
        self.observation_space, self.action_space = _spaces(self.config)
        self._batch = _Batch(1, self.config)
        self._active = np.ones(1, dtype=bool)
        self._started = False

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        obs, info = self._batch.reset([0], [self.np_random])
        self._started = True
        return obs[0], {**info_row(info, 0), "scenario": self._batch.scenarios[0]}

    def step(self, action):
        if not self._started:
            raise ScenarioError("step: call reset() first")
        batch = self._batch
        raw = batch.step_engines(self.config.core_action(action), self._active)
        obs, rewards, info = batch.observe(raw, self._active)
        truncated = bool(batch.finished(raw)[0])
        self._started = not truncated
        return obs[0], float(rewards[0]), False, truncated, info_row(info, 0)

    def action_for(self, value: float) -> np.ndarray:
        """The action that sets ``value`` (see :meth:`EnvConfig.action_for`)."""
        return np.array([self.config.action_for(value)], dtype=np.float32)

    def result(self):
        """The episode's simulation run to its scenario's end, as a :class:`cclab.Result`
        (it ends the episode: call reset() next)."""
        from cclab.results import Result

        self._started = False
        return Result(json.loads(self._batch.engines.finish(0)))


class CongestionControlVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` simulations stepped by the engine in one call per step (settings as
    :class:`CongestionControlEnv`'s). An episode that ends is reset in the same step
    (``autoreset_mode`` SAME_STEP): the observation returned is the new episode's first,
    the last one's is in ``infos["final_obs"]``."""

    metadata = {"render_modes": [], "autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int = 8, **settings: Any):
        if not (isinstance(num_envs, int) and 1 <= num_envs <= 65536):
            raise ScenarioError(f"num_envs: {num_envs!r} is not a number of environments from 1 to 65536")
        self.config = EnvConfig(**settings)
        self.num_envs = num_envs
        self.single_observation_space, self.single_action_space = _spaces(self.config)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self._batch = _Batch(num_envs, self.config)
        self._rngs: list = []
        self._all = np.ones(num_envs, dtype=bool)

    def reset(self, *, seed: Optional[Union[int, list]] = None, options: Optional[dict] = None):
        if seed is None:
            seeds = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + k for k in range(self.num_envs)]
        else:
            seeds = list(seed)
        self._rngs = [gym.utils.seeding.np_random(s)[0] for s in seeds]
        obs, _ = self._batch.reset(range(self.num_envs), self._rngs)
        return obs, {}

    def step(self, actions):
        if not self._rngs:
            raise ScenarioError("step: call reset() first")
        batch = self._batch
        raw = batch.step_engines(self.config.core_action(np.asarray(actions).reshape(self.num_envs, -1)[:, 0]), self._all)
        obs, rewards, infos = batch.observe(raw, self._all)
        truncated = batch.finished(raw)
        if truncated.any():
            final_obs = obs.copy()
            ended = np.flatnonzero(truncated)
            fresh, _ = batch.reset(ended, [self._rngs[i] for i in ended])
            obs[ended] = fresh[ended]
            infos["final_obs"] = final_obs
            infos["_final_obs"] = truncated.copy()
        return obs, rewards.astype(np.float64), np.zeros(self.num_envs, dtype=bool), truncated, infos
