"""The TCP profiles: their rule-by-rule page is generated from the engine's table and
current; each profile's defaults are filled in, and a value the scenario gives wins."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cclab
import pytest

REPO = Path(__file__).resolve().parent.parent


def _scenario(profile: str, tcp: dict | None = None, duration: str = "2s") -> dict:
    flow = {"cc": "reno"} | ({"tcp": tcp} if tcp else {})
    return {"duration": duration, "profile": profile,
            "topology": {"kind": "dumbbell", "bottleneck": {"rate": "10Mbps", "delay": "10ms", "buffer": 40},
                         "source_access": {"rate": "100Mbps", "delay": "1ms"},
                         "sink_access": {"rate": "100Mbps", "delay": "1ms"}},
            "flows": [flow]}


def test_profiles_page_is_up_to_date():
    done = subprocess.run([sys.executable, str(REPO / "tools" / "profile_rules.py"), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_linux_defaults_fill_in_and_a_given_value_wins():
    tcp = cclab.validate(_scenario("linux"))["flows"][0]["tcp"]
    assert (tcp["initial_window"], tcp["initial_rto"], tcp["delayed_ack"], tcp["delayed_ack_timeout"]) == (10.0, "1s", True, "40ms")
    rfc = cclab.validate(_scenario("rfc"))["flows"][0]["tcp"]
    assert (rfc["initial_window"], rfc["initial_rto"], rfc["delayed_ack"]) == (2.0, "3s", False)
    given = cclab.validate(_scenario("linux", {"initial_window": 2, "delayed_ack": False}))["flows"][0]["tcp"]
    assert (given["initial_window"], given["delayed_ack"]) == (2.0, False)
    # a group's own profile wins over the scenario's
    mixed = cclab.validate(_scenario("rfc", {"profile": "linux"}))["flows"][0]["tcp"]
    assert (mixed["profile"], mixed["initial_window"]) == ("linux", 10.0)


def test_linux_receiver_acks_every_second_segment():
    """Linux's receiver ACKs about one in two segments on a bulk transfer (quick ACKs at the
    start and while the window grows aside); the rfc receiver ACKs every segment."""
    def acks_per_segment(profile: str) -> float:
        links = cclab.run(_scenario(profile, duration="20s")).links.set_index("name")
        return links.loc["r2-r1", "departures"] / links.loc["r1-r2", "departures"]
    assert 0.45 < acks_per_segment("linux") < 0.6
    assert acks_per_segment("rfc") > 0.97


def test_pacing_is_a_linux_profile_switch():
    with pytest.raises(cclab.ScenarioError, match=r'^flows\[0\]\.tcp\.pacing: true: the sender paces every algorithm only under profile = "linux", not "rfc"$'):
        cclab.validate(_scenario("rfc", {"pacing": True}))
    assert cclab.validate(_scenario("linux", {"pacing": True}))["flows"][0]["tcp"]["pacing"] is True
    assert "pacing" not in cclab.validate(_scenario("linux"))["flows"][0]["tcp"], "off: not shown"


def test_a_paced_cubic_leaves_slow_start_later():
    """Linux's HyStart halves its ACK-train threshold only for sockets that do not pace:
    a paced CUBIC (tcp.pacing) leaves slow start at a larger window than an unpaced one."""
    def exit_window(pacing: bool) -> float:
        scenario = _scenario("linux", {"pacing": pacing} if pacing else None, duration="3s")
        scenario["topology"]["bottleneck"] |= {"rate": "50Mbps", "delay": "20ms", "buffer": 400}
        scenario["flows"][0]["cc"] = "cubic"
        scenario["trace"] = {"flows": True}
        flows = cclab.run(scenario).traces["flows"]
        left = flows[flows.ssthresh < 1e8]
        assert len(left), "slow start ended"
        return float(left.cwnd.iloc[0])
    unpaced, paced = exit_window(False), exit_window(True)
    assert paced > 1.3 * unpaced, (unpaced, paced)
