// Format checkers for the `format` keyword, and the table mapping names to pydantic error shapes.
#pragma once

#include <string>
#include <string_view>

namespace slipstream::json::schema::formats {

/// Returns true when `s` is valid; otherwise writes a short reason ("input is too short") to
/// `error`. Pure functions over the bytes, linear time, no allocation when valid.
using Checker = bool (*)(std::string_view s, std::string* error);

bool check_date(std::string_view s, std::string* error);                   // RFC 3339 full-date
bool check_time(std::string_view s, std::string* error);                   // RFC 3339 full-time (offset required)
bool check_date_time(std::string_view s, std::string* error);              // RFC 3339 date-time
bool check_duration(std::string_view s, std::string* error);               // RFC 3339 appendix A duration
bool check_email(std::string_view s, std::string* error);                  // RFC 5321 mailbox
bool check_hostname(std::string_view s, std::string* error);               // RFC 1123 (+ A-label punycode)
bool check_ipv4(std::string_view s, std::string* error);                   // dotted quad, no leading zeros
bool check_ipv6(std::string_view s, std::string* error);                   // RFC 4291 text form
bool check_uri(std::string_view s, std::string* error);                    // RFC 3986 URI (scheme required)
bool check_uri_reference(std::string_view s, std::string* error);          // RFC 3986 URI-reference
bool check_iri(std::string_view s, std::string* error);                    // RFC 3987 IRI
bool check_iri_reference(std::string_view s, std::string* error);          // RFC 3987 IRI-reference
bool check_uri_template(std::string_view s, std::string* error);           // RFC 6570 (level 4 syntax)
bool check_idn_email(std::string_view s, std::string* error);              // RFC 6531 mailbox
bool check_uuid(std::string_view s, std::string* error);                   // RFC 4122 8-4-4-4-12 hex
bool check_regex(std::string_view s, std::string* error);                  // ECMA-262 pattern
bool check_json_pointer(std::string_view s, std::string* error);           // RFC 6901
bool check_relative_json_pointer(std::string_view s, std::string* error);  // draft-handrews-relative-json-pointer

/// How a format failure is reported: `type` and `message` follow pydantic (the reason is appended
/// to the message and put in ctx[ctx_key] when ctx_key is not empty).
struct FormatSpec {
    std::string_view name;
    Checker check;
    std::string_view type;
    std::string_view message;
    std::string_view ctx_key;
};

/// The spec for a format name, or nullptr for formats that are annotations only.
const FormatSpec* find_format(std::string_view name);

}  // namespace slipstream::json::schema::formats
