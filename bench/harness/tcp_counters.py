"""TCP segment counters of the machine's network namespace (/proc/net/snmp), read before and after a run.

On loopback every segment is sent once and received once, so OutSegs per response counts the segments each
exchange costs, both directions together: 2 for a request and its response with no pure ACKs.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TcpCounters:
    out_segments: int
    retransmitted: int

    def __sub__(self, other: TcpCounters) -> TcpCounters:
        return TcpCounters(self.out_segments - other.out_segments, self.retransmitted - other.retransmitted)


def parse_snmp(text: str) -> TcpCounters:
    """The Tcp: header and value lines of /proc/net/snmp."""
    rows = [line.split()[1:] for line in text.splitlines() if line.startswith("Tcp:")]
    if len(rows) < 2 or len(rows[0]) != len(rows[1]):
        raise ValueError("no Tcp: header and value lines in /proc/net/snmp")
    values = dict(zip(rows[0], rows[1]))
    try:
        return TcpCounters(out_segments=int(values["OutSegs"]), retransmitted=int(values["RetransSegs"]))
    except (KeyError, ValueError) as error:
        raise ValueError(f"unusable Tcp: counters in /proc/net/snmp: {error}") from None


def read(proc: str = "/proc") -> TcpCounters | None:
    """None where the counters cannot be read (no /proc/net/snmp): the run goes on without them."""
    try:
        with open(f"{proc}/net/snmp") as f:
            return parse_snmp(f.read())
    except (OSError, ValueError):
        return None


def segments_per_response(before: TcpCounters | None, after: TcpCounters | None, responses: int) -> float | None:
    if before is None or after is None or responses <= 0:
        return None
    return (after - before).out_segments / responses
