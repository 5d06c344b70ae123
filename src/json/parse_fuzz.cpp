// Fuzz target: parse with small limits; both parse paths must agree; a parsed document writes back and re-parses
// to an equal tree with identical bytes.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "json/parse.h"
#include "json/strict_parser.h"
#include "json/writer.h"

namespace {

using namespace slipstream;

void require(bool ok) {
    if (!ok) __builtin_trap();
}

std::string write(const json::Value& v, bool ensure_ascii) {
    std::string out;
    require(json::Writer(out, {.ensure_ascii = ensure_ascii}).write_value(v).is_ok());  // parsed doubles are finite
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    json::ParseOptions options;
    options.max_depth = 16;
    options.max_string_bytes = 256;
    options.max_members = 64;
    options.duplicate_keys = size % 2 == 0 ? json::DuplicateKeys::kKeepLast : json::DuplicateKeys::kReject;

    base::Arena arena;
    json::ParseError error;
    base::Result<const json::Value*> r = json::parse(text, arena, options, &error);
    const std::string_view body = text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text;
    base::Result<const json::Value*> strict = json::detail::parse_strict(body, arena, options, nullptr);
    require(r.is_ok() == strict.is_ok());

    std::string padded(text);
    padded.append(json::kParsePadding, '"');
    base::Result<const json::Value*> p = json::parse_padded(std::string_view(padded).substr(0, size), arena, options);
    require(r.is_ok() == p.is_ok());

    if (!r.is_ok()) {
        require(error.offset <= size && !error.message.empty());
        return 0;
    }
    const std::string out = write(**r, false);
    require(out == write(**strict, false));
    require(out == write(**p, false));

    base::Arena arena2;
    base::Result<const json::Value*> again = json::parse(out, arena2, options);
    require(again.is_ok());
    require(json::equal(**r, **again));
    require(write(**again, false) == out);

    base::Result<const json::Value*> ascii = json::parse(write(**r, true), arena2, options);
    require(ascii.is_ok());
    require(write(**ascii, false) == out);
    return 0;
}
