// Micro-benchmarks: HPACK decoding of an h2load-like request block and encoding of a typical response, warm.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "http/h2/hpack/hpack_decoder.h"
#include "http/h2/hpack/hpack_encoder.h"
#include "http/h2/hpack/hpack_huffman.h"
#include "http/h2/hpack/hpack_test_sinks.h"

namespace slipstream::http::h2 {
namespace {

using hpack_test::CountFields;

// The 7 fields h2load sends, encoded as a client would (indexed once, then from the table).
void encode_request(HpackEncoder& e, std::string& out) {
    e.begin_block(out);
    e.field(out, ":method", "GET", HpackIndexing::kIncremental);
    e.field(out, ":scheme", "http", HpackIndexing::kIncremental);
    e.field(out, ":authority", "127.0.0.1:8080", HpackIndexing::kIncremental);
    e.field(out, ":path", "/hello", HpackIndexing::kIncremental);
    e.field(out, "accept", "*/*", HpackIndexing::kIncremental);
    e.field(out, "accept-encoding", "gzip, deflate", HpackIndexing::kIncremental);
    e.field(out, "user-agent", "h2load nghttp2/1.52.0", HpackIndexing::kIncremental);
}

void BM_DecodeRequestWarm(benchmark::State& state) {
    HpackEncoder e;
    std::string first;
    std::string warm;
    encode_request(e, first);
    encode_request(e, warm);
    HpackDecoder d;
    CountFields sink;
    if (d.decode(first, sink) != HpackStatus::kOk) state.SkipWithError("first block");
    for (auto _ : state) {
        HpackStatus s = d.decode(warm, sink);
        benchmark::DoNotOptimize(s);
    }
    benchmark::DoNotOptimize(sink.bytes);
}
BENCHMARK(BM_DecodeRequestWarm);

// The first block of a connection: literals, Huffman-coded, entered into the table.
void BM_DecodeRequestFirst(benchmark::State& state) {
    HpackEncoder e;
    std::string first;
    encode_request(e, first);
    CountFields sink;
    for (auto _ : state) {
        HpackDecoder d;
        HpackStatus s = d.decode(first, sink);
        benchmark::DoNotOptimize(s);
    }
}
BENCHMARK(BM_DecodeRequestFirst);

std::vector<std::string> request_ids() {
    std::vector<std::string> ids;
    const char* hex = "0123456789abcdef";
    for (unsigned i = 0; i < 64; ++i) {
        std::string id;
        for (unsigned j = 0; j < 32; ++j)
            id.push_back(hex[(i * 7 + j * 13 + (i >> 2) * j) % 16]);
        ids.push_back(id);
    }
    return ids;
}

// x-request-id goes never-indexed, except one value entered once (as the session does every second), so its
// name comes from the dynamic table.
void encode_response(HpackEncoder& e, std::string& out, const std::string& request_id,
                     HpackIndexing id_indexing = HpackIndexing::kNever) {
    e.begin_block(out);
    e.status(out, 200);
    e.field(out, "content-type", "application/json", HpackIndexing::kIncremental);
    e.field(out, "content-length", "17", HpackIndexing::kIncremental);
    e.field(out, "date", "Tue, 01 Dec 2026 00:30:00 GMT", HpackIndexing::kIncremental);
    e.field(out, "server", "slipstream", HpackIndexing::kIncremental);
    e.field(out, "x-request-id", request_id, id_indexing);
}

void BM_EncodeResponseWarm(benchmark::State& state) {
    std::vector<std::string> ids = request_ids();
    HpackEncoder e;
    std::string out;
    encode_response(e, out, ids[0], HpackIndexing::kIncremental);
    std::size_t i = 0;
    for (auto _ : state) {
        out.clear();
        encode_response(e, out, ids[++i & 63]);
        benchmark::DoNotOptimize(out.data());
    }
}
BENCHMARK(BM_EncodeResponseWarm);

void BM_HuffmanEncodeRequestId(benchmark::State& state) {
    std::vector<std::string> ids = request_ids();
    std::string out;
    std::size_t i = 0;
    for (auto _ : state) {
        out.clear();
        huffman_encode(ids[++i & 63], out);
        benchmark::DoNotOptimize(out.data());
    }
}
BENCHMARK(BM_HuffmanEncodeRequestId);

void BM_HuffmanDecodeRequestId(benchmark::State& state) {
    std::vector<std::string> codes;
    for (const std::string& id : request_ids()) {
        codes.emplace_back();
        huffman_encode(id, codes.back());
    }
    std::string out;
    std::size_t i = 0;
    for (auto _ : state) {
        out.clear();
        bool ok = huffman_decode(codes[++i & 63], out);
        benchmark::DoNotOptimize(ok);
    }
}
BENCHMARK(BM_HuffmanDecodeRequestId);

}  // namespace
}  // namespace slipstream::http::h2

BENCHMARK_MAIN();
