// Test support: the shared test corpora (SLIPSTREAM_TEST_DATA) read by the structured-output tests.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include "json/parse.h"

namespace slipstream::agent::structured::testing {

/// SLIPSTREAM_TEST_DATA, else ../shared/data beside the source tree.
inline std::filesystem::path test_data_dir() {
    if (const char* d = std::getenv("SLIPSTREAM_TEST_DATA"); d != nullptr && *d != '\0') return d;
    return std::filesystem::path(SLIPSTREAM_SOURCE_ROOT) / ".." / "shared" / "data";
}

inline std::optional<std::string> read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return std::nullopt;
    return std::string(std::istreambuf_iterator<char>(in), {});
}

/// The suite nests deeper than the default limit.
inline json::ParseOptions deep() {
    json::ParseOptions o;
    o.max_depth = 256;
    return o;
}

}  // namespace slipstream::agent::structured::testing
