"""bench/infer_serve.py's pure parts: request generation, percentiles, TPOT and goodput, SSE parsing, the streamed
response reader (fed bytes, no server) and the ledger section."""
import argparse
import asyncio
import json
import math
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import infer_serve as isv


def test_parse_range():
    assert isv.parse_range("64") == (64, 64)
    assert isv.parse_range("64:192") == (64, 192)
    for bad in ("0", "10:5", "x"):
        with pytest.raises(ValueError):
            isv.parse_range(bad)


def test_requests_are_seeded_and_in_range():
    a = isv.make_requests(50, 7, (64, 192), (32, 96), (300, 8000))
    b = isv.make_requests(50, 7, (64, 192), (32, 96), (300, 8000))
    c = isv.make_requests(50, 8, (64, 192), (32, 96), (300, 8000))
    assert a == b and a != c and len(a) == 50
    for r in a:
        assert 64 <= len(r.prompt) <= 192 and 32 <= r.max_tokens <= 96
        assert all(300 <= t < 8000 for t in r.prompt)
    assert len({len(r.prompt) for r in a}) > 10  # lengths are drawn, not fixed
    fixed = isv.make_requests(5, 1, (100, 100), (64, 64), (300, 400))
    assert {len(r.prompt) for r in fixed} == {100} and {r.max_tokens for r in fixed} == {64}


def test_prefix_requests_share_the_prefix_only():
    reqs = isv.make_prefix_requests(8, 3, 512, 32, 16, (300, 8000))
    prefix = reqs[0].prompt[:512]
    assert all(r.prompt[:512] == prefix and len(r.prompt) == 544 and r.max_tokens == 16 for r in reqs)
    assert len({tuple(r.prompt[512:]) for r in reqs}) == 8


def test_percentile_interpolates_like_numpy():
    values = [float(v) for v in range(1, 11)]
    assert isv.percentile(values, 50) == 5.5
    assert isv.percentile(values, 99) == pytest.approx(9.91)
    assert isv.percentile(values, 0) == 1.0 and isv.percentile(values, 100) == 10.0
    assert isv.percentile([3.0], 99) == 3.0
    assert math.isnan(isv.percentile([], 50))
    np = pytest.importorskip("numpy")
    data = [0.3, 7.1, 2.2, 9.9, 4.4, 0.01, 5.5]
    for p in (1, 25, 50, 90, 99):
        assert isv.percentile(data, p) == pytest.approx(float(np.percentile(data, p)))


def test_tpot_and_slo():
    r = isv.Result(ok=True, ttft=0.5, e2e=2.5, output_tokens=11)
    assert r.tpot == pytest.approx(0.2)
    assert isv.meets_slo(r, 2.0, 0.25) and not isv.meets_slo(r, 2.0, 0.2)  # strictly under the limit
    assert not isv.meets_slo(r, 0.5, 1.0)
    one = isv.Result(ok=True, ttft=0.1, e2e=0.1, output_tokens=1)
    assert one.tpot is None and isv.meets_slo(one, 1.0, 0.001)
    assert not isv.meets_slo(isv.Result(ok=False), 10, 10)


def test_summarize_counts_goodput_and_failures():
    results = [isv.Result(ok=True, ttft=0.1, e2e=1.1, output_tokens=11, itl=[0.1] * 10, usage_tokens=True),
               isv.Result(ok=True, ttft=3.0, e2e=4.0, output_tokens=11, itl=[0.1] * 10, usage_tokens=True),
               isv.Result(ok=True, ttft=0.2, e2e=5.2, output_tokens=11, itl=[0.5] * 10, usage_tokens=True),
               isv.Result(ok=False, error="HTTP 503")]
    s = isv.summarize(results, 2.0, slo_ttft_s=2.0, slo_tpot_s=0.2, input_tokens=100)
    assert (s["completed"], s["failed"], s["output_tokens"]) == (3, 1, 33)
    assert s["request_throughput"] == 1.5 and s["output_throughput"] == 16.5
    assert s["goodput"] == 0.5 and s["good_fraction"] == 0.25  # only the first meets both limits
    assert s["ttft_p50_ms"] == pytest.approx(200.0) and s["tpot_p50_ms"] == pytest.approx(100.0)
    assert s["itl_p50_ms"] == pytest.approx(100.0) and s["itl_p99_ms"] == pytest.approx(500.0)
    assert s["usage_counted"] and s["errors"] == ["HTTP 503"]
    empty = isv.summarize([], 0.0, 1, 1)
    assert empty["completed"] == 0 and math.isnan(empty["ttft_p50_ms"])


def test_sse_events_take_complete_events_only():
    buf = bytearray(b'data: {"a":1}\n\ndata: {"b":2}\r\n\r\n: comment\n\ndata: [DO')
    assert isv.sse_events(buf) == [b'{"a":1}', b'{"b":2}']
    assert buf == bytearray(b"data: [DO")
    buf += b"NE]\n\n"
    assert isv.sse_events(buf) == [b"[DONE]"] and buf == bytearray()


def test_chunk_text():
    assert isv.chunk_text({"choices": [{"text": "hi"}]}) == "hi"
    assert isv.chunk_text({"choices": [{"delta": {"content": "yo"}}]}) == "yo"
    assert isv.chunk_text({"choices": [{"text": ""}]}) == ""
    assert isv.chunk_text({"choices": [], "usage": {}}) == ""


def _chunked(parts):
    return b"".join(f"{len(p):x}\r\n".encode() + p + b"\r\n" for p in parts) + b"0\r\n\r\n"


def _event(obj):
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def _read(raw: bytes) -> isv.Result:
    async def go():
        reader = asyncio.StreamReader()
        reader.feed_data(raw)
        reader.feed_eof()
        return await isv._read_stream(reader, 0.0)
    return asyncio.run(go())


def test_stream_reader_times_text_chunks_and_takes_usage():
    events = [_event({"choices": [{"text": ""}]}),  # sent before any token: not the first token
              _event({"choices": [{"text": "a"}]}), _event({"choices": [{"text": "b"}]}),
              _event({"choices": [{"text": "", "finish_reason": "length"}]}),
              _event({"choices": [], "usage": {"completion_tokens": 5}}), b"data: [DONE]\n\n"]
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    r = _read(head + _chunked(events))
    assert r.ok and r.chunks == 2 and len(r.itl) == 1
    assert r.output_tokens == 5 and r.usage_tokens
    # Without usage the text chunks are the count; a close-delimited body works too.
    r = _read(b"HTTP/1.1 200 OK\r\n\r\n" + b"".join(events[:4]))
    assert r.ok and r.output_tokens == 2 and not r.usage_tokens


def test_stream_reader_reports_errors():
    r = _read(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy")
    assert not r.ok and r.error.startswith("HTTP 503")
    r = _read(b"HTTP/1.1 200 OK\r\n\r\n" + _event({"choices": [{"text": "a"}]}))
    assert not r.ok and r.error == "stream ended early"
    r = _read(b"HTTP/1.1 200 OK\r\n\r\n" + _event({"error": {"message": "boom"}}))
    assert not r.ok and "boom" in r.error


def test_request_body():
    req = isv.Request([5, 6, 7], 9)
    body = isv.request_body(req)
    assert body["prompt"] == [5, 6, 7] and body["max_tokens"] == 9 and body["ignore_eos"] and body["stream"]
    assert "cache_prompt" not in body and isv.request_body(req, False)["cache_prompt"] is False


def test_render_has_both_servers_and_ratios():
    args = isv.parse_args(["--requests", "4", "--concurrency", "1,8"])
    args.model = "/x/m.gguf"
    level = lambda tok, ttft: {"request_throughput": 1.0, "output_throughput": tok, "ttft_p50_ms": ttft,
                               "ttft_p99_ms": 1.0, "tpot_p50_ms": 1.0, "tpot_p99_ms": 1.0, "itl_p50_ms": 1.0,
                               "itl_p99_ms": 1.0, "e2e_p50_ms": 1.0, "goodput": 1.0, "good_fraction": 1.0,
                               "server_cpu_ms_per_token": 1.0, "failed": 0}
    prefix = lambda t: {"ttft_after_first_p50_ms": t, "ttft_after_first_p99_ms": t, "e2e_p50_ms": t}
    measured = {"slipstream": {"levels": {1: level(200.0, 10.0), 8: level(900.0, 20.0)},
                               "prefix": {True: prefix(5.0), False: prefix(50.0)}, "commands": ["a --port 1"]},
                "llamacpp": {"levels": {1: level(100.0, 20.0), 8: level(300.0, 20.0)},
                             "prefix": {True: prefix(10.0), False: prefix(40.0)}, "commands": ["b --port 2"]}}
    measured = isv.combine_rounds({n: [m] for n, m in measured.items()}, "llamacpp")
    meta = {"date": "2026-01-01 00:00 UTC", "commit": "abc", "cpu_model": "CPU", "nproc": 2, "kernel": "6"}
    text = isv.render(meta, args, ["--requests", "4"], measured, {}, {"slipstream": "x", "llamacpp": "y"}, "r.jsonl")
    assert "| slipstream-serve | 1 |" in text and "| llama.cpp llama-server | 8 |" in text
    assert "2.00×" in text and "3.00×" in text  # tok/s ratios at concurrency 1 and 8
    assert "10.00×" in text  # slipstream's prefix cache: off / on
    assert "--port PORT" in text
    skipped = isv.render(meta, args, [], {"slipstream": measured["slipstream"]}, {"llamacpp": "not built"}, {}, "r")
    assert "Not measured: llama.cpp llama-server: not built" in skipped


def test_parse_args_defaults():
    args = isv.parse_args([])
    assert args.concurrency == [1, 8, 32] and args.input_range == (64, 192) and args.output_range == (32, 96)
    assert (args.slo_ttft_ms, args.slo_tpot_ms, args.prefix_len) == (2000.0, 200.0, 512)
    assert isinstance(args, argparse.Namespace)


def test_peer_build_takes_the_cpus_extensions_without_amx():
    args = isv.isa_cmake_args({"avx2", "fma", "avx512f", "avx512_vnni", "amx_int8", "amx_tile"})
    assert "-DGGML_NATIVE=OFF" in args and "-DGGML_AVX2=ON" in args and "-DGGML_AVX512_VNNI=ON" in args
    assert "-DGGML_AVX512_BF16=OFF" in args and "-DGGML_AMX_INT8=OFF" in args and "-DGGML_AMX_TILE=OFF" in args


def test_rounds_are_combined_by_median_and_ratios_paired_by_round():
    def out(tok, ttft, on, off):
        return {"levels": {1: {"output_throughput": tok, "ttft_p50_ms": ttft, "failed": 1}},
                "prefix": {True: {"ttft_after_first_p50_ms": on}, False: {"ttft_after_first_p50_ms": off}},
                "commands": []}
    per_round = {"slipstream": [out(100, 10, 1, 10), out(300, 10, 2, 10), out(200, 20, 1, 30)],
                 "llamacpp": [out(100, 20, 2, 4), out(100, 20, 2, 4), out(400, 20, 2, 4)]}
    m = isv.combine_rounds(per_round, "llamacpp")
    s = m["slipstream"]["levels"][1]
    assert s["output_throughput"] == 200 and (s["output_throughput_min"], s["output_throughput_max"]) == (100, 300)
    assert s["failed"] == 3 and s["rounds"] == 3
    assert s["tok_ratio"] == 1.0  # per round 1.0, 3.0, 0.5: the median, not 200/100
    assert s["ttft_ratio"] == 2.0
    assert m["slipstream"]["prefix"][True]["off_on"] == 10.0 and m["slipstream"]["prefix"][True]["ttft_ratio"] == 2.0
    assert "tok_ratio" not in m["llamacpp"]["levels"][1]


def test_raw_request_rounds_times_to_microseconds():
    d = isv.raw_request(isv.Result(ok=True, ttft=0.123456789, e2e=1.0000004, output_tokens=3, itl=[0.0000016]))
    assert (d["ttft"], d["e2e"], d["itl"], d["output_tokens"]) == (0.123457, 1.0, [0.000002], 3)
