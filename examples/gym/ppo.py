"""Train a small PPO agent on cclab.gym for a few minutes, then evaluate it against Reno,
CUBIC and BBR on held-out scenarios and plot throughput against delay.

    .venv/bin/pip install -e '.[rl]'                      # gymnasium, stable-baselines3
    .venv/bin/python examples/gym/ppo.py --minutes 4 --out results/gym

The agent acts as Orca does (``mode = "multiplier"``: once per RTT it multiplies CUBIC's
window by 2^a, a in [-0.5, 0.5], and CUBIC goes on from there), on the environment's default
distribution of single-bottleneck paths (5–100 Mb/s, 10–200 ms, ¼–4 BDP of buffer, random
loss and competing CUBIC/Reno/BBR flows half of the time each). Its reward is the
throughput's share of the bottleneck less the queueing delay in units of the base RTT and
ten times the loss rate. Held-out scenarios are drawn from seeds training never uses;
Reno, CUBIC and BBR run them through the same environment (multiplier left at 1 over
each, which is that algorithm exactly). Writes ``OUT/evaluation.csv`` (one row per
scenario and scheme), ``OUT/summary.md`` and ``OUT/throughput_delay.png``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import cclab.gym
from cclab.gym import CongestionControlVectorEnv

EPISODE_STEPS = 200


def reward(info: dict) -> float:
    """Share of the bottleneck, less queueing delay (in base RTTs) and 10 × loss."""
    share = info["throughput_mbps"] / info["capacity_mbps"]
    queueing = max(0.0, info["rtt_ms"] / info["base_rtt_ms"] - 1.0)
    return share - queueing - 10.0 * info["loss"]


def settings(base: str = "cubic") -> dict:
    # (at most ×√2 or ÷√2 a step: the window compounds over the steps)
    return {"mode": "multiplier", "base": base, "action_scale": 0.5, "max_steps": EPISODE_STEPS, "reward": reward}


def sb3_vec_env(env: CongestionControlVectorEnv, seed: int):
    """stable-baselines3's VecEnv over a cclab vector environment (one engine call a step)."""
    from stable_baselines3.common.vec_env import VecEnv

    class Adapter(VecEnv):
        def __init__(self):
            super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
            self._actions = None
            self._seed = seed

        def reset(self):
            obs, _ = env.reset(seed=[self._seed + k for k in range(env.num_envs)])
            self._seed += env.num_envs
            return obs

        def step_async(self, actions):
            self._actions = np.asarray(actions, dtype=np.float32).reshape(env.num_envs, 1)

        def step_wait(self):
            obs, rewards, terminated, truncated, infos = env.step(self._actions)
            dones = terminated | truncated
            out = [{} for _ in range(env.num_envs)]
            for k in np.flatnonzero(dones):
                out[k] = {"terminal_observation": infos["final_obs"][k], "TimeLimit.truncated": bool(truncated[k])}
            return obs, rewards.astype(np.float32), dones, out

        def close(self):
            pass

        def get_attr(self, name, indices=None):
            return [getattr(env, name)] * env.num_envs

        def set_attr(self, name, value, indices=None):
            setattr(env, name, value)

        def env_method(self, name, *args, indices=None, **kwargs):
            return [getattr(env, name)(*args, **kwargs)] * env.num_envs

        def env_is_wrapped(self, wrapper_class, indices=None):
            return [False] * env.num_envs

    return Adapter()


def train(minutes: float, num_envs: int, seed: int):
    import torch
    from stable_baselines3 import PPO

    torch.set_num_threads(1)
    env = CongestionControlVectorEnv(num_envs, **settings())
    model = PPO("MlpPolicy", sb3_vec_env(env, seed), n_steps=128, batch_size=256, learning_rate=3e-4, gamma=0.98,
                ent_coef=0.0, policy_kwargs={"net_arch": [64, 64], "log_std_init": -1.0}, seed=seed, verbose=0, device="cpu")
    deadline = time.monotonic() + 60 * minutes
    steps = 0
    started = time.monotonic()
    while time.monotonic() < deadline:
        model.learn(total_timesteps=128 * num_envs * 4, reset_num_timesteps=False)
        steps = model.num_timesteps
        print(f"  {time.monotonic() - started:5.0f} s  {steps} steps", file=sys.stderr, flush=True)
    return model, steps, time.monotonic() - started


def evaluate(model, scenarios: int, seed: int) -> list[dict]:
    """Each scheme on the same held-out scenarios (one episode each): mean throughput
    share, mean queueing delay and loss."""
    rows = []
    schemes = [("ppo", "cubic"), ("reno", "reno"), ("cubic", "cubic"), ("bbr", "bbr")]
    seeds = [seed + k for k in range(scenarios)]
    for scheme, base in schemes:
        env = CongestionControlVectorEnv(scenarios, **settings(base))
        obs, _ = env.reset(seed=seeds)
        totals = {key: np.zeros(scenarios) for key in ("throughput_mbps", "rtt_ms", "loss", "reward")}
        running = np.ones(scenarios, dtype=bool)  # an episode may end early: at its scenario's end
        steps = np.zeros(scenarios)
        capacity = base_rtt = None
        for _ in range(EPISODE_STEPS):
            if scheme == "ppo":
                action, _ = model.predict(obs, deterministic=True)
            else:
                action = np.zeros((scenarios, 1), dtype=np.float32)
            obs, rewards, _, truncated, info = env.step(action)
            if capacity is None:
                capacity, base_rtt = info["capacity_mbps"].copy(), info["base_rtt_ms"].copy()
            for key in ("throughput_mbps", "rtt_ms", "loss"):
                totals[key] += np.where(running, info[key], 0.0)
            totals["reward"] += np.where(running, rewards, 0.0)
            steps += running
            running &= ~truncated
        for k in range(scenarios):
            rows.append({
                "scheme": scheme, "scenario": seeds[k], "steps": int(steps[k]),
                "capacity_mbps": float(capacity[k]), "base_rtt_ms": float(base_rtt[k]),
                "throughput_share": float(totals["throughput_mbps"][k] / steps[k] / capacity[k]),
                "queueing_ms": float(totals["rtt_ms"][k] / steps[k] - base_rtt[k]),
                "loss": float(totals["loss"][k] / steps[k]),
                "reward": float(totals["reward"][k] / steps[k]),
            })
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=4.0, help="training time (default 4)")
    parser.add_argument("--envs", type=int, default=16, help="environments stepped together (default 16)")
    parser.add_argument("--scenarios", type=int, default=32, help="held-out scenarios (default 32)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("results/gym"))
    parser.add_argument("--load", type=Path, help="evaluate this saved model instead of training one")
    args = parser.parse_args()
    import pandas as pd

    args.out.mkdir(parents=True, exist_ok=True)
    if args.load:
        from stable_baselines3 import PPO

        model = PPO.load(args.load, device="cpu")
        steps, wall = model.num_timesteps, float("nan")
    else:
        print(f"training PPO for {args.minutes:g} min on {args.envs} environments", file=sys.stderr)
        model, steps, wall = train(args.minutes, args.envs, args.seed)
        print(f"trained: {steps} steps in {wall:.0f} s", file=sys.stderr)
        model.save(args.out / "ppo_multiplier_cubic")
    rows = pd.DataFrame(evaluate(model, args.scenarios, seed=1_000_000 + args.seed))
    rows.to_csv(args.out / "evaluation.csv", index=False)
    summary = rows.groupby("scheme", sort=False)[["throughput_share", "queueing_ms", "loss", "reward"]].mean()
    text = (f"PPO (multiplier over CUBIC), {steps} steps in {wall:.0f} s ({steps / wall:.0f} steps/s with learning), "
            f"{args.scenarios} held-out scenarios, {EPISODE_STEPS} RTTs each\n\n"
            + "| scheme | throughput / capacity | queueing delay (ms) | loss | reward |\n| --- | --- | --- | --- | --- |\n"
            + "".join(f"| {scheme} | {r.throughput_share:.3f} | {r.queueing_ms:.1f} | {r.loss:.4f} | {r.reward:.3f} |\n"
                      for scheme, r in summary.iterrows()))
    (args.out / "summary.md").write_text(text)
    print(text)
    plot(rows, args.out / "throughput_delay.png")
    return 0


def plot(rows, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5))
    for scheme, group in rows.groupby("scheme", sort=False):
        points = ax.scatter(group["queueing_ms"], group["throughput_share"], s=12, alpha=0.35)
        ax.scatter(group["queueing_ms"].mean(), group["throughput_share"].mean(), s=120, marker="*",
                   color=points.get_facecolor()[0], edgecolor="black", label=scheme)
    ax.set_xscale("symlog", linthresh=1.0)
    ax.invert_xaxis()  # better to the right, as in Pantheon's plots
    ax.set_xlabel("mean queueing delay (ms, log scale)")
    ax.set_ylabel("throughput / bottleneck rate")
    ax.set_title("held-out scenarios: each point one scenario, stars the means")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
