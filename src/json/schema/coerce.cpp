// Lax (pydantic-style) string parsing for parameters, guided by the compiled schema's type hints.
#include "json/schema/coerce.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "json/schema/schema_data.h"

namespace slipstream::json::schema {
namespace {

using detail::Node;
constexpr int kMaxHintDepth = 32;

// The JSON types a node can accept, following $ref, allOf (intersection) and anyOf/oneOf (union).
std::uint8_t hint_types(const Node* node, int depth) {
    if (node == nullptr || depth > kMaxHintDepth) return detail::kTypeAll;
    if (node->is_true()) return detail::kTypeAll;
    if (node->is_false()) return 0;
    const detail::Shape& shape = node->shape();
    std::uint8_t types = shape.types;
    if (shape.ref != nullptr) types &= hint_types(*shape.ref, depth + 1);
    for (const Node* child : shape.all_of)
        types &= hint_types(child, depth + 1);
    if (!shape.any_of.empty()) {
        std::uint8_t any = 0;
        for (const Node* branch : shape.any_of)
            any |= hint_types(branch, depth + 1);
        types &= any;
    }
    return types;
}

// The schema for array items: `items` here, or behind a $ref / allOf / anyOf branch.
const Node* items_hint(const Node* node, int depth) {
    if (node == nullptr || depth > kMaxHintDepth || node->kind() != Node::Kind::kKeywords) return nullptr;
    const detail::Shape& shape = node->shape();
    if (shape.items != nullptr) return shape.items;
    if (shape.ref != nullptr)
        if (const Node* n = items_hint(*shape.ref, depth + 1)) return n;
    for (const Node* child : shape.all_of)
        if (const Node* n = items_hint(child, depth + 1)) return n;
    for (const Node* branch : shape.any_of)
        if (hint_types(branch, depth + 1) & detail::kTypeArray)
            if (const Node* n = items_hint(branch, depth + 1)) return n;
    return nullptr;
}

// Python's str.strip(): ASCII whitespace, \x1c-\x1f, and the Unicode White_Space code points.
std::string_view strip(std::string_view s) {
    auto space_at_front = [](std::string_view t) -> std::size_t {
        unsigned char c = static_cast<unsigned char>(t[0]);
        if (c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f)) return 1;
        if (t.size() >= 2 && c == 0xC2 &&
            (static_cast<unsigned char>(t[1]) == 0x85 || static_cast<unsigned char>(t[1]) == 0xA0))
            return 2;
        if (t.size() >= 3) {
            std::string_view p = t.substr(0, 3);
            if (p == "\xE1\x9A\x80" || p == "\xE2\x80\xA8" || p == "\xE2\x80\xA9" || p == "\xE2\x80\xAF" ||
                p == "\xE2\x81\x9F" || p == "\xE3\x80\x80")
                return 3;
            if (p[0] == '\xE2' && p[1] == '\x80' && static_cast<unsigned char>(p[2]) >= 0x80 &&
                static_cast<unsigned char>(p[2]) <= 0x8A)
                return 3;
        }
        return 0;
    };
    while (!s.empty()) {
        std::size_t n = space_at_front(s);
        if (n == 0) break;
        s.remove_prefix(n);
    }
    // Trailing: test each possible sequence length against the front matcher.
    for (bool changed = true; changed && !s.empty();) {
        changed = false;
        for (std::size_t len = 1; len <= 3 && len <= s.size(); ++len) {
            std::string_view tail = s.substr(s.size() - len);
            if (space_at_front(tail) == len) {
                s.remove_suffix(len);
                changed = true;
                break;
            }
        }
    }
    return s;
}

bool digit(char c) {
    return c >= '0' && c <= '9';
}

// Digits with single underscores between them; appends the digits to `out`.
bool digit_run(std::string_view s, std::size_t* pos, std::string* out) {
    std::size_t start = *pos;
    while (*pos < s.size()) {
        if (digit(s[*pos])) {
            out->push_back(s[(*pos)++]);
        } else if (s[*pos] == '_' && *pos > start && *pos + 1 < s.size() && digit(s[*pos - 1]) && digit(s[*pos + 1])) {
            ++*pos;
        } else {
            break;
        }
    }
    return *pos > start;
}

enum class IntParse { kOk, kInvalid, kTooBig };

// Digits beyond 64 bits: an exact kBigInt in `arena` (without one, or past Python's digit limit, too big).
// pydantic parses plain digits itself ("int_parsing_size" past the limit) but hands text with underscores to
// Python's int(), whose limit error it reports as "int_parsing".
IntParse big_int(std::string_view digits, bool negative, bool underscores, base::Arena* arena, json::Value* out) {
    const std::size_t first = digits.find_first_not_of('0');
    digits.remove_prefix(first == std::string_view::npos ? digits.size() : first);
    if (digits.size() > json::kMaxIntegerDigits) return underscores ? IntParse::kInvalid : IntParse::kTooBig;
    if (arena == nullptr) return IntParse::kTooBig;
    char* text = static_cast<char*>(arena->allocate(digits.size() + 1, 1));
    text[0] = '-';
    digits.copy(text + 1, digits.size());
    *out = json::Value::big_integer(negative ? std::string_view(text, digits.size() + 1)
                                             : std::string_view(text + 1, digits.size()));
    return IntParse::kOk;
}

IntParse parse_int(std::string_view raw, base::Arena* arena, json::Value* out) {
    std::string_view s = strip(raw);
    std::size_t pos = 0;
    bool negative = false;
    if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) negative = s[pos++] == '-';
    std::string digits;
    if (!digit_run(s, &pos, &digits)) return IntParse::kInvalid;
    if (pos < s.size() && s[pos] == '.') {  // "1.000" is an integer, "1." and "1.5" are not
        std::size_t start = ++pos;
        while (pos < s.size() && s[pos] == '0')
            ++pos;
        if (pos == start) return IntParse::kInvalid;
    }
    if (pos != s.size()) return IntParse::kInvalid;
    std::uint64_t magnitude = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
    const bool underscores = s.find('_') != std::string_view::npos;
    if (ec != std::errc() || end != digits.data() + digits.size())
        return big_int(digits, negative, underscores, arena, out);
    if (!negative) {
        *out = magnitude <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                   ? json::Value::integer(static_cast<std::int64_t>(magnitude))
                   : json::Value::unsigned_integer(magnitude);
        return IntParse::kOk;
    }
    if (magnitude > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1)
        return big_int(digits, negative, underscores, arena, out);
    *out = json::Value::integer(static_cast<std::int64_t>(0 - magnitude));
    return IntParse::kOk;
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if ((a[i] | 0x20) != b[i]) return false;
    return true;
}

// Python float() syntax (with underscores between digits).
bool parse_float(std::string_view raw, json::Value* out) {
    std::string_view s = strip(raw);
    bool negative = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        negative = s[0] == '-';
        s.remove_prefix(1);
    }
    double sign = negative ? -1.0 : 1.0;
    if (iequals(s, "inf") || iequals(s, "infinity")) return *out = json::Value::number(sign * INFINITY), true;
    if (iequals(s, "nan")) return *out = json::Value::number(std::nan("")), true;
    std::string clean;
    std::size_t pos = 0;
    bool int_digits = digit_run(s, &pos, &clean), frac_digits = false;
    if (pos < s.size() && s[pos] == '.') {
        clean.push_back('.');
        ++pos;
        frac_digits = digit_run(s, &pos, &clean);
    }
    if (!int_digits && !frac_digits) return false;
    bool negative_exponent = false;
    if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
        clean.push_back('e');
        ++pos;
        if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
            negative_exponent = s[pos] == '-';
            clean.push_back(s[pos++]);
        }
        if (!digit_run(s, &pos, &clean)) return false;
    }
    if (pos != s.size()) return false;
    double d = 0;
    auto [end, ec] = std::from_chars(clean.data(), clean.data() + clean.size(), d);
    if (ec == std::errc::result_out_of_range)
        d = negative_exponent ? 0.0 : INFINITY;
    else if (ec != std::errc() || end != clean.data() + clean.size())
        return false;
    *out = json::Value::number(sign * d);
    return true;
}

bool parse_bool(std::string_view s, json::Value* out) {
    static constexpr std::string_view kTrue[] = {"1", "on", "t", "true", "y", "yes"};
    static constexpr std::string_view kFalse[] = {"0", "off", "f", "false", "n", "no"};
    for (std::string_view t : kTrue)
        if (iequals(s, t)) return *out = json::Value::boolean(true), true;
    for (std::string_view f : kFalse)
        if (iequals(s, f)) return *out = json::Value::boolean(false), true;
    return false;
}

void report(ErrorSink* errors, const Node* node, std::string_view type, std::string_view msg, std::string_view raw,
            std::int64_t index) {
    if (errors == nullptr) return;
    ValidationError e;
    if (index >= 0) e.loc.push_back(PathSegment{{}, index});
    e.schema_path = node->location() + "/type";
    e.type = type;
    e.msg = msg;
    e.input = json::Value::string(errors->arena().copy(raw));
    errors->add(std::move(e));
}

// Coerces one string for a node; false (with errors) when no allowed scalar type parses it.
bool coerce_scalar(const Node* node, std::string_view raw, base::Arena& arena, std::int64_t index, ErrorSink* errors,
                   json::Value* out) {
    std::uint8_t types = hint_types(node, 0);
    constexpr std::uint8_t kScalars = detail::kTypeInteger | detail::kTypeNumber | detail::kTypeBoolean;
    if ((types & detail::kTypeString) || (types & kScalars) == 0) {
        *out = json::Value::string(arena.copy(raw));
        return true;
    }
    IntParse int_result = IntParse::kInvalid;
    // "1" for a number-only schema is the float 1.0, as pydantic makes it.
    if ((types & detail::kTypeInteger) && (int_result = parse_int(raw, &arena, out)) == IntParse::kOk) return true;
    if ((types & detail::kTypeNumber) && parse_float(raw, out)) return true;
    if ((types & detail::kTypeBoolean) && parse_bool(raw, out)) return true;
    if (types & detail::kTypeInteger) {
        if (int_result == IntParse::kTooBig)
            report(errors, node, "int_parsing_size",
                   "Unable to parse input string as an integer, exceeded maximum size", raw, index);
        else
            report(errors, node, "int_parsing", "Input should be a valid integer, unable to parse string as an integer",
                   raw, index);
    } else if (types & detail::kTypeNumber) {
        report(errors, node, "float_parsing", "Input should be a valid number, unable to parse string as a number", raw,
               index);
    }
    if (types & detail::kTypeBoolean)
        report(errors, node, "bool_parsing", "Input should be a valid boolean, unable to interpret input", raw, index);
    return false;
}

// A copy of a ctx value (scalars, arrays, objects) in `arena`.
json::Value copy_into(const json::Value& v, base::Arena& arena) {
    if (v.is_string()) return json::Value::string(arena.copy(v.as_string()));
    if (v.type() == json::Type::kBigInt) return json::Value::big_integer(arena.copy(v.as_decimal()));
    if (v.is_array()) {
        auto* items = arena.make_array<json::Value>(v.size());
        for (std::uint32_t i = 0; i < v.size(); ++i)
            items[i] = copy_into(v.items()[i], arena);
        return json::Value::array(items, v.size());
    }
    if (v.is_object()) {
        auto* members = arena.make_array<json::Member>(v.size());
        for (std::uint32_t i = 0; i < v.size(); ++i)
            members[i] = {arena.copy(v.members()[i].key), copy_into(v.members()[i].value, arena)};
        return json::Value::object(members, v.size());
    }
    return v;
}

ValidationError copied(const ValidationError& e, ErrorSink& into) {
    ValidationError out = e;
    out.ctx = copy_into(e.ctx, into.arena());
    out.input = copy_into(e.input, into.arena());
    return out;
}

bool at_item(const ValidationError& e, std::size_t i) {
    return !e.loc.empty() && e.loc[0].is_index() && static_cast<std::size_t>(e.loc[0].index) == i;
}

// The errors of a list parameter some of whose items did not parse (`parse_errors`), as pydantic reports them.
// It counts items while it validates them and stops with only "too_long" once there are more than max_length;
// else it validates every item: per item in order, its parse error (an Enum's item says "enum" instead), or the
// errors of an item that parsed (`items` holds the unparsed ones as text). List-level errors need valid items.
void list_errors(const Schema& schema, const json::Value& items, const std::vector<char>& failed,
                 const ErrorSink& parse_errors, ErrorSink* errors) {
    ErrorSink items_errors;
    schema.validate(items, &items_errors);
    for (const ValidationError& e : items_errors.errors())
        if (e.type == "too_long" && e.loc.empty()) return errors->add(copied(e, *errors));
    for (std::size_t i = 0; i < failed.size(); ++i) {
        bool as_enum = false;
        if (failed[i])
            for (const ValidationError& e : items_errors.errors())
                if (at_item(e, i) && e.loc.size() == 1 && e.type == "enum") {
                    errors->add(copied(e, *errors));
                    as_enum = true;
                }
        if (as_enum) continue;
        for (const ValidationError& e : failed[i] ? parse_errors.errors() : items_errors.errors())
            if (at_item(e, i)) errors->add(copied(e, *errors));
    }
}

}  // namespace

base::Result<json::Value> coerce(const Schema& schema, std::span<const std::string_view> raw, base::Arena& arena,
                                 ErrorSink* errors) {
    const detail::SchemaData* data = schema.data();
    if (data == nullptr) {
        if (raw.empty()) return base::Status::invalid_argument("parameter missing");
        return json::Value::string(arena.copy(raw.back()));
    }
    const Node* root = data->root;
    std::uint8_t types = hint_types(root, 0);
    json::Value value;
    bool ok = true;
    if ((types & detail::kTypeArray) && !(types & detail::kTypeString)) {
        const Node* items = items_hint(root, 0);
        auto* out = arena.make_array<json::Value>(raw.size());
        std::vector<char> failed(raw.size(), 0);
        ErrorSink parse_errors;
        for (std::size_t i = 0; i < raw.size(); ++i) {
            if (coerce_scalar(items ? items : root, raw[i], arena, static_cast<std::int64_t>(i),
                              errors != nullptr ? &parse_errors : nullptr, &out[i]))
                continue;
            ok = false;
            failed[i] = 1;
            out[i] = json::Value::string(arena.copy(raw[i]));
        }
        value = json::Value::array(out, static_cast<std::uint32_t>(raw.size()));
        if (!ok && errors != nullptr) list_errors(schema, value, failed, parse_errors, errors);
    } else if (raw.empty()) {
        if (errors) {
            ValidationError e;
            e.schema_path = root->location();
            e.type = "missing";
            e.msg = "Field required";
            errors->add(std::move(e));
        }
        return base::Status::invalid_argument("Field required");
    } else {
        ok = coerce_scalar(root, raw.back(), arena, -1, errors, &value);
    }
    if (!ok) return base::Status::invalid_argument("parameter could not be parsed");
    if (!schema.validate(value, errors)) return base::Status::invalid_argument("parameter failed validation");
    return value;
}

LaxInt parse_lax_int(std::string_view text, json::Value* out) {
    return parse_lax_int(text, nullptr, out);
}

LaxInt parse_lax_int(std::string_view text, base::Arena* arena, json::Value* out) {
    switch (parse_int(text, arena, out)) {
        case IntParse::kOk:
            return LaxInt::kOk;
        case IntParse::kTooBig:
            return LaxInt::kTooBig;
        case IntParse::kInvalid:
            break;
    }
    return LaxInt::kInvalid;
}

bool parse_lax_float(std::string_view text, json::Value* out) {
    return parse_float(text, out);
}

bool parse_lax_bool(std::string_view text, json::Value* out) {
    return parse_bool(text, out);
}

}  // namespace slipstream::json::schema
