// Header lookup and validation of field names and values.
#include "http/h1/header.h"

#include "http/h1/char_class.h"

namespace slipstream::http::h1 {

using detail::has_class;

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        unsigned char x = static_cast<unsigned char>(a[i]);
        unsigned char y = static_cast<unsigned char>(b[i]);
        if (x >= 'A' && x <= 'Z') x = static_cast<unsigned char>(x | 0x20);
        if (y >= 'A' && y <= 'Z') y = static_cast<unsigned char>(y | 0x20);
        if (x != y) return false;
    }
    return true;
}

std::string_view find_header(std::span<const Header> headers, std::string_view name) {
    for (const Header& h : headers) {
        if (iequals(h.name, name)) return h.value;
    }
    return {};
}

bool is_valid_field_name(std::string_view name) {
    if (name.empty()) return false;
    return detail::scan_class(name.data(), name.data() + name.size(), detail::kTchar) == name.data() + name.size();
}

bool is_valid_field_value(std::string_view value) {
    if (value.empty()) return true;
    const char first = value.front();
    const char last = value.back();
    if (first == ' ' || first == '\t' || last == ' ' || last == '\t') return false;
    return detail::scan_class(value.data(), value.data() + value.size(), detail::kFieldChar) ==
           value.data() + value.size();
}

base::Status validate_field(std::string_view name, std::string_view value) {
    if (!is_valid_field_name(name)) return base::Status::invalid_argument("invalid header field name");
    if (!is_valid_field_value(value)) return base::Status::invalid_argument("invalid header field value");
    return base::Status::ok();
}

bool is_framing_field(std::string_view name) {
    return iequals(name, "content-length") || iequals(name, "transfer-encoding") || iequals(name, "connection");
}

}  // namespace slipstream::http::h1
