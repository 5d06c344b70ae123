// PartHead: what the header block of one multipart/form-data part says.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace slipstream::http::multipart {

/// Names and filenames are the raw decoded bytes (UTF-8 in practice); header names are lowercased.
struct PartHead {
    std::string name;                     // Content-Disposition name
    std::optional<std::string> filename;  // present (maybe empty) for a file part
    std::string content_type;             // the part's Content-Type as sent; empty when absent
    std::vector<std::pair<std::string, std::string>> headers;

    bool is_file() const { return filename.has_value(); }
};

}  // namespace slipstream::http::multipart
