// The registration list of asserted formats and their pydantic error types and messages.
#include "json/schema/formats/formats.h"

namespace slipstream::json::schema::formats {
namespace {

constexpr FormatSpec kFormats[] = {
    {"date-time", check_date_time, "datetime_from_date_parsing", "Input should be a valid datetime or date, ", "error"},
    {"date", check_date, "date_from_datetime_parsing", "Input should be a valid date or datetime, ", "error"},
    {"time", check_time, "time_parsing", "Input should be in a valid time format, ", "error"},
    {"duration", check_duration, "time_delta_parsing", "Input should be a valid timedelta, ", "error"},
    {"email", check_email, "value_error", "value is not a valid email address: ", "reason"},
    {"hostname", check_hostname, "value_error", "value is not a valid hostname: ", "reason"},
    {"ipv4", check_ipv4, "ip_v4_address", "Input is not a valid IPv4 address", ""},
    {"ipv6", check_ipv6, "ip_v6_address", "Input is not a valid IPv6 address", ""},
    {"uri", check_uri, "url_parsing", "Input should be a valid URL, ", "error"},
    {"uri-reference", check_uri_reference, "url_parsing", "Input should be a valid URL reference, ", "error"},
    {"iri", check_iri, "url_parsing", "Input should be a valid IRI, ", "error"},
    {"iri-reference", check_iri_reference, "url_parsing", "Input should be a valid IRI reference, ", "error"},
    {"uri-template", check_uri_template, "value_error", "value is not a valid URI template: ", "reason"},
    {"idn-email", check_idn_email, "value_error", "value is not a valid email address: ", "reason"},
    {"uuid", check_uuid, "uuid_parsing", "Input should be a valid UUID, ", "error"},
    {"regex", check_regex, "pattern_regex", "Input should be a valid regular expression", ""},
    {"json-pointer", check_json_pointer, "value_error", "value is not a valid JSON pointer: ", "reason"},
    {"relative-json-pointer", check_relative_json_pointer, "value_error",
     "value is not a valid relative JSON pointer: ", "reason"},
};

}  // namespace

const FormatSpec* find_format(std::string_view name) {
    for (const FormatSpec& f : kFormats)
        if (f.name == name) return &f;
    return nullptr;
}

}  // namespace slipstream::json::schema::formats
