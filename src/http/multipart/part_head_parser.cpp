// Part header block parsing: lines, folding, Content-Disposition and Content-Type.
#include "http/multipart/part_head_parser.h"

#include <string>

#include "http/multipart/header_value.h"

namespace slipstream::http::multipart {
namespace {

bool is_token_char(char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    switch (c) {
        case '!':
        case '#':
        case '$':
        case '%':
        case '&':
        case '\'':
        case '*':
        case '+':
        case '-':
        case '.':
        case '^':
        case '_':
        case '`':
        case '|':
        case '~':
            return true;
        default:
            return false;
    }
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

FormError malformed(std::string what) {
    return {FormErrorKind::kMalformed, "Invalid multipart data: " + std::move(what) + "."};
}

// IE6 sent full paths; python-multipart keeps the last component of "C:\..." and "\\server\...".
std::string strip_windows_path(std::string filename) {
    bool drive = filename.size() >= 3 && filename[1] == ':' && filename[2] == '\\';
    bool unc = filename.size() >= 2 && filename[0] == '\\' && filename[1] == '\\';
    if (!drive && !unc) return filename;
    return filename.substr(filename.rfind('\\') + 1);
}

FormError add_line(std::string_view line, const FormLimits& limits, PartHead* out) {
    if (line.find_first_of("\r\n", 0) != std::string_view::npos) return malformed("bare CR or LF in a part header");
    if (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
        if (out->headers.empty()) return malformed("a folded line before any part header");
        std::string& value = out->headers.back().second;
        std::string_view more = trim(line);
        if (!more.empty()) {
            if (!value.empty()) value.push_back(' ');
            value.append(more);
        }
        return {};
    }
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return malformed("a part header line without ':'");
    std::string_view name = line.substr(0, colon);
    if (name.empty()) return malformed("an empty part header name");
    for (char c : name)
        if (!is_token_char(c)) return malformed("an invalid character in a part header name");
    if (out->headers.size() >= limits.max_part_headers)
        return {FormErrorKind::kTooManyHeaders,
                "Too many part headers. Maximum number of headers is " + std::to_string(limits.max_part_headers) + "."};
    std::string lowered(name);
    for (char& c : lowered)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    out->headers.emplace_back(std::move(lowered), std::string(trim(line.substr(colon + 1))));
    return {};
}

}  // namespace

FormError parse_part_head(std::string_view block, const FormLimits& limits, PartHead* out) {
    *out = PartHead{};
    while (!block.empty()) {
        std::size_t end = block.find("\r\n");
        if (end == std::string_view::npos) return malformed("a part header line without CRLF");
        FormError e = add_line(block.substr(0, end), limits, out);
        if (!e.ok()) return e;
        block.remove_prefix(end + 2);
    }
    bool named = false;
    for (const auto& [name, value] : out->headers) {
        if (name == "content-disposition") {
            HeaderValue disposition = parse_header_value(value);
            const std::string* field = disposition.find("name");
            named = field != nullptr;
            out->name = named ? *field : std::string();
            const std::string* filename = disposition.find("filename");
            out->filename.reset();
            if (filename != nullptr) out->filename = strip_windows_path(*filename);
        } else if (name == "content-type") {
            out->content_type = value;
        }
    }
    if (!named) return {FormErrorKind::kMissingName, "The Content-Disposition header field \"name\" must be provided."};
    return {};
}

}  // namespace slipstream::http::multipart
