"""cclab.gym: the checker passes, episodes are reproducible, a scripted window is a
window, the vector environment is the single one n times, bad settings are one-line
errors, datasets record what the environment sees."""
from __future__ import annotations

import math

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import cclab  # noqa: E402
import cclab.gym  # noqa: E402
from cclab.gym import CongestionControlEnv, CongestionControlVectorEnv, ScenarioDistribution  # noqa: E402

# Small, quick episodes.
QUICK = ScenarioDistribution(rate_mbps=(5.0, 20.0), rtt_ms=(20.0, 60.0), duration_s=4.0)


@pytest.mark.parametrize("mode", ["rate", "multiplier", "cwnd", "pacing"])
def test_the_environment_checker_passes(mode):
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(cclab.gym.ENV_ID, mode=mode, scenarios=QUICK, max_steps=50)
    check_env(env.unwrapped, skip_render_check=True)
    assert env.observation_space.shape == (10 * len(cclab.gym.FEATURES),)


def trajectory(env, seed, actions):
    obs, info = env.reset(seed=seed)
    rows = [(obs.tobytes(), None, info["scenario"]["seed"])]
    for a in actions:
        obs, reward, terminated, truncated, info = env.step(np.array([a], dtype=np.float32))
        rows.append((obs.tobytes(), reward, info["throughput_mbps"], info["rtt_ms"], truncated))
        if truncated:
            break
    return rows


def test_same_seed_and_actions_give_the_same_trajectory():
    actions = np.random.default_rng(5).uniform(-1, 1, 60)
    env = CongestionControlEnv(mode="rate", scenarios=QUICK)
    first = trajectory(env, 11, actions)
    second = trajectory(CongestionControlEnv(mode="rate", scenarios=QUICK), 11, actions)
    assert first == second
    assert trajectory(env, 12, actions) != first, "another seed, another episode"
    assert trajectory(env, 11, -actions) != first, "the actions matter"
    # reset(seed) restarts the generator: the second episode of a seed is the same too
    env.reset(seed=3)
    again = trajectory(env, None, actions)
    env.reset(seed=3)
    assert trajectory(env, None, actions) == again


FIXED = {
    "name": "held",
    "duration": "3s",
    "topology": {"kind": "dumbbell",
                 "bottleneck": {"rate": "20Mbps", "delay": "15ms", "buffer": 100,
                                "loss": {"model": "bernoulli", "rate": 0.01}},
                 "source_access": {"rate": "100Mbps", "delay": "2ms"},
                 "sink_access": {"rate": "100Mbps", "delay": "3ms"}},
    "flows": [{"group": "agent", "cc": {"algorithm": "agent", "mode": "cwnd", "cwnd": 25}, "tcp": {"initial_window": 25}},
              {"group": "cubic", "cc": "cubic", "start": "0.5s"}],
}


class FixedWindow(cclab.cc.CongestionControl):
    """A window of `w` segments, whatever happens (after a timeout, from the next ACK)."""
    controls_window = True

    def __init__(self, w):
        self.w = w

    def on_ack(self, window, ack):
        window.cwnd = self.w

    def on_congestion(self, window, event):
        return (self.w, self.w)

    def on_recovery_end(self, window, now_s):
        window.cwnd = self.w


def test_a_scripted_window_gives_the_goodput_of_that_window_run_directly():
    """The policy holding 25 segments, through the environment's 30-ms steps (1 % loss, a
    competing CUBIC flow), delivers what the same scenario run directly with a Python
    fixed-window controller of 25 segments delivers: the same goodput, for both flows.
    (Both start with an initial window of 25; after a timeout the environment's window
    would reopen at the next step rather than at the next ACK: the seed has none.)"""
    env = CongestionControlEnv(scenarios=FIXED, interval="30ms")
    obs, info = env.reset(seed=4)
    seed = info["scenario"]["seed"]
    hold = env.action_for(25)
    received, steps = info["received"], 0
    while True:
        obs, reward, terminated, truncated, info = env.step(hold)
        received += info["received"]
        steps += 1
        if truncated:
            break
    assert steps == 99 and info["cwnd"] == 25.0  # 100 intervals of 30 ms, the first the reset's
    stepped = env.result()
    direct_scenario = {**FIXED, "seed": seed,
                       "flows": [{**FIXED["flows"][0], "cc": {"algorithm": "python", "class": FixedWindow,
                                                              "params": {"w": 25}}}, FIXED["flows"][1]]}
    direct = cclab.run(direct_scenario)
    assert list(direct.flows["timeouts"]) == [0, 0]
    assert list(stepped.flows["goodput_mbps"]) == list(direct.flows["goodput_mbps"])
    assert list(stepped.flows["retransmitted_packets"]) == list(direct.flows["retransmitted_packets"])
    assert received == direct.flows["delivered_packets"][0] > 1000
    assert stepped.flows["retransmitted_packets"][0] > 0, "the loss was there"


def test_the_vector_environment_is_the_single_one_n_times():
    seeds = [21, 22, 23]
    actions = np.random.default_rng(9).uniform(-1, 1, (40, 3, 1)).astype(np.float32)
    # (slot k of a vector environment reset with seeds s_k is a single one reset with s_k)
    vector = CongestionControlVectorEnv(3, mode="multiplier", scenarios=QUICK, max_steps=25)
    obs, _ = vector.reset(seed=seeds)
    singles = [CongestionControlEnv(mode="multiplier", scenarios=QUICK, max_steps=25) for _ in seeds]
    expected = [env.reset(seed=s)[0] for env, s in zip(singles, seeds)]
    assert np.array_equal(obs, np.stack(expected))
    for t in range(24):
        obs, rewards, terminated, truncated, infos = vector.step(actions[t])
        for k, env in enumerate(singles):
            o, r, _, tr, info = env.step(actions[t, k])
            assert np.array_equal(obs[k], o) and rewards[k] == r and truncated[k] == tr
            assert infos["rtt_ms"][k] == info["rtt_ms"]
    obs, rewards, terminated, truncated, infos = vector.step(actions[24])
    assert truncated.all() and "final_obs" in infos and not np.array_equal(infos["final_obs"], obs)


@pytest.mark.parametrize("settings, field", [
    ({"mode": "window"}, "mode"),
    ({"history": 0}, "history"),
    ({"interval": "fast"}, "interval"),
    ({"interval_rtts": 0}, "interval_rtts"),
    ({"reward": "fun"}, "reward"),
    ({"reward": {"speed": 1}}, "reward.speed"),
    ({"cwnd_range": (10, 1)}, "cwnd_range"),
    ({"action_scale": -1}, "action_scale"),
    ({"scenarios": {"rate_mbps": (10, 1)}}, "rate_mbps"),
    ({"scenarios": {"rtt": 5}}, "scenarios.rtt"),
    ({"scenarios": {"loss_probability": 2}}, "loss_probability"),
    ({"scenarios": {"competitor_algorithms": ["agent"]}}, "competitor_algorithms"),
    ({"scenarios": {"trace_probability": 0.5}}, "traces"),
    ({"scenarios": {**FIXED, "flows": [{"cc": "reno"}]}}, "scenarios"),
    ({"max_steps": 0}, "max_steps"),
])
def test_bad_settings_are_one_line_errors_naming_the_parameter(settings, field):
    with pytest.raises(cclab.ScenarioError) as error:
        CongestionControlEnv(**settings)
    message = str(error.value)
    assert message.startswith(field) and "\n" not in message, message


def test_a_bad_action_or_reward_is_one_line():
    env = CongestionControlEnv(scenarios=QUICK, reward=lambda info: float("nan"))
    env.reset(seed=1)
    with pytest.raises(cclab.ScenarioError, match=r"^reward: the function returned nan"):
        env.step(np.zeros(1, dtype=np.float32))
    engines = cclab.core.Engines(1)
    with pytest.raises(ValueError, match=r"^simulation 0 has not been reset$"):
        engines.step([0.0], [0.1])


def test_rewards_follow_aurora_and_a_function_may_replace_them():
    env = CongestionControlEnv(scenarios=QUICK, max_steps=20)
    env.reset(seed=2)
    _, reward, _, _, info = env.step(np.zeros(1, dtype=np.float32))
    packets = info["throughput_mbps"] * 1e6 / (8 * 1500)
    expected = 0.001 * (10 * packets - 1000 * info["rtt_ms"] / 1e3 - 2000 * info["loss"])
    assert math.isclose(reward, expected, rel_tol=1e-9)
    custom = CongestionControlEnv(scenarios=QUICK, max_steps=20, reward=lambda i: i["goodput_mbps"] - i["rtt_ms"] / 100)
    custom.reset(seed=2)
    _, reward, _, _, info = custom.step(np.zeros(1, dtype=np.float32))
    assert reward == info["goodput_mbps"] - info["rtt_ms"] / 100


def test_datasets_record_any_built_in_algorithm_as_the_environment_sees_it(tmp_path):
    import pyarrow.parquet as pq

    path = cclab.gym.record("cubic", tmp_path / "cubic.parquet", episodes=2, seed=3, scenarios=QUICK, max_steps=30)
    table = pq.read_table(path).to_pandas()
    assert set(table["episode"]) == {0, 1} and len(table) == 60
    assert table["observation"].map(len).eq(10 * len(cclab.gym.FEATURES)).all()
    assert {"action", "reward", "cwnd", "throughput_mbps", "rtt_ms", "algorithm"} <= set(table.columns)
    # the recorded flow is CUBIC's own: same episode run directly gives the same goodput
    assert (table["algorithm"] == "cubic").all()
    assert table.groupby("episode")["received"].sum().gt(0).all()


def test_episodes_may_run_over_recorded_traces(tmp_path):
    from cclab import traces

    trace = tmp_path / "cell.up"
    trace.write_text(traces.mahimahi_text(traces.cellular(5000, seed=1)))
    mix = ScenarioDistribution(traces=[trace], trace_probability=1.0, duration_s=3.0, competitors_probability=0.0)
    env = CongestionControlEnv(scenarios=mix, mode="multiplier", max_steps=40)
    obs, info = env.reset(seed=1)
    assert info["scenario"]["topology"]["bottleneck"]["rate_schedule"]["kind"] == "mahimahi"
    delivered = 0
    for _ in range(40):
        obs, reward, terminated, truncated, info = env.step(np.zeros(1, dtype=np.float32))
        delivered += info["delivered"]
        if truncated:
            break
    assert delivered > 0 and info["capacity_mbps"] > 0
