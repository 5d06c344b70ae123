// The JSON types a schema document accepts, for deciding how parameter text is gathered.
#include "server/validation/schema_shape.h"

#include <cstdint>
#include <string_view>

namespace slipstream::server::detail {
namespace {

constexpr std::uint8_t kArray = 1;
constexpr std::uint8_t kString = 2;
constexpr std::uint8_t kOther = 4;
constexpr std::uint8_t kAll = kArray | kString | kOther;
constexpr int kMaxDepth = 32;

std::uint8_t type_bit(std::string_view t) {
    if (t == "array") return kArray;
    if (t == "string") return kString;
    return kOther;
}

std::uint8_t accepted(const json::Value& s, int depth) {
    if (depth > kMaxDepth) return kAll;
    if (s.is_bool()) return s.as_bool() ? kAll : 0;
    if (!s.is_object()) return kAll;
    std::uint8_t types = kAll;
    if (const json::Value* t = s.find("type")) {
        if (t->is_string()) {
            types = type_bit(t->as_string());
        } else if (t->is_array()) {
            types = 0;
            for (const json::Value& item : t->items())
                if (item.is_string()) types |= type_bit(item.as_string());
        }
    }
    if (const json::Value* all = s.find("allOf"); all != nullptr && all->is_array())
        for (const json::Value& branch : all->items())
            types &= accepted(branch, depth + 1);
    for (std::string_view key : {std::string_view("anyOf"), std::string_view("oneOf")}) {
        const json::Value* any = s.find(key);
        if (any == nullptr || !any->is_array()) continue;
        std::uint8_t united = 0;
        for (const json::Value& branch : any->items())
            united |= accepted(branch, depth + 1);
        types &= united;
    }
    return types;
}

}  // namespace

bool coerces_to_list(const json::Value& schema) {
    std::uint8_t t = accepted(schema, 0);
    return (t & kArray) != 0 && (t & kString) == 0;
}

}  // namespace slipstream::server::detail
