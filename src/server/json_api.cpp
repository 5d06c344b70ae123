// The public JSON helpers, over the json module.
#include "slipstream/json.h"

#include "base/arena.h"
#include "json/indent.h"
#include "json/parse.h"
#include "json/writer.h"
#include "server/validation/json_node.h"

namespace slipstream {

std::optional<std::string> json_reformat(std::string_view text, std::string* error) {
    base::Arena arena;
    json::ParseError perr;
    auto parsed = json::parse(text, arena, {}, &perr);
    if (!parsed.is_ok()) {
        if (error) *error = perr.message;
        return std::nullopt;
    }
    std::string out;
    out.reserve(text.size());
    json::Writer w(out);
    if (!w.write_value(**parsed).is_ok()) {
        if (error) *error = "number out of range";
        return std::nullopt;
    }
    return out;
}

std::string json_write(JsonView value) {
    std::string out;
    json::Writer w(out);
    if (value.node() == nullptr || !w.write_value(value.node()->value).is_ok()) return "null";
    return out;
}

std::string json_indent(std::string_view text, std::size_t width) {
    std::string out;
    json::append_indented(text, width, out);
    return out;
}

std::string json_quote(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    json::Writer w(out);
    w.string(text);
    return out;
}

}  // namespace slipstream
