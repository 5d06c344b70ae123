// Test vocabulary shared by the HPACK tests and micro-benchmarks: hex literals and field sinks.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/h2/hpack/hpack_decoder.h"

namespace slipstream::http::h2::hpack_test {

using Fields = std::vector<std::pair<std::string, std::string>>;

/// "8286 84be" -> bytes; blanks ignored, lowercase hex digits only.
inline std::string unhex(std::string_view hex) {
    std::string out;
    int high = -1;
    for (char c : hex) {
        if (c == ' ') continue;
        int v = c <= '9' ? c - '0' : c - 'a' + 10;
        if (high < 0) {
            high = v;
        } else {
            out.push_back(static_cast<char>(high * 16 + v));
            high = -1;
        }
    }
    return out;
}

/// Keeps every decoded field; asks the decoder to stop after `stop_after` of them.
class CollectFields final : public HpackFieldSink {
  public:
    explicit CollectFields(std::size_t stop_after = static_cast<std::size_t>(-1)) : stop_after_(stop_after) {}
    bool on_field(std::string_view name, std::string_view value) override {
        fields.emplace_back(name, value);
        return fields.size() < stop_after_;
    }
    Fields fields;

  private:
    std::size_t stop_after_;
};

/// Counts the decoded bytes only (no allocation: the allocation test and the benchmarks use it).
class CountFields final : public HpackFieldSink {
  public:
    bool on_field(std::string_view name, std::string_view value) override {
        bytes += name.size() + value.size();
        return true;
    }
    std::size_t bytes = 0;
};

}  // namespace slipstream::http::h2::hpack_test
