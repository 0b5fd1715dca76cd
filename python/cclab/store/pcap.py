"""libpcap files of the packets a link transmitted (``trace.pcap``), for tcpdump, tshark,
Wireshark and tcptrace.

The engine records, per packet, when its transmission ended, its size, flow, kind,
sequence and ACK numbers, flags and ECN bits (``Capture`` in ``metrics/mod.rs``); this
writes them as raw-IPv4 packets (link type 101, nanosecond timestamps) with synthesised
headers: flow ``f``'s sender is 10.1.x.y and its receiver 10.2.x.y (x.y = f mod 65536),
the sender's port 1024 + f mod 60000, the receiver's 5001 (TCP) or 5002 (UDP, TFRC);
TCP sequence and ACK numbers count payload bytes (segment number × the flow's segment
payload, which the capture gives per packet: its group's ``packet_size``);
the IP header carries the packet's ECN codepoint and its size on the wire. Only the
headers are captured (the original length is the wire size), as ``tcpdump -s 40`` would.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

# Capture kinds and flags, as the engine numbers them (metrics::Capture).
TCP_DATA, TCP_ACK, UDP, TFRC_DATA, TFRC_FEEDBACK, SYN = range(6)
CWR, ECE, PSH = 1, 2, 4
# The engine's ECN bits (net::packet::ecn) and the IP codepoints they become.
ECT_BIT, CE_BIT = 1, 2
LINKTYPE_RAW = 101
MAGIC_NANOSECONDS = 0xA1B23C4D


def write(capture: dict[str, Any], path: str | Path) -> int:
    """Write one link's capture (a ``traces.captures`` entry of a result) to ``path``;
    returns the number of packets written."""
    import numpy as np

    n = len(capture["t_ns"])
    t = np.asarray(capture["t_ns"], dtype=np.uint64)
    wire = np.minimum(np.asarray(capture["bytes"], dtype=np.uint64), 0xFFFF).astype(np.uint16)
    flow = np.asarray(capture["flow"], dtype=np.uint32)
    kind = np.asarray(capture["kind"], dtype=np.uint8)
    seq = np.asarray(capture["seq"], dtype=np.uint64)
    ack = np.asarray(capture["ack"], dtype=np.uint64)
    flags = np.asarray(capture["flags"], dtype=np.uint8)
    ecn_bits = np.asarray(capture["ecn"], dtype=np.uint8)
    payload = np.asarray(capture["payload"], dtype=np.uint64)  # each packet's flow's segment

    tcp = (kind == TCP_DATA) | (kind == TCP_ACK) | (kind == SYN)
    reply = (kind == TCP_ACK) | (kind == TFRC_FEEDBACK)  # from the receiver to the sender
    record = np.dtype([
        # pcap record header (little-endian)
        ("ts_sec", "<u4"), ("ts_nsec", "<u4"), ("incl_len", "<u4"), ("orig_len", "<u4"),
        # IPv4 (network order)
        ("version_ihl", "u1"), ("tos", "u1"), ("total_length", ">u2"), ("ident", ">u2"), ("fragment", ">u2"),
        ("ttl", "u1"), ("protocol", "u1"), ("ip_checksum", ">u2"), ("source", ">u4"), ("destination", ">u4"),
        # TCP (20 bytes) or UDP (8 bytes and 12 unused)
        ("source_port", ">u2"), ("destination_port", ">u2"), ("seq", ">u4"), ("ack", ">u4"),
        ("offset", "u1"), ("tcp_flags", "u1"), ("window", ">u2"), ("checksum", ">u2"), ("urgent", ">u2"),
    ])
    rows = np.zeros(n, dtype=record)
    rows["ts_sec"] = t // 1_000_000_000
    rows["ts_nsec"] = t % 1_000_000_000
    header = np.where(tcp, 40, 28).astype(np.uint32)
    rows["incl_len"] = np.minimum(header, wire)
    rows["orig_len"] = wire

    rows["version_ihl"] = 0x45
    rows["tos"] = np.where(ecn_bits & CE_BIT, 0b11, np.where(ecn_bits & ECT_BIT, 0b10, 0))
    rows["total_length"] = wire
    rows["ident"] = np.arange(n, dtype=np.uint64) & 0xFFFF
    rows["fragment"] = 0x4000  # don't fragment
    rows["ttl"] = 64
    rows["protocol"] = np.where(tcp, 6, 17)
    low = flow & 0xFFFF
    sender = (10 << 24) | (1 << 16) | low
    receiver = (10 << 24) | (2 << 16) | low
    rows["source"] = np.where(reply, receiver, sender)
    rows["destination"] = np.where(reply, sender, receiver)
    rows["ip_checksum"] = _ip_checksums(rows)

    sender_port = 1024 + flow % 60000
    receiver_port = np.where(tcp, 5001, 5002)
    rows["source_port"] = np.where(reply, receiver_port, sender_port)
    rows["destination_port"] = np.where(reply, sender_port, receiver_port)
    # TCP: data carries its first byte's number (SYN: 0, data from 1), an ACK the next
    # byte expected; UDP: its length.
    data_seq = (seq * payload) & 0xFFFFFFFF
    rows["seq"] = np.where(kind == TCP_ACK, 1, np.where(kind == SYN, 0, data_seq))
    rows["ack"] = np.where(kind == TCP_ACK, (ack * payload) & 0xFFFFFFFF, np.where(kind == SYN, 0, 1))
    rows["offset"] = np.where(tcp, 5 << 4, 0)
    tcp_flags = np.where(kind == SYN, 0x02, 0x10)  # SYN, else ACK
    tcp_flags = tcp_flags | np.where(flags & CWR, 0x80, 0) | np.where(flags & ECE, 0x40, 0) | np.where(flags & PSH, 0x08, 0)
    rows["tcp_flags"] = np.where(tcp, tcp_flags, 0)
    rows["window"] = np.where(tcp, 0xFFFF, 0)
    # UDP's length and (absent) checksum sit where TCP's sequence number does
    udp_length = (wire.astype(np.uint64) - 20) & 0xFFFF
    rows["seq"] = np.where(tcp, rows["seq"], udp_length << 16)

    head = np.array([MAGIC_NANOSECONDS, (2 | 4 << 16), 0, 0, 0xFFFF, LINKTYPE_RAW], dtype="<u4")
    path = Path(path)
    with path.open("wb") as file:
        file.write(head.tobytes())
        # each record: its 16-byte pcap header, then only its captured bytes
        raw = rows.view(np.uint8).reshape(n, record.itemsize)
        if n:
            captured = 16 + rows["incl_len"].astype(np.int64)
            if (captured == record.itemsize).all():
                file.write(raw.tobytes())
            else:
                keep = np.arange(record.itemsize)[None, :] < captured[:, None]
                file.write(raw[keep].tobytes())
    return n


def _ip_checksums(rows) -> Any:
    """The IPv4 header checksum of each row (RFC 791: one's complement of the one's
    complement sum of the header's 16-bit words)."""
    import numpy as np

    words = rows.view(np.uint8).reshape(len(rows), -1)[:, 16:36].copy()
    words[:, 10:12] = 0  # the checksum field itself
    total = words.reshape(len(rows), 10, 2).astype(np.uint32)
    total = (total[:, :, 0] << 8 | total[:, :, 1]).sum(axis=1)
    while (total >> 16).any():
        total = (total & 0xFFFF) + (total >> 16)
    return (~total) & 0xFFFF


def write_all(result, directory: str | Path) -> list[Path]:
    """Every capture of ``result`` as ``DIRECTORY/pcap/<link>.pcap``."""
    traces = result.raw.get("traces") or {}
    captures = traces.get("captures") or []
    if not captures:
        return []
    folder = Path(directory) / "pcap"
    folder.mkdir(parents=True, exist_ok=True)
    written, used = [], set()
    for capture in captures:
        # Two link names may make one file name ("a b-c", "a_b-c"): the second gets a number.
        stem = base = _file_name(capture["name"])
        n = 1
        while stem.lower() in used:
            n += 1
            stem = f"{base}~{n}"
        used.add(stem.lower())
        target = folder / f"{stem}.pcap"
        write(capture, target)
        written.append(target)
    return written


# A capture's file name is at most this many bytes of the link's name (with "~N" and
# ".pcap" well inside the 255 bytes a file name may have, whatever the characters).
STEM_BYTES = 200


def _file_name(link: str) -> str:
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in link).lstrip(".")
    return stem.encode("utf-8")[:STEM_BYTES].decode("utf-8", "ignore") or "link"
