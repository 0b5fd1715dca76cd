"""Minimal pcap reader (standard library): raw-IP / SLL / Ethernet captures of IPv4 TCP."""
import struct


def read_tcp(path):
    """Yield (t, src, dst, sport, dport, seq, ack, flags, paylen, opts, ip_total_len) for every IPv4 TCP packet."""
    with open(path, "rb") as f:
        gh = f.read(24)
        magic = struct.unpack("<I", gh[:4])[0]
        if magic in (0xa1b2c3d4, 0xa1b23c4d):
            e = "<"
        else:
            e = ">"
            magic = struct.unpack(">I", gh[:4])[0]
        nano = magic == 0xa1b23c4d
        linktype = struct.unpack(e + "I", gh[20:24])[0]
        off = {101: 0, 12: 0, 14: 0, 228: 0, 1: 14, 113: 16, 276: 20}[linktype]
        while True:
            rh = f.read(16)
            if len(rh) < 16:
                break
            sec, frac, incl, orig = struct.unpack(e + "IIII", rh)
            data = f.read(incl)
            t = sec + frac / (1e9 if nano else 1e6)
            ip = data[off:]
            if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
                continue
            ihl = (ip[0] & 15) * 4
            tot = struct.unpack("!H", ip[2:4])[0]
            src = ".".join(map(str, ip[12:16]))
            dst = ".".join(map(str, ip[16:20]))
            tcp = ip[ihl:]
            sport, dport, seq, ack, offf, flags = struct.unpack("!HHIIBB", tcp[:14])
            thl = (offf >> 4) * 4
            paylen = tot - ihl - thl
            yield (t, src, dst, sport, dport, seq, ack, flags, paylen, tcp[20:thl], tot)
