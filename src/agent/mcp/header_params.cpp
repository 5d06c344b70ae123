// header_params(): a walk of the input schema; header_params_mismatch(): the comparison the version requires.
#include "agent/mcp/header_params.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "agent/mcp/http_rules.h"
#include "agent/mcp/jsonrpc.h"

namespace slipstream::mcp::detail {

namespace {

bool is_tchar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

struct Walk {
    std::string_view tool;
    std::vector<HeaderParam> found;

    [[noreturn]] void fail(const std::string& why) const {
        throw std::invalid_argument("tool '" + std::string(tool) + "' inputSchema: x-mcp-header " + why);
    }

    // `reachable`: `node` is the root or reached through `properties` keys only (`path`).
    void visit(const json::Value& node, bool reachable, std::vector<std::string>& path) {
        if (node.is_array()) {
            for (const json::Value& item : node.items())
                visit(item, false, path);
            return;
        }
        if (!node.is_object()) return;
        if (const json::Value* name = node.find("x-mcp-header")) annotated(node, *name, reachable, path);
        for (const json::Member& m : node.members()) {
            if (m.key == "properties" && m.value.is_object()) {
                for (const json::Member& p : m.value.members()) {
                    path.emplace_back(p.key);
                    visit(p.value, reachable, path);
                    path.pop_back();
                }
            } else if (m.key != "x-mcp-header") {
                visit(m.value, false, path);
            }
        }
    }

    void annotated(const json::Value& node, const json::Value& name, bool reachable,
                   const std::vector<std::string>& path) {
        if (!reachable || path.empty()) fail("is only allowed on a property reached through `properties` keys alone");
        if (!name.is_string() || name.as_string().empty()) fail("must be a non-empty string");
        const std::string_view n = name.as_string();
        if (!std::all_of(n.begin(), n.end(), is_tchar)) fail("'" + std::string(n) + "' is not an HTTP token");
        const json::Value* type = node.find("type");
        const std::string_view t = type != nullptr && type->is_string() ? type->as_string() : "";
        if (t != "string" && t != "integer" && t != "boolean")
            fail("'" + std::string(n) + "' must annotate a string, integer or boolean parameter");
        for (const HeaderParam& other : found)
            if (lower(other.name) == lower(n)) fail("'" + std::string(n) + "' is used twice");
        found.push_back({std::string(n), path});
    }
};

// The value at `path` in `arguments`, or nullptr.
const json::Value* value_at(const json::Value& arguments, const std::vector<std::string>& path) {
    const json::Value* v = &arguments;
    for (const std::string& key : path) {
        if (!v->is_object()) return nullptr;
        v = v->find(key);
        if (v == nullptr) return nullptr;
    }
    return v;
}

bool same(const json::Value& value, std::string_view text) {
    if (value.is_string()) return value.as_string() == text;
    if (value.is_bool()) return text == (value.as_bool() ? "true" : "false");
    if (value.is_number()) {  // numerically: "42" and 42.0 are the same
        double parsed = 0;
        const auto r = std::from_chars(text.data(), text.data() + text.size(), parsed);
        return r.ec == std::errc() && r.ptr == text.data() + text.size() && parsed == value.as_double();
    }
    return false;
}

}  // namespace

std::vector<HeaderParam> header_params(std::string_view tool, std::string_view input_schema_json) {
    Document doc;
    auto parsed = json::parse(input_schema_json, doc.arena);
    if (!parsed.is_ok()) return {};  // the schema's compiler reports it
    Walk walk{tool, {}};
    std::vector<std::string> path;
    walk.visit(*parsed.value(), true, path);
    return std::move(walk.found);
}

std::string header_params_mismatch(const std::vector<HeaderParam>& params, const json::Value& arguments,
                                   const std::function<std::optional<std::string_view>(std::string_view)>& header) {
    for (const HeaderParam& p : params) {
        const std::string name = "Mcp-Param-" + p.name;
        const std::optional<std::string_view> sent = header(name);
        const json::Value* value = value_at(arguments, p.path);
        if (value == nullptr || value->is_null()) continue;  // no value: no header expected
        if (!sent) return "Header mismatch: " + name + " is required";
        const std::optional<std::string> decoded = decode_mirrored_header(*sent);
        if (!decoded) return "Header mismatch: " + name + " holds invalid characters or invalid base64";
        if (!same(*value, *decoded)) return "Header mismatch: " + name + " does not match the argument";
    }
    return {};
}

}  // namespace slipstream::mcp::detail
