// Test helper: a strict line reader for the text exposition format, to check what render() writes.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace slipstream::metrics::test_util {

struct Sample {
    std::string name;                                         // with any _bucket/_sum/_count suffix
    std::vector<std::pair<std::string, std::string>> labels;  // values unescaped
    double value = 0;
};

struct ParsedFamily {
    std::string name;
    std::string help;  // unescaped; empty when there was no HELP line
    std::string type;
    std::vector<Sample> samples;
};

/// Parses a whole exposition. Fails (invalid_argument, "line N: why") on any malformed line, a sample
/// without a preceding TYPE for its family, a sample name that does not belong to that family, a
/// duplicate TYPE/HELP, a missing final newline, or a histogram whose buckets are not cumulative, do not
/// end in le="+Inf", or whose +Inf bucket differs from _count.
base::Result<std::vector<ParsedFamily>> parse_exposition(std::string_view text);

}  // namespace slipstream::metrics::test_util
