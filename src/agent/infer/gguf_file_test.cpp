// Tests of GgufFile: every metadata type read back exactly, and hostile or truncated files rejected with a reason.
#include "agent/infer/gguf_file.h"

#include <gtest/gtest.h>

#include "agent/infer/gguf_test_writer.h"

namespace slipstream::agent::infer {
namespace {

using testing::GgufTestWriter;
using testing::TempFile;

base::Result<std::unique_ptr<GgufFile>> open_bytes(const std::string& bytes, GgufLimits limits = {}) {
    TempFile f(bytes);
    return GgufFile::open(f.path(), limits);
}

TEST(GgufFile, ReadsEveryScalarType) {
    GgufTestWriter w;
    w.kv_raw("u8", 0, std::string(1, '\xff'));
    w.kv_raw("i8", 1, std::string(1, '\x80'));
    w.kv_raw("u16", 2, std::string("\xff\xff", 2));
    w.kv_raw("i16", 3, std::string("\x00\x80", 2));
    w.kv_u32("u32", 4000000000u);
    w.kv_i32("i32", -7);
    w.kv_f32("f32", 0.5f);
    w.kv_bool("yes", true);
    w.kv_str("s", "hello");
    std::string u64;
    GgufTestWriter::put_u64(u64, 1ull << 40);
    w.kv_raw("u64", 10, u64);
    std::string i64;
    GgufTestWriter::put_u64(i64, static_cast<uint64_t>(-5));
    w.kv_raw("i64", 11, i64);
    double d = -2.25;
    w.kv_raw("f64", 12, std::string(reinterpret_cast<const char*>(&d), 8));
    auto f = open_bytes(w.bytes());
    ASSERT_TRUE(f.is_ok()) << f.status().to_string();
    const GgufFile& g = **f;
    EXPECT_EQ(g.version(), 3u);
    EXPECT_EQ(g.metadata().size(), 12u);
    EXPECT_EQ(g.get_int("u8"), 255);
    EXPECT_EQ(g.get_int("i8"), -128);
    EXPECT_EQ(g.get_int("u16"), 65535);
    EXPECT_EQ(g.get_int("i16"), -32768);
    EXPECT_EQ(g.get_int("u32"), 4000000000);
    EXPECT_EQ(g.get_int("i32"), -7);
    EXPECT_EQ(g.get_float("f32"), 0.5);
    EXPECT_EQ(g.get_float("i32"), -7.0);  // integers read as floats too
    EXPECT_EQ(g.get_bool("yes"), true);
    EXPECT_EQ(g.get_string("s"), "hello");
    EXPECT_EQ(g.get_int("u64"), int64_t{1} << 40);
    EXPECT_EQ(g.get_int("i64"), -5);
    EXPECT_EQ(g.get_float("f64"), -2.25);
    EXPECT_EQ(g.get_int("s"), std::nullopt);  // wrong kind
    EXPECT_EQ(g.get_string("missing"), std::nullopt);
    EXPECT_TRUE(g.tensors().empty());
}

TEST(GgufFile, ReadsArraysByElementKind) {
    GgufTestWriter w;
    w.set_version(2);
    w.kv_str_array("names", {"a", "", "ccc"});
    w.kv_f32_array("scores", {1.5f, -2.0f});
    w.kv_i32_array("types", {1, 3, 6});
    w.kv_raw("flags", 9, std::string("\x07\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x01\x00", 14));
    auto f = open_bytes(w.bytes());
    ASSERT_TRUE(f.is_ok()) << f.status().to_string();
    const GgufFile& g = **f;
    EXPECT_EQ(g.version(), 2u);
    ASSERT_NE(g.get_string_array("names"), nullptr);
    EXPECT_EQ(*g.get_string_array("names"), (std::vector<std::string>{"a", "", "ccc"}));
    ASSERT_NE(g.get_float_array("scores"), nullptr);
    EXPECT_EQ(*g.get_float_array("scores"), (std::vector<double>{1.5, -2.0}));
    ASSERT_NE(g.get_int_array("types"), nullptr);
    EXPECT_EQ(*g.get_int_array("types"), (std::vector<int64_t>{1, 3, 6}));
    EXPECT_EQ(g.get_int_array("names"), nullptr);
    const auto& flags = std::get<GgufValue::Array>(g.find("flags")->value);
    EXPECT_EQ(std::get<std::vector<bool>>(flags), (std::vector<bool>{true, false}));
}

TEST(GgufFile, TensorViewsHonourAlignment) {
    for (uint32_t alignment : {32u, 64u}) {
        GgufTestWriter w;
        w.set_alignment(alignment);
        if (alignment != 32) w.kv_u32("general.alignment", alignment);
        w.f32_tensor("a", {3}, {1, 2, 3});
        w.f32_tensor("b", {2, 2}, {4, 5, 6, 7});
        w.tensor("q", 8, {32, 1}, std::string(34, '\x01'));
        auto f = open_bytes(w.bytes());
        ASSERT_TRUE(f.is_ok()) << f.status().to_string();
        const GgufFile& g = **f;
        ASSERT_EQ(g.tensors().size(), 3u);
        const GgufTensor* b = g.tensor("b");
        ASSERT_NE(b, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data) % alignment, 0u);
        EXPECT_EQ(b->dims, (std::vector<int64_t>{2, 2}));
        EXPECT_EQ(b->bytes, 16u);
        EXPECT_EQ(static_cast<const float*>(b->data)[3], 7.0f);
        WeightMatrix m = b->matrix();
        EXPECT_EQ(m.rows, 2);
        EXPECT_EQ(m.cols, 2);
        EXPECT_EQ(g.tensor("q")->type, GgmlType::kQ8_0);
        EXPECT_EQ(g.tensor("q")->bytes, 34u);
        EXPECT_EQ(g.tensor("a")->elements(), 3);
        EXPECT_EQ(g.tensor("nope"), nullptr);
    }
}

// A header with the given counts, then `rest`.
std::string header(uint64_t n_tensors, uint64_t n_kv, const std::string& rest, uint32_t version = 3) {
    std::string out = "GGUF";
    GgufTestWriter::put_u32(out, version);
    GgufTestWriter::put_u64(out, n_tensors);
    GgufTestWriter::put_u64(out, n_kv);
    return out + rest;
}

std::string kv(const std::string& key, uint32_t type, const std::string& value) {
    std::string out;
    GgufTestWriter::put_str(out, key);
    GgufTestWriter::put_u32(out, type);
    return out + value;
}

std::string u64(uint64_t v) {
    std::string out;
    GgufTestWriter::put_u64(out, v);
    return out;
}
std::string u32(uint32_t v) {
    std::string out;
    GgufTestWriter::put_u32(out, v);
    return out;
}

std::string tensor_info(const std::string& name, std::vector<uint64_t> dims, uint32_t type, uint64_t offset) {
    std::string out;
    GgufTestWriter::put_str(out, name);
    GgufTestWriter::put_u32(out, static_cast<uint32_t>(dims.size()));
    for (auto d : dims)
        GgufTestWriter::put_u64(out, d);
    GgufTestWriter::put_u32(out, type);
    GgufTestWriter::put_u64(out, offset);
    return out;
}

struct HostileCase {
    const char* name;
    std::string bytes;
    const char* expected;  // a substring of the error message
};

std::vector<HostileCase> hostile_cases() {
    const std::string pad(32 - 24 - 0, '\0');
    std::vector<HostileCase> c = {
        {"bad magic", "GGML" + std::string(20, '\0'), "bad magic"},
        {"version 1", header(0, 0, "", 1), "version 1 is not supported"},
        {"version 4", header(0, 0, "", 4), "version 4 is not supported"},
        {"too short", std::string("GGUF\x03\x00\x00", 7), "too short"},
        {"kv count past end", header(0, 5, ""), "truncated at byte 24 reading metadata key"},
        {"kv count over limit", header(0, 1u << 20, ""), "max_metadata_entries"},
        {"tensor count overflow", header(~0ull, 0, ""), "max_tensors"},
        {"key length past end", header(0, 1, u64(1000) + "abc"), "runs past the end of the file"},
        {"key length huge", header(0, 1, u64(~0ull)), "max_string_bytes"},
        {"string value past end", header(0, 1, kv("k", 8, u64(50) + "short")), "runs past the end"},
        {"unknown value type", header(0, 1, kv("k", 13, "")), "key 'k': unknown value type 13"},
        {"bool not 0/1", header(0, 1, kv("k", 7, "\x02")), "bool value 2"},
        {"uint64 too big", header(0, 1, kv("k", 10, u64(~0ull))), "does not fit int64"},
        {"nested array", header(0, 1, kv("k", 9, u32(9) + u64(1))), "nested arrays"},
        {"array element type", header(0, 1, kv("k", 9, u32(77) + u64(1))), "unknown array element type 77"},
        {"array count overflow", header(0, 1, kv("k", 9, u32(5) + u64(1u << 23))), "runs past the end of the file"},
        {"array count over limit", header(0, 1, kv("k", 9, u32(0) + u64(1ull << 40))), "max_array_elements"},
        {"string array past end", header(0, 1, kv("k", 9, u32(8) + u64(2) + u64(1) + "a" + u64(9) + "b")),
         "array string length 9"},
        {"truncated value", header(0, 1, kv("k", 11, "\x01\x02")), "reading metadata value"},
        {"duplicate key", header(0, 2, kv("k", 0, "\x01") + kv("k", 0, "\x02")), "duplicate key 'k'"},
        {"alignment not power of two", header(0, 1, kv("general.alignment", 4, u32(24))), "power of two"},
        {"alignment zero", header(0, 1, kv("general.alignment", 4, u32(0))), "power of two"},
        {"unknown tensor type", header(1, 0, tensor_info("blk.0.w", {32}, 6, 0)),
         "tensor 'blk.0.w' has unsupported type 6"},
        {"zero dims", header(1, 0, tensor_info("t", {}, 0, 0)), "0 dimensions"},
        {"five dims", header(1, 0, tensor_info("t", {1, 1, 1, 1, 1}, 0, 0)), "5 dimensions"},
        {"zero-sized dim", header(1, 0, tensor_info("t", {4, 0}, 0, 0)), "dimension 1 = 0"},
        {"element count overflow", header(1, 0, tensor_info("t", {1ull << 32, 1ull << 32}, 0, 0)),
         "overflows the element count"},
        {"byte count overflow", header(1, 0, tensor_info("t", {1ull << 31, 1ull << 31}, 0, 0)), "byte size overflows"},
        {"block misfit", header(1, 0, tensor_info("t", {33}, 2, 0)), "not a multiple of the q4_0 block (32)"},
        {"tensor past end", header(1, 0, tensor_info("t", {16}, 0, 0) + std::string(64, '\0')),
         "tensor 't' (64 bytes at data offset 0) extends past the end of the file"},
        {"tensor offset past end", header(1, 0, tensor_info("t", {1}, 0, 1ull << 62) + std::string(64, '\0')),
         "extends past the end"},
        {"unaligned offset", header(1, 0, tensor_info("t", {1}, 0, 4) + std::string(64, '\0')),
         "not a multiple of the alignment"},
        {"duplicate tensor", header(2, 0, tensor_info("t", {1}, 0, 0) + tensor_info("t", {1}, 0, 32)),
         "duplicate tensor 't'"},
        {"truncated tensor info", header(1, 0, tensor_info("t", {4}, 0, 0).substr(0, 20)), "truncated at byte"},
    };
    return c;
}

TEST(GgufFile, RejectsHostileFilesWithAReason) {
    for (const auto& c : hostile_cases()) {
        auto f = open_bytes(c.bytes);
        ASSERT_FALSE(f.is_ok()) << c.name;
        EXPECT_TRUE(f.status().is_invalid_argument()) << c.name << ": " << f.status().to_string();
        EXPECT_NE(f.status().message().find(c.expected), std::string::npos) << c.name << ": " << f.status().message();
    }
}

// Every prefix of a valid file is rejected (or, for the full length, accepted) without reading past the mapping.
TEST(GgufFile, EveryTruncationIsAnError) {
    GgufTestWriter w;
    w.kv_str("general.architecture", "llama");
    w.kv_str_array("tokenizer.ggml.tokens", {"a", "b"});
    w.kv_f32_array("tokenizer.ggml.scores", {0.0f, -1.0f});
    w.f32_tensor("t", {4}, {1, 2, 3, 4});
    const std::string bytes = w.bytes();
    int rejected = 0;
    for (std::size_t n = 0; n < bytes.size(); ++n)
        rejected += open_bytes(bytes.substr(0, n)).is_ok() ? 0 : 1;
    EXPECT_EQ(rejected, static_cast<int>(bytes.size()));
    EXPECT_TRUE(open_bytes(bytes).is_ok());
}

TEST(GgufFile, LimitsAreApplied) {
    GgufTestWriter w;
    w.kv_str("k", std::string(100, 'x'));
    GgufLimits limits;
    limits.max_string_bytes = 99;
    auto f = open_bytes(w.bytes(), limits);
    ASSERT_FALSE(f.is_ok());
    EXPECT_NE(f.status().message().find("metadata string of 100 bytes exceeds max_string_bytes (99)"),
              std::string::npos)
        << f.status().message();
}

TEST(GgufFile, MissingFileIsAnIoError) {
    auto f = GgufFile::open("/nonexistent/model.gguf");
    ASSERT_FALSE(f.is_ok());
    EXPECT_TRUE(f.status().is_io_error());
}

}  // namespace
}  // namespace slipstream::agent::infer
