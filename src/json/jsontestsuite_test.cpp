// Runs JSONTestSuite's test_parsing corpus: every y_ accepted, every n_ rejected, i_ as recorded below.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "json/parse.h"
#include "json/strict_parser.h"

namespace slipstream::json {
namespace {

namespace fs = std::filesystem;

fs::path test_data_dir() {
    if (const char* d = std::getenv("SLIPSTREAM_TEST_DATA"); d != nullptr && *d != '\0') return d;
    if (const char* s = std::getenv("SLIPSTREAM_SOURCE_DIR"); s != nullptr && *s != '\0') {
        return fs::path(s) / ".." / "shared" / "data";
    }
    return fs::path(SLIPSTREAM_JSON_SOURCE_DIR) / ".." / "shared" / "data";
}

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Implementation {
    bool accept;
    std::string_view message;  // ParseError::message when rejected; why, when accepted
};

// Implementation-defined cases, with default ParseOptions. Also in README.md.
const std::map<std::string, Implementation, std::less<>> kImplementationDefined = {
    {"i_number_double_huge_neg_exp.json", {true, "underflows to 0.0, like Python"}},
    {"i_number_huge_exp.json", {false, "Number out of range"}},
    {"i_number_neg_int_huge_exp.json", {false, "Number out of range"}},
    {"i_number_pos_double_huge_exp.json", {false, "Number out of range"}},
    {"i_number_real_neg_overflow.json", {false, "Number out of range"}},
    {"i_number_real_pos_overflow.json", {false, "Number out of range"}},
    {"i_number_real_underflow.json", {true, "underflows to 0.0, like Python"}},
    {"i_number_too_big_neg_int.json", {true, "beyond int64: exact kBigInt"}},
    {"i_number_too_big_pos_int.json", {true, "beyond uint64: exact kBigInt"}},
    {"i_number_very_big_negative_int.json", {true, "beyond int64: exact kBigInt"}},
    {"i_object_key_lone_2nd_surrogate.json", {false, "Lone surrogate in \\uXXXX escape"}},
    {"i_string_1st_surrogate_but_2nd_missing.json", {false, "Lone surrogate in \\uXXXX escape"}},
    {"i_string_1st_valid_surrogate_2nd_invalid.json", {false, "Lone surrogate in \\uXXXX escape"}},
    {"i_string_UTF-16LE_with_BOM.json", {false, "Invalid UTF-8"}},
    {"i_string_UTF-8_invalid_sequence.json", {false, "Invalid UTF-8"}},
    {"i_string_UTF8_surrogate_U+D800.json", {false, "Invalid UTF-8"}},
    {"i_string_incomplete_surrogate_and_escape_valid.json", {false, "Lone surrogate in \\uXXXX escape"}},
    {"i_string_incomplete_surrogate_pair.json", {false, "Lone surrogate in \\uXXXX escape"}},
    {"i_string_incomplete_surrogates_escape_valid.json", {false, "Lone surrogate in \\uXXXX escape"}},
    {"i_string_invalid_lonely_surrogate.json", {false, "Lone surrogate in \\uXXXX escape"}},
    {"i_string_invalid_surrogate.json", {false, "Lone surrogate in \\uXXXX escape"}},
    {"i_string_invalid_utf-8.json", {false, "Invalid UTF-8"}},
    {"i_string_inverted_surrogates_U+1D11E.json", {false, "Lone surrogate in \\uXXXX escape"}},
    {"i_string_iso_latin_1.json", {false, "Invalid UTF-8"}},
    {"i_string_lone_second_surrogate.json", {false, "Lone surrogate in \\uXXXX escape"}},
    {"i_string_lone_utf8_continuation_byte.json", {false, "Invalid UTF-8"}},
    {"i_string_not_in_unicode_range.json", {false, "Invalid UTF-8"}},
    {"i_string_overlong_sequence_2_bytes.json", {false, "Invalid UTF-8"}},
    {"i_string_overlong_sequence_6_bytes.json", {false, "Invalid UTF-8"}},
    {"i_string_overlong_sequence_6_bytes_null.json", {false, "Invalid UTF-8"}},
    {"i_string_truncated-utf-8.json", {false, "Invalid UTF-8"}},
    {"i_string_utf16BE_no_BOM.json", {false, "Invalid UTF-8"}},
    {"i_string_utf16LE_no_BOM.json", {false, "Invalid UTF-8"}},
    {"i_structure_500_nested_arrays.json", {false, "Nesting deeper than 64"}},
    {"i_structure_UTF-8_BOM_empty_object.json", {true, "a leading UTF-8 BOM is skipped, like json.loads(bytes)"}},
};

std::string_view without_bom(std::string_view s) {
    return s.starts_with("\xEF\xBB\xBF") ? s.substr(3) : s;
}

TEST(JsonTestSuite, TestParsing) {
    const fs::path dir = test_data_dir() / "jsontestsuite" / "test_parsing";
    if (!fs::is_directory(dir)) GTEST_SKIP() << "JSONTestSuite not found at " << dir << " (set SLIPSTREAM_TEST_DATA)";
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        files.push_back(e.path());
    std::sort(files.begin(), files.end());

    int y_pass = 0, y_total = 0, n_pass = 0, n_total = 0, i_pass = 0, i_total = 0;
    for (const fs::path& p : files) {
        const std::string name = p.filename().string();
        SCOPED_TRACE(name);
        const std::string text = read_file(p);
        base::Arena arena;
        ParseError error;
        base::Result<const Value*> r = parse(text, arena, {}, &error);
        // The strict parser alone must decide the same way (it is parse()'s fallback).
        base::Result<const Value*> strict = detail::parse_strict(without_bom(text), arena, {}, nullptr);
        EXPECT_EQ(r.is_ok(), strict.is_ok());
        bool pass = r.is_ok() == strict.is_ok();
        switch (name[0]) {
            case 'y':
                ++y_total;
                pass = pass && r.is_ok();
                EXPECT_TRUE(r.is_ok()) << error.message << " at " << error.offset;
                y_pass += pass;
                break;
            case 'n':
                ++n_total;
                pass = pass && !r.is_ok();
                EXPECT_FALSE(r.is_ok());
                n_pass += pass;
                break;
            case 'i': {
                ++i_total;
                auto it = kImplementationDefined.find(name);
                if (it == kImplementationDefined.end()) {
                    ADD_FAILURE() << "i_ case missing from the table";
                    break;
                }
                pass = pass && r.is_ok() == it->second.accept && (r.is_ok() || error.message == it->second.message);
                EXPECT_EQ(r.is_ok(), it->second.accept);
                if (!r.is_ok()) {
                    EXPECT_EQ(error.message, it->second.message);
                }
                i_pass += pass;
                break;
            }
            default:
                break;
        }
    }
    std::printf("JSONTestSuite: y_ accepted %d/%d, n_ rejected %d/%d, i_ as recorded %d/%d\n", y_pass, y_total, n_pass,
                n_total, i_pass, i_total);
    EXPECT_EQ(i_total, static_cast<int>(kImplementationDefined.size()));
    EXPECT_GT(y_total, 90);
    EXPECT_GT(n_total, 180);
}

}  // namespace
}  // namespace slipstream::json
