// PartSink and FieldSink: where the form parsers deliver what they read.
#pragma once

#include <string_view>

#include "base/status.h"
#include "http/multipart/part_head.h"

namespace slipstream::http::multipart {

/// Receives multipart parts in order: begin, data (zero or more times), end. Views are valid only during the
/// call. A returned error stops the parser, which then reports that status.
class PartSink {
  public:
    virtual ~PartSink() = default;
    [[nodiscard]] virtual base::Status on_part_begin(const PartHead& head) = 0;
    [[nodiscard]] virtual base::Status on_part_data(std::string_view data) = 0;
    [[nodiscard]] virtual base::Status on_part_end() = 0;
};

/// Receives decoded application/x-www-form-urlencoded pairs in order.
class FieldSink {
  public:
    virtual ~FieldSink() = default;
    [[nodiscard]] virtual base::Status on_field(std::string_view name, std::string_view value) = 0;
};

}  // namespace slipstream::http::multipart
