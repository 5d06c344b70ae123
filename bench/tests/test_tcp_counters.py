"""TCP segment counters: /proc/net/snmp parsing, and a real exchange over loopback counted by the kernel."""
import socket

import pytest
from harness import tcp_counters

SNMP = """Ip: Forwarding DefaultTTL InReceives
Ip: 1 64 100
Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors
Tcp: 1 200 120000 -1 28695 28267 352 13924 0 55173836 55166782 188 0 10316 0
Udp: InDatagrams NoPorts
Udp: 5 6
"""


def test_parse_snmp_reads_the_tcp_value_line_by_its_header():
    assert tcp_counters.parse_snmp(SNMP) == tcp_counters.TcpCounters(out_segments=55166782, retransmitted=188)


@pytest.mark.parametrize("text", ["", "Tcp: InSegs OutSegs\n", "Tcp: OutSegs\nTcp: x\n",
                                  "Tcp: InSegs OutSegs RetransSegs\nTcp: 1 2\n"])
def test_parse_snmp_refuses_what_it_cannot_read(text):
    with pytest.raises(ValueError):
        tcp_counters.parse_snmp(text)


def test_read_without_proc_is_none(tmp_path):
    assert tcp_counters.read(str(tmp_path)) is None


def test_segments_per_response():
    before, after = tcp_counters.TcpCounters(100, 0), tcp_counters.TcpCounters(300, 1)
    assert tcp_counters.segments_per_response(before, after, 100) == pytest.approx(2.0)
    assert tcp_counters.segments_per_response(None, after, 100) is None
    assert tcp_counters.segments_per_response(before, after, 0) is None


def test_a_loopback_exchange_is_counted():
    before = tcp_counters.read()
    if before is None:
        pytest.skip("no /proc/net/snmp on this machine")
    with socket.create_server(("127.0.0.1", 0)) as server, socket.create_connection(server.getsockname()) as client:
        peer, _ = server.accept()
        with peer:
            for _ in range(20):
                client.sendall(b"ping")
                assert peer.recv(16) == b"ping"
                peer.sendall(b"pong")
                assert client.recv(16) == b"pong"
    after = tcp_counters.read()
    # The handshake (3), 40 data segments and the closing exchange: at least the 40 data segments.
    assert (after - before).out_segments >= 40
