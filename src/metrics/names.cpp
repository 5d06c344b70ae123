// Metric and label name rules of the Prometheus data model.
#include "metrics/names.h"

#include <stdexcept>

namespace slipstream::metrics {
namespace {

bool is_name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// Position of the first character that breaks the rule, or npos when the name is valid.
std::size_t first_bad(std::string_view name, bool allow_colon) {
    for (std::size_t i = 0; i < name.size(); ++i) {
        char c = name[i];
        bool ok = is_name_start(c) || (allow_colon && c == ':') || (i > 0 && is_digit(c));
        if (!ok) return i;
    }
    return std::string_view::npos;
}

std::string describe(char c) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x21 && u < 0x7f) return std::string("'") + c + "'";
    static constexpr char kHex[] = "0123456789abcdef";
    return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
}

[[noreturn]] void fail(std::string msg) {
    throw std::invalid_argument("metrics: " + msg);
}

}  // namespace

void validate_metric_name(std::string_view name) {
    if (name.empty()) fail("metric name is empty");
    std::size_t bad = first_bad(name, true);
    if (bad != std::string_view::npos) {
        fail("invalid metric name \"" + std::string(name) + "\": " + describe(name[bad]) + " at position " +
             std::to_string(bad) + " (must match [a-zA-Z_:][a-zA-Z0-9_:]*)");
    }
}

void validate_label_names(std::string_view metric, const std::vector<std::string>& label_names, bool histogram) {
    const std::string where = "metric \"" + std::string(metric) + "\": ";
    for (std::size_t i = 0; i < label_names.size(); ++i) {
        const std::string& name = label_names[i];
        if (name.empty()) fail(where + "label name " + std::to_string(i) + " is empty");
        std::size_t bad = first_bad(name, false);
        if (bad != std::string_view::npos) {
            fail(where + "invalid label name \"" + name + "\": " + describe(name[bad]) + " at position " +
                 std::to_string(bad) + " (must match [a-zA-Z_][a-zA-Z0-9_]*)");
        }
        if (name.size() >= 2 && name[0] == '_' && name[1] == '_') {
            fail(where + "label name \"" + name + "\" starts with \"__\", which is reserved");
        }
        if (histogram && name == "le") fail(where + "label name \"le\" is reserved for histogram buckets");
        for (std::size_t j = 0; j < i; ++j) {
            if (label_names[j] == name) fail(where + "label name \"" + name + "\" appears twice");
        }
    }
}

}  // namespace slipstream::metrics
