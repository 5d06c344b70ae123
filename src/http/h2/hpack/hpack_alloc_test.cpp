// Tests: once warm, encoding and decoding header blocks allocate nothing (a counting global operator new).
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <string>

#include "http/h2/hpack/hpack_decoder.h"
#include "http/h2/hpack/hpack_encoder.h"
#include "http/h2/hpack/hpack_test_sinks.h"

namespace {

thread_local bool counting = false;
thread_local std::size_t allocations = 0;

}  // namespace

void* operator new(std::size_t n) {
    if (counting) ++allocations;
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}

namespace slipstream::http::h2 {
namespace {

using hpack_test::CountFields;

// One response: new values every block (a date, a request id, a length), some entered into the table, so the
// table keeps evicting and compacting.
void encode_response(HpackEncoder& e, std::string& out, unsigned i) {
    char id[33];
    for (unsigned j = 0; j < 32; ++j)
        id[j] = "0123456789abcdef"[(i * 31 + j * 7 + (i >> 3) * j) % 16];
    id[32] = '\0';
    char date[32];
    std::snprintf(date, sizeof date, "Tue, 01 Dec 2026 00:%02u:%02u GMT", (i / 60) % 60, i % 60);
    char length[12];
    std::snprintf(length, sizeof length, "%u", i % 5000);
    e.begin_block(out);
    e.status(out, i % 7 == 0 ? 404 : 200);
    e.field(out, "content-type", i % 3 == 0 ? "text/plain" : "application/json", HpackIndexing::kIncremental);
    e.field(out, "content-length", length, HpackIndexing::kIncremental);
    e.field(out, "date", date, HpackIndexing::kIncremental);
    e.field(out, "server", "slipstream", HpackIndexing::kIncremental);
    e.field(out, "x-request-id", id, i % 100 == 0 ? HpackIndexing::kIncremental : HpackIndexing::kNever);
    e.field(out, "x-huffman-resistant", "\x01\x02\x03\xff", HpackIndexing::kWithout);
}

TEST(HpackAlloc, WarmEncodeAndDecodeAllocateNothing) {
    HpackEncoder encoder;
    HpackDecoder decoder;
    CountFields sink;
    std::string out;
    out.reserve(1024);
    unsigned i = 0;
    for (; i < 5000; ++i) {  // warm-up: the tables' buffers reach their steady sizes
        out.clear();
        encode_response(encoder, out, i);
        ASSERT_EQ(decoder.decode(out, sink), HpackStatus::kOk);
    }
    counting = true;
    allocations = 0;
    for (; i < 25000; ++i) {
        out.clear();
        encode_response(encoder, out, i);
        if (decoder.decode(out, sink) != HpackStatus::kOk) break;
    }
    counting = false;
    EXPECT_EQ(i, 25000u);
    EXPECT_EQ(allocations, 0u);
    EXPECT_GT(decoder.table().count(), 0u);
}

}  // namespace
}  // namespace slipstream::http::h2
