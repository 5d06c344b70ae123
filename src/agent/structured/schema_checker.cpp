// SchemaChecker: alternatives per value (anyOf/oneOf branches; allOf and $ref joined in), dropped as keywords refuse.
#include "agent/structured/schema_checker.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <numeric>
#include <utility>

#include "json/pointer.h"
#include "json/utf8.h"

namespace slipstream::agent::structured {
namespace {

using Kind = SchemaChecker::Kind;

constexpr std::size_t kMaxAlternatives = 16;
constexpr int kMaxExpansionDepth = 8;

bool names_kind(std::string_view type, Kind k) {
    switch (k) {
        case Kind::kObject:
            return type == "object";
        case Kind::kArray:
            return type == "array";
        case Kind::kString:
            return type == "string";
        case Kind::kNumber:  // not read yet: integral or not
        case Kind::kIntegral:
            return type == "number" || type == "integer";
        case Kind::kFraction:
            return type == "number";
        case Kind::kBoolean:
            return type == "boolean";
        case Kind::kNull:
            return type == "null";
    }
    return false;
}

const char* kind_name(Kind k) {
    switch (k) {
        case Kind::kObject:
            return "object";
        case Kind::kArray:
            return "array";
        case Kind::kString:
            return "string";
        case Kind::kBoolean:
            return "boolean";
        case Kind::kNull:
            return "null";
        default:
            return "number";
    }
}

// `type` allows `k` (absent or malformed: allows everything; the compiled schema judges those).
bool type_allows(const json::Value& node, Kind k) {
    const json::Value* type = node.find("type");
    if (type == nullptr) return true;
    if (type->is_string()) return names_kind(type->as_string(), k);
    if (!type->is_array()) return true;
    for (const json::Value& t : type->items()) {
        if (!t.is_string() || names_kind(t.as_string(), k)) return true;
    }
    return false;
}

bool member_of_kind(const json::Value& m, Kind k) {
    switch (k) {
        case Kind::kObject:
            return m.is_object();
        case Kind::kArray:
            return m.is_array();
        case Kind::kString:
            return m.is_string();
        case Kind::kBoolean:
            return m.is_bool();
        case Kind::kNull:
            return m.is_null();
        default:
            return m.is_number();
    }
}

// `enum` / `const` name at least one value of this kind (absent or malformed: anything). Sets `keyword`.
bool members_allow_kind(const json::Value& node, Kind k, const char*& keyword) {
    if (const json::Value* c = node.find("const"); c != nullptr && !member_of_kind(*c, k)) {
        keyword = "const";
        return false;
    }
    if (const json::Value* e = node.find("enum"); e != nullptr && e->is_array()) {
        keyword = "enum";
        return std::any_of(e->items().begin(), e->items().end(),
                           [k](const json::Value& m) { return member_of_kind(m, k); });
    }
    return true;
}

// A non-negative integer keyword's value, or -1 when absent or not one.
std::int64_t count_keyword(const json::Value& node, std::string_view name) {
    const json::Value* v = node.find(name);
    if (v == nullptr || !v->is_number()) return -1;
    const double d = v->as_double();
    return d >= 0 && d == std::floor(d) && d < 9e18 ? static_cast<std::int64_t>(d) : -1;
}

std::size_t code_points(std::string_view s) {
    std::size_t n = 0;
    for (unsigned char c : s)
        n += (c & 0xc0) != 0x80 ? 1 : 0;
    return n;
}

Kind number_kind(std::string_view text) {
    if (text.find_first_of(".eE") == std::string_view::npos) return Kind::kIntegral;
    const double d = std::strtod(std::string(text).c_str(), nullptr);
    return d == std::floor(d) ? Kind::kIntegral : Kind::kFraction;
}

// Whether the schema's `$schema` (if any) is a draft's own metaschema, whose vocabularies include validation (a custom
// metaschema may leave numeric keywords without effect: then they are left to the compiled schema).
bool standard_metaschema(const json::Value& schema) {
    const json::Value* uri = schema.is_object() ? schema.find("$schema") : nullptr;
    if (uri == nullptr) return true;
    if (!uri->is_string()) return false;
    const std::string_view u = uri->as_string();
    for (std::string_view known :
         {"https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2019-09/schema",
          "http://json-schema.org/draft-07/schema", "http://json-schema.org/draft-06/schema"}) {
        if (u == known || u == std::string(known) + "#") return true;
    }
    return false;
}

// A node's numeric bounds as a closed range over the integers (exclusive bounds moved one integer in), and its
// integral multipleOf (0: none). A draft-4 style boolean exclusive bound leaves the range open (never checked).
struct NumberBounds {
    double lo = -HUGE_VAL, hi = HUGE_VAL;
    std::int64_t multiple_of = 0;
};
NumberBounds number_bounds(const json::Value& node) {
    NumberBounds b;
    const auto num = [&node](std::string_view k) -> const json::Value* {
        const json::Value* v = node.find(k);
        return v != nullptr && v->is_number() && std::isfinite(v->as_double()) ? v : nullptr;
    };
    const json::Value* xmin = node.find("exclusiveMinimum");
    const json::Value* xmax = node.find("exclusiveMaximum");
    if ((xmin != nullptr && xmin->is_bool()) || (xmax != nullptr && xmax->is_bool())) return b;
    if (const json::Value* v = num("minimum")) b.lo = std::ceil(v->as_double());
    if (const json::Value* v = num("maximum")) b.hi = std::floor(v->as_double());
    if (const json::Value* v = num("exclusiveMinimum")) b.lo = std::max(b.lo, std::floor(v->as_double()) + 1);
    if (const json::Value* v = num("exclusiveMaximum")) b.hi = std::min(b.hi, std::ceil(v->as_double()) - 1);
    if (const json::Value* v = num("multipleOf")) {
        const double m = v->as_double();
        if (m >= 1 && m == std::floor(m) && m < 1e15) b.multiple_of = static_cast<std::int64_t>(m);
    }
    return b;
}

// An integer's text against a range: -1 below it, 1 above it, 0 inside or not provable with doubles (integers of
// more than 15 digits are compared only with bounds nearer to zero than 1e15).
int outside(std::string_view text, const NumberBounds& b) {
    const bool negative = text.starts_with('-');
    const std::string_view digits = text.substr(negative ? 1 : 0);
    if (digits.size() <= 15) {
        double v = 0;
        for (char c : digits)
            v = v * 10 + (c - '0');
        if (negative) v = -v;
        return v < b.lo ? -1 : v > b.hi ? 1 : 0;
    }
    if (negative) return b.lo > -1e15 ? -1 : 0;
    return b.hi < 1e15 ? 1 : 0;
}

// An integer's text modulo m (exact; m < 1e15).
std::int64_t remainder(std::string_view text, std::int64_t m) {
    std::int64_t r = 0;
    for (char c : text.substr(text.starts_with('-') ? 1 : 0))
        r = (r * 10 + (c - '0')) % m;
    return r;
}

// Whether a `$id` below the root changes what "#/..." means somewhere (then no reference is followed).
bool has_nested_id(const json::Value& v, bool root) {
    if (v.is_array()) {
        return std::any_of(v.items().begin(), v.items().end(),
                           [](const json::Value& item) { return has_nested_id(item, false); });
    }
    if (!v.is_object()) return false;
    for (const json::Member& m : v.members()) {
        if ((!root && m.key == "$id") || has_nested_id(m.value, false)) return true;
    }
    return false;
}

// Calls f(code point) for each character of whole UTF-8 text.
template <typename F>
void for_each_code_point(std::string_view s, F&& f) {
    for (std::size_t i = 0, n = 0; i < s.size(); i += n)
        f(json::detail::decode_utf8(s, i, &n));
}

}  // namespace

SchemaChecker::SchemaChecker(const json::Value& schema, bool siblings_of_ref, JsonEvents& next,
                             std::shared_ptr<const PatternTable> patterns)
    : builder_(&next),
      root_(&schema),
      siblings_of_ref_(siblings_of_ref),
      follow_refs_(!has_nested_id(schema, true)),
      numeric_checks_(standard_metaschema(schema)) {
    if (numeric_checks_) {  // under a custom metaschema `pattern` may have no effect: left to the compiled schema
        if (patterns == nullptr) patterns = compile_patterns(schema);
        if (!patterns->empty()) patterns_ = std::move(patterns);
    }
    std::vector<Conj> alts;
    if (!expand(&schema, 0, alts)) alts.assign(1, Conj{});
    for (Conj& c : alts)
        next_.push_back(Alt{0, std::move(c), true});
}

const json::Value* SchemaChecker::local_target(std::string_view ref) const {
    if (ref == "#") return root_;
    if (!ref.starts_with("#/") || ref.find('%') != std::string_view::npos) return nullptr;  // not decoded here
    return json::resolve_pointer(*root_, ref.substr(1));
}

// `into` := every union of one of `into` and one of `with`. False past kMaxAlternatives.
bool SchemaChecker::product(std::vector<Conj>& into, const std::vector<Conj>& with) const {
    if (into.size() * with.size() > kMaxAlternatives) return false;
    std::vector<Conj> out;
    for (const Conj& a : into) {
        for (const Conj& b : with) {
            Conj both = a;
            both.insert(both.end(), b.begin(), b.end());
            out.push_back(std::move(both));
        }
    }
    into = std::move(out);
    return true;
}

// The alternatives `node` allows, each a conjunction of nodes: the node itself, its local `$ref` target (alone in
// draft 7) and `allOf` members joined in, `anyOf`/`oneOf` branches as alternatives (a value matching none of them
// fails either keyword). False when too many or too deep (the caller then checks nothing there).
bool SchemaChecker::expand(const json::Value* node, int depth, std::vector<Conj>& out) const {
    out.assign(1, Conj{});
    if (node == nullptr) return true;
    if (depth > kMaxExpansionDepth) return false;
    if (node->is_bool()) {
        if (!node->as_bool()) out[0].push_back(node);
        return true;
    }
    if (!node->is_object()) return true;
    std::vector<Conj> part;
    if (const json::Value* ref = node->find("$ref"); ref != nullptr) {
        const json::Value* target = follow_refs_ && ref->is_string() ? local_target(ref->as_string()) : nullptr;
        if (!siblings_of_ref_) return expand(target, depth + 1, out);
        if (target != nullptr && (!expand(target, depth + 1, part) || !product(out, part))) return false;
    }
    out[0].push_back(node);
    if (const json::Value* all = node->find("allOf"); all != nullptr && all->is_array()) {
        for (const json::Value& m : all->items()) {
            if (!expand(&m, depth + 1, part) || !product(out, part)) return false;
        }
    }
    for (const char* keyword : {"anyOf", "oneOf"}) {
        const json::Value* branches = node->find(keyword);
        if (branches == nullptr || !branches->is_array() || branches->items().empty()) continue;
        std::vector<Conj> any;
        for (const json::Value& m : branches->items()) {
            if (!expand(&m, depth + 1, part)) return false;
            any.insert(any.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
            if (any.size() > kMaxAlternatives) return false;
        }
        if (!product(out, any)) return false;
    }
    return true;
}

// The schema a member `key` (objects) or element `index` (arrays) of a value under `node` must satisfy (null:
// nothing known): properties / additionalProperties; prefixItems (or draft 7's items array), then items.
const json::Value* SchemaChecker::child_node(const json::Value& node, bool object, std::size_t index,
                                             std::string_view key, bool& refused) const {
    refused = false;
    if (!node.is_object()) return nullptr;
    if (object) {
        const json::Value* properties = node.find("properties");
        if (properties != nullptr && properties->is_object()) {
            if (const json::Value* declared = properties->find(key); declared != nullptr) return declared;
        }
        if (node.find("patternProperties") != nullptr) return nullptr;
        const json::Value* additional = node.find("additionalProperties");
        if (additional != nullptr && additional->is_bool() && !additional->as_bool()) refused = true;
        return additional;
    }
    const json::Value* prefix = node.find("prefixItems");
    const json::Value* items = node.find("items");
    if (items != nullptr && items->is_array()) prefix = items, items = nullptr;
    if (prefix != nullptr && prefix->is_array()) {
        if (index < prefix->items().size()) return &prefix->items()[index];
        if (items == nullptr) return nullptr;
    }
    return items;
}

// The alternatives of a child value, from every living alternative of its container (each tagged with it).
std::vector<SchemaChecker::Alt> SchemaChecker::children(const std::vector<Alt>& parents, bool object, std::size_t index,
                                                        std::string_view key) const {
    std::vector<Alt> out;
    std::vector<Conj> part;
    for (std::size_t i = 0; i < parents.size(); ++i) {
        if (!parents[i].alive) continue;
        std::vector<Conj> mine(1, Conj{});
        bool bounded = true;
        for (const json::Value* node : parents[i].nodes) {
            bool refused = false;
            const json::Value* child = child_node(*node, object, index, key, refused);
            if (child == nullptr) continue;
            if (!expand(child, 0, part) || !product(mine, part)) {
                bounded = false;
                break;
            }
        }
        if (!bounded) mine.assign(1, Conj{});
        for (Conj& c : mine)
            out.push_back(Alt{i, std::move(c), true});
    }
    if (out.size() > kMaxAlternatives) {  // one unconstrained alternative per living parent instead
        out.clear();
        for (std::size_t i = 0; i < parents.size(); ++i) {
            if (parents[i].alive) out.push_back(Alt{i, Conj{}, true});
        }
    }
    return out;
}

void SchemaChecker::kill(Alt& alt, const char* keyword, std::string message) {
    alt.alive = false;
    last_kill_ = CheckFailure{keyword, {}, std::move(message)};
}

// Ok while an alternative lives; else the failure of the last one to drop out, at the current location.
base::Status SchemaChecker::survive(std::vector<Alt>& alts) {
    if (std::any_of(alts.begin(), alts.end(), [](const Alt& a) { return a.alive; })) return base::Status::ok();
    failure_ = last_kill_;
    failure_.pointer.clear();
    for (const std::string& token : path_) {
        failure_.pointer.push_back('/');
        json::append_pointer_token(failure_.pointer, token);
    }
    return base::Status::invalid_argument(failure_.message);
}

base::Status SchemaChecker::begin_value(Kind k) {
    std::vector<Alt> alts;
    if (frames_.empty()) {
        alts = std::move(next_);
    } else if (!frames_.back().object) {
        Frame& f = frames_.back();
        path_.push_back(std::to_string(f.count));
        ++f.count;
        for (Alt& a : f.alts) {
            for (const json::Value* node : a.nodes) {
                const std::int64_t max = a.alive ? count_keyword(*node, "maxItems") : -1;
                if (max >= 0 && static_cast<std::int64_t>(f.count) > max)
                    kill(a, "maxItems", "should have at most " + std::to_string(max) + " items");
            }
        }
        SLIPSTREAM_RETURN_IF_ERROR(survive(f.alts));
        alts = children(f.alts, false, f.count - 1, {});
    } else {
        alts = std::move(next_);
    }
    next_.clear();
    for (Alt& a : alts) {
        for (const json::Value* node : a.nodes) {
            if (!a.alive) break;
            const char* keyword = "enum";
            if (node->is_bool()) {
                kill(a, "false", "no value is allowed here");
            } else if (!type_allows(*node, k)) {
                kill(a, "type", std::string("a ") + kind_name(k) + " is not allowed here");
            } else if (!members_allow_kind(*node, k, keyword)) {
                kill(a, keyword, std::string("no allowed value is a ") + kind_name(k));
            }
        }
    }
    SLIPSTREAM_RETURN_IF_ERROR(survive(alts));
    if (k == Kind::kObject || k == Kind::kArray) {
        frames_.emplace_back();
        frames_.back().object = k == Kind::kObject;
        frames_.back().alts = std::move(alts);
    } else {
        current_ = std::move(alts);
    }
    return base::Status::ok();
}

// A value ended (its own alternatives in current_, or the container just popped): the enclosing container's
// alternatives without a living child alternative drop out.
base::Status SchemaChecker::end_value() {
    if (frames_.empty()) return base::Status::ok();
    Frame& parent = frames_.back();
    std::vector<bool> kept(parent.alts.size(), false);
    for (const Alt& c : current_) {
        if (c.alive && c.parent < kept.size()) kept[c.parent] = true;
    }
    for (std::size_t i = 0; i < parent.alts.size(); ++i) {
        if (parent.alts[i].alive && !kept[i]) {
            parent.alts[i].alive = false;  // last_kill_ still says why its child failed
        }
    }
    SLIPSTREAM_RETURN_IF_ERROR(survive(parent.alts));
    if (!path_.empty()) path_.pop_back();
    current_.clear();
    return base::Status::ok();
}

base::Status SchemaChecker::begin_object() {
    SLIPSTREAM_RETURN_IF_ERROR(begin_value(Kind::kObject));
    return builder_->begin_object();
}

base::Status SchemaChecker::begin_array() {
    SLIPSTREAM_RETURN_IF_ERROR(begin_value(Kind::kArray));
    return builder_->begin_array();
}

base::Status SchemaChecker::end_object() {
    Frame& f = frames_.back();
    for (Alt& a : f.alts) {
        for (const json::Value* node : a.nodes) {
            if (!a.alive || !node->is_object()) continue;
            if (const json::Value* required = node->find("required"); required != nullptr && required->is_array()) {
                for (const json::Value& name : required->items()) {
                    if (a.alive && name.is_string() && f.keys.count(std::string(name.as_string())) == 0)
                        kill(a, "required", "'" + std::string(name.as_string()) + "' is a required property");
                }
            }
            const std::int64_t min = count_keyword(*node, "minProperties");
            if (a.alive && min >= 0 && static_cast<std::int64_t>(f.keys.size()) < min)
                kill(a, "minProperties", "should have at least " + std::to_string(min) + " properties");
        }
    }
    SLIPSTREAM_RETURN_IF_ERROR(survive(f.alts));
    current_ = std::move(f.alts);
    frames_.pop_back();
    SLIPSTREAM_RETURN_IF_ERROR(builder_->end_object());
    return end_value();
}

base::Status SchemaChecker::end_array() {
    Frame& f = frames_.back();
    for (Alt& a : f.alts) {
        for (const json::Value* node : a.nodes) {
            const std::int64_t min = a.alive && node->is_object() ? count_keyword(*node, "minItems") : -1;
            if (min >= 0 && static_cast<std::int64_t>(f.count) < min)
                kill(a, "minItems", "should have at least " + std::to_string(min) + " items");
        }
    }
    SLIPSTREAM_RETURN_IF_ERROR(survive(f.alts));
    current_ = std::move(f.alts);
    frames_.pop_back();
    SLIPSTREAM_RETURN_IF_ERROR(builder_->end_array());
    return end_value();
}

// With repeated keys refused, a ',' in an object whose `additionalProperties: false` leaves no unused declared
// property can only lead to a refusal: refuse the ',' itself (the JSON Schema meaning is unchanged).
base::Status SchemaChecker::next_member() {
    if (!reject_repeated_keys_) return builder_->next_member();
    Frame& f = frames_.back();
    for (Alt& a : f.alts) {
        for (const json::Value* node : a.nodes) {
            if (!a.alive || !node->is_object() || node->find("patternProperties") != nullptr) continue;
            const json::Value* additional = node->find("additionalProperties");
            if (additional == nullptr || !additional->is_bool() || additional->as_bool()) continue;
            const json::Value* properties = node->find("properties");
            const bool left =
                properties != nullptr && properties->is_object() &&
                std::any_of(properties->members().begin(), properties->members().end(),
                            [&f](const json::Member& m) { return f.keys.count(std::string(m.key)) == 0; });
            if (!left) kill(a, "additionalProperties", "every allowed property is already present");
        }
    }
    SLIPSTREAM_RETURN_IF_ERROR(survive(f.alts));
    return builder_->next_member();
}

// A ',' in an array promises one more element: `maxItems` already reached, or no schema for the next index
// (`items: false` after `prefixItems`), refuses it here.
base::Status SchemaChecker::next_item() {
    Frame& f = frames_.back();
    path_.push_back(std::to_string(f.count));
    for (Alt& a : f.alts) {
        for (const json::Value* node : a.nodes) {
            if (!a.alive || !node->is_object()) continue;
            const std::int64_t max = count_keyword(*node, "maxItems");
            if (max >= 0 && static_cast<std::int64_t>(f.count) >= max) {
                kill(a, "maxItems", "should have at most " + std::to_string(max) + " items");
                continue;
            }
            bool refused = false;
            const json::Value* child = child_node(*node, false, f.count, {}, refused);
            if (child != nullptr && child->is_bool() && !child->as_bool())
                kill(a, "items", "no more items are allowed");
        }
    }
    base::Status s = survive(f.alts);
    path_.pop_back();
    SLIPSTREAM_RETURN_IF_ERROR(s);
    return builder_->next_item();
}

base::Status SchemaChecker::key(std::string_view piece, bool last) {
    Frame& f = frames_.back();
    f.key.append(piece);
    if (!last) {
        SLIPSTREAM_RETURN_IF_ERROR(check_key_prefix(f));
        return builder_->key(piece, last);
    }
    if (reject_repeated_keys_ && f.keys.count(f.key) != 0) {
        failure_ = CheckFailure{"", "", "'" + f.key + "' is repeated"};
        return base::Status::invalid_argument(failure_.message);
    }
    SLIPSTREAM_RETURN_IF_ERROR(builder_->key(piece, last));
    path_.push_back(f.key);
    f.keys.insert(f.key);
    for (Alt& a : f.alts) {
        for (const json::Value* node : a.nodes) {
            if (!a.alive || !node->is_object()) continue;
            const std::int64_t max = count_keyword(*node, "maxProperties");
            bool refused = false;
            child_node(*node, true, 0, f.key, refused);
            if (max >= 0 && static_cast<std::int64_t>(f.keys.size()) > max) {
                kill(a, "maxProperties", "should have at most " + std::to_string(max) + " properties");
            } else if (refused) {
                kill(a, "additionalProperties", "'" + f.key + "' is not allowed here");
            }
        }
    }
    SLIPSTREAM_RETURN_IF_ERROR(survive(f.alts));
    next_ = children(f.alts, true, 0, f.key);
    f.key.clear();
    return base::Status::ok();
}

// `additionalProperties: false` (without `patternProperties`) refuses a key that no declared property starts with,
// at the byte that proves it, so a key cannot run on where no closing quote could be accepted.
base::Status SchemaChecker::check_key_prefix(Frame& f) {
    for (Alt& a : f.alts) {
        for (const json::Value* node : a.nodes) {
            if (!a.alive || !node->is_object() || node->find("patternProperties") != nullptr) continue;
            const json::Value* additional = node->find("additionalProperties");
            if (additional == nullptr || !additional->is_bool() || additional->as_bool()) continue;
            const json::Value* properties = node->find("properties");
            const bool declared =
                properties != nullptr && properties->is_object() &&
                std::any_of(properties->members().begin(), properties->members().end(), [&](const json::Member& m) {
                    return m.key.starts_with(f.key) && !(reject_repeated_keys_ && f.keys.count(std::string(m.key)));
                });
            if (!declared) kill(a, "additionalProperties", "no allowed property name starts with '" + f.key + "'");
        }
    }
    path_.push_back(f.key);
    base::Status s = survive(f.alts);
    path_.pop_back();
    return s;
}

base::Status SchemaChecker::string(std::string_view piece, bool last) {
    if (!in_string_) {
        SLIPSTREAM_RETURN_IF_ERROR(begin_value(Kind::kString));
        in_string_ = true;
        text_.clear();
        text_points_ = 0;
        runs_.clear();
        stepped_ = 0;
        stepped_points_ = 0;
        for (std::size_t i = 0; patterns_ != nullptr && i < current_.size(); ++i) {
            for (const json::Value* node : current_[i].nodes) {
                if (const PatternNfa* nfa = current_[i].alive ? pattern_of(node) : nullptr)
                    runs_.push_back(PatternRun{i, nfa, nfa->start()});
            }
        }
    }
    text_.append(piece);
    text_points_ += code_points(piece);
    if (!runs_.empty()) step_patterns(piece.substr(std::min(stepped_, piece.size())));
    stepped_ = 0;
    stepped_points_ = 0;
    SLIPSTREAM_RETURN_IF_ERROR(check_string(last));
    SLIPSTREAM_RETURN_IF_ERROR(builder_->string(piece, last));
    if (!last) return base::Status::ok();
    in_string_ = false;
    return end_value();
}

// maxLength as code points arrive; enum/const as prefixes; minLength and exact members once the string ends.
base::Status SchemaChecker::check_string(bool last) {
    const std::size_t length = text_points_;
    for (Alt& a : current_) {
        for (const json::Value* node : a.nodes) {
            if (!a.alive || !node->is_object()) continue;
            const std::int64_t max = count_keyword(*node, "maxLength");
            if (max >= 0 && static_cast<std::int64_t>(length) > max) {
                kill(a, "maxLength", "should have at most " + std::to_string(max) + " characters");
                continue;
            }
            const auto fits = [&](const json::Value& m) {
                return m.is_string() && (last ? m.as_string() == text_ : m.as_string().starts_with(text_));
            };
            if (const json::Value* c = node->find("const"); c != nullptr && !fits(*c)) {
                kill(a, "const", "'" + text_ + "' cannot become the allowed value");
                continue;
            }
            const json::Value* e = node->find("enum");
            if (e != nullptr && e->is_array() && std::none_of(e->items().begin(), e->items().end(), fits)) {
                kill(a, "enum", "'" + text_ + "' cannot become an allowed value");
                continue;
            }
            const std::int64_t min = last ? count_keyword(*node, "minLength") : -1;
            if (min >= 0 && static_cast<std::int64_t>(length) < min)
                kill(a, "minLength", "should have at least " + std::to_string(min) + " characters");
        }
    }
    return check_patterns(last, nullptr, nullptr);
}

const PatternNfa* SchemaChecker::pattern_of(const json::Value* node) const {
    return patterns_ == nullptr ? nullptr : find_pattern(*patterns_, node);
}

// Each living alternative's patterns read `text` (whole characters).
void SchemaChecker::step_patterns(std::string_view text) {
    if (text.empty()) return;
    for (PatternRun& r : runs_) {
        if (!current_[r.alt].alive || PatternNfa::none(r.states) || r.nfa->settled(r.states)) continue;
        for_each_code_point(text, [&](std::uint32_t c) {
            if (!PatternNfa::none(r.states)) r.states = r.nfa->step(r.states, c);
        });
    }
}

// `pattern`: an alternative drops out once its pattern's states are gone (no continuation matches), when the
// character begun (code points [*lo, *hi]) can be none that a state reads, or when the string closes unmatched.
base::Status SchemaChecker::check_patterns(bool last, const std::uint32_t* lo, const std::uint32_t* hi) {
    for (const PatternRun& r : runs_) {
        Alt& a = current_[r.alt];
        if (!a.alive) continue;
        // The shortest match from here must fit the alternative's maxLength, and the longest reach its minLength.
        std::int64_t max = -1, min = -1;
        for (const json::Value* node : a.nodes) {
            const std::int64_t m = node->is_object() ? count_keyword(*node, "maxLength") : -1;
            if (m >= 0 && (max < 0 || m < max)) max = m;
            min = std::max(min, node->is_object() ? count_keyword(*node, "minLength") : -1);
        }
        const std::size_t most = min > 0 ? r.nfa->max_to_match(r.states) : SIZE_MAX;
        // With a character begun, the shortest match through a character it may still be.
        const std::size_t more = lo != nullptr ? r.nfa->min_via(r.states, *lo, *hi) : r.nfa->min_to_match(r.states);
        if (PatternNfa::none(r.states)) {
            kill(a, "pattern", "'" + text_ + "' cannot become a match of the pattern");
        } else if (max >= 0 && more != SIZE_MAX &&
                   text_points_ + stepped_points_ + more > static_cast<std::size_t>(max)) {
            kill(a, "pattern",
                 "no match of the pattern that begins with '" + text_ + "' fits maxLength " + std::to_string(max));
        } else if (most != SIZE_MAX && text_points_ + stepped_points_ + most < static_cast<std::size_t>(min)) {
            kill(a, "pattern",
                 "no match of the pattern that begins with '" + text_ + "' reaches minLength " + std::to_string(min));
        } else if (lo != nullptr && more == SIZE_MAX) {
            kill(a, "pattern", "no character that can come after '" + text_ + "' continues a match of the pattern");
        } else if (last && !r.nfa->accepts(r.states, text_points_ == 0)) {
            kill(a, "pattern", "'" + text_ + "' does not match the pattern");
        }
    }
    return survive(current_);
}

base::Status SchemaChecker::char_range(bool key, std::string_view pending, std::uint32_t lo, std::uint32_t hi) {
    if (key || !in_string_ || runs_.empty()) return base::Status::ok();
    if (pending.size() > stepped_) {
        step_patterns(pending.substr(stepped_));
        stepped_points_ += code_points(pending.substr(stepped_));
        stepped_ = pending.size();
    }
    return check_patterns(false, &lo, &hi);
}

std::optional<SchemaChecker::PatternFocus> SchemaChecker::pattern_focus() const {
    if (!pattern_keyed() || stepped_ != 0 || runs_.size() != 1) return std::nullopt;
    const PatternRun& r = runs_[0];
    for (std::size_t i = 0; i < current_.size(); ++i) {
        if (current_[i].alive && i != r.alt) return std::nullopt;  // another living alternative
    }
    PatternFocus focus{r.nfa, r.states, SIZE_MAX, 0};
    for (const json::Value* node : current_[r.alt].nodes) {
        const std::int64_t min = node->is_object() ? count_keyword(*node, "minLength") : -1;
        if (min > 0 && static_cast<std::size_t>(min) > text_points_)
            focus.chars_needed = std::max(focus.chars_needed, static_cast<std::size_t>(min) - text_points_);
        const std::int64_t max = node->is_object() ? count_keyword(*node, "maxLength") : -1;
        if (max < 0) continue;
        const auto left =
            static_cast<std::size_t>(max) > text_points_ ? static_cast<std::size_t>(max) - text_points_ : 0;
        focus.chars_left = std::min(focus.chars_left, left);
    }
    return focus;
}

bool SchemaChecker::pattern_keyed() const {
    if (!in_string_) return false;
    bool any = false;
    for (const PatternRun& r : runs_)
        any = any || current_[r.alt].alive;
    if (!any) return false;
    for (const Alt& a : current_) {
        for (const json::Value* node : a.nodes) {
            if (a.alive && node->is_object() && (node->find("enum") != nullptr || node->find("const") != nullptr))
                return false;
        }
    }
    return true;
}

base::Status SchemaChecker::begin_number() {
    return begin_value(Kind::kNumber);
}

base::Status SchemaChecker::number(std::string_view text) {
    if (number_kind(text) == Kind::kFraction) {  // an "integer"-only type refuses it now
        for (Alt& a : current_) {
            for (const json::Value* node : a.nodes) {
                if (a.alive && node->is_object() && !type_allows(*node, Kind::kFraction))
                    kill(a, "type", "a number with a fraction is not allowed here");
            }
        }
        SLIPSTREAM_RETURN_IF_ERROR(survive(current_));
    }
    if (numeric_checks_ && text.find_first_of(".eE") == std::string_view::npos) {  // an integer: its bounds
        for (Alt& a : current_) {
            for (const json::Value* node : a.nodes) {
                if (!a.alive || !node->is_object()) continue;
                const NumberBounds b = number_bounds(*node);
                const int side = outside(text, b);
                if (side != 0) {
                    kill(a, side < 0 ? "minimum" : "maximum", "the number is outside the allowed range");
                } else if (b.multiple_of > 0 && remainder(text, b.multiple_of) != 0) {
                    kill(a, "multipleOf", "should be a multiple of " + std::to_string(b.multiple_of));
                }
            }
        }
        SLIPSTREAM_RETURN_IF_ERROR(survive(current_));
    }
    SLIPSTREAM_RETURN_IF_ERROR(builder_->number(text));
    return end_value();
}

std::vector<SchemaChecker::IntegerRange> SchemaChecker::integer_bounds() const {
    std::vector<IntegerRange> out;
    if (!numeric_checks_ || !integer_only()) return out;
    for (const Alt& a : current_) {
        if (!a.alive) continue;
        IntegerRange r{-HUGE_VAL, HUGE_VAL, 0};
        for (const json::Value* node : a.nodes) {
            if (!node->is_object()) continue;
            const NumberBounds b = number_bounds(*node);
            r.lo = std::max(r.lo, std::ceil(b.lo));
            r.hi = std::min(r.hi, std::floor(b.hi));
            if (b.multiple_of > 0) {  // the lcm, unless it grows past what is exact (then left out: never refuses)
                const std::int64_t m = r.multiple_of == 0 ? b.multiple_of : std::lcm(r.multiple_of, b.multiple_of);
                r.multiple_of = m > 0 && m < 1'000'000'000'000'000 ? m : -1;
            }
        }
        if (r.multiple_of < 0) r.multiple_of = 0;
        out.push_back(r);
    }
    return out;
}

// One more character is coming: maxLength can refuse it before it is whole.
base::Status SchemaChecker::begin_char(bool key, std::string_view pending) {
    if (key || !in_string_) return base::Status::ok();
    const std::size_t length = text_points_ + code_points(pending) + 1;
    for (Alt& a : current_) {
        for (const json::Value* node : a.nodes) {
            if (!a.alive || !node->is_object()) continue;
            const std::int64_t max = count_keyword(*node, "maxLength");
            if (max >= 0 && static_cast<std::int64_t>(length) > max)
                kill(a, "maxLength", "should have at most " + std::to_string(max) + " characters");
        }
    }
    return survive(current_);
}

// `type` and the kinds of `enum`/`const` at the literal's first byte; the value itself once whole.
base::Status SchemaChecker::begin_literal(bool null) {
    in_literal_ = true;
    return begin_value(null ? Kind::kNull : Kind::kBoolean);
}

base::Status SchemaChecker::boolean(bool value) {
    if (!std::exchange(in_literal_, false)) SLIPSTREAM_RETURN_IF_ERROR(begin_value(Kind::kBoolean));
    SLIPSTREAM_RETURN_IF_ERROR(builder_->boolean(value));
    return end_value();
}

base::Status SchemaChecker::null() {
    if (!std::exchange(in_literal_, false)) SLIPSTREAM_RETURN_IF_ERROR(begin_value(Kind::kNull));
    SLIPSTREAM_RETURN_IF_ERROR(builder_->null());
    return end_value();
}

bool SchemaChecker::integer_only() const {
    bool any = false;
    for (const Alt& a : current_) {
        if (!a.alive) continue;
        any = true;
        if (std::all_of(a.nodes.begin(), a.nodes.end(),
                        [](const json::Value* n) { return !n->is_object() || type_allows(*n, Kind::kFraction); }))
            return false;
    }
    return any;
}

std::optional<SchemaChecker::StringRoom> SchemaChecker::free_string_room() const {
    if (!in_string_) return std::nullopt;
    for (const PatternRun& r : runs_) {  // a pattern reads the text
        if (current_[r.alt].alive) return std::nullopt;
    }
    StringRoom room;
    bool any = false;
    for (const Alt& a : current_) {
        if (!a.alive) continue;
        any = true;
        std::size_t chars = SIZE_MAX;
        for (const json::Value* node : a.nodes) {
            if (!node->is_object()) continue;
            if (node->find("enum") != nullptr || node->find("const") != nullptr) return std::nullopt;
            const std::int64_t max = count_keyword(*node, "maxLength");
            if (max >= 0) {
                room.bounded = true;
                const auto m = static_cast<std::size_t>(max);
                chars = std::min(chars, m > text_points_ ? m - text_points_ : 0);
            }
            if (count_keyword(*node, "minLength") >= 0) room.bounded = true;
        }
        room.chars = std::max(room.chars, chars);
    }
    if (!any) return std::nullopt;
    return room;
}

std::optional<std::uint64_t> SchemaChecker::close_survivors(std::size_t more) const {
    if (!in_string_ || current_.size() > 64) return std::nullopt;
    const auto length = static_cast<std::int64_t>(text_points_ + more);
    std::uint64_t bits = 0;
    for (std::size_t i = 0; i < current_.size(); ++i) {
        const Alt& a = current_[i];
        if (!a.alive) continue;
        const bool fits = std::all_of(a.nodes.begin(), a.nodes.end(), [&](const json::Value* node) {
            if (!node->is_object()) return true;
            const std::int64_t max = count_keyword(*node, "maxLength");
            const std::int64_t min = count_keyword(*node, "minLength");
            return (max < 0 || length <= max) && (min < 0 || length >= min);
        });
        if (fits) bits |= std::uint64_t{1} << i;
    }
    return bits;
}

void SchemaChecker::put_alts(std::string& out, const std::vector<Alt>& list) {
    const auto put = [&out](const auto& v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
    put(list.size());
    for (const Alt& a : list) {
        put(a.parent);
        put(a.alive);
        put(a.nodes.size());
        for (const json::Value* n : a.nodes)
            put(n);
    }
}

void SchemaChecker::container_state(std::string& out) const {
    window_state(out, SIZE_MAX);
}

void SchemaChecker::window_state(std::string& out, std::size_t window) const {
    const auto put = [&out](const auto& v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
    const auto alts = [&out](const std::vector<Alt>& list) { put_alts(out, list); };
    // An array's count matters only to keywords that count or index its items.
    const auto counted = [](const Frame& f) {
        for (const Alt& a : f.alts) {
            for (const json::Value* n : a.nodes) {
                if (!n->is_object()) continue;
                for (std::string_view k : {"maxItems", "minItems", "prefixItems", "contains", "uniqueItems"})
                    if (n->find(k) != nullptr) return true;
                if (const json::Value* items = n->find("items"); items != nullptr && items->is_array()) return true;
            }
        }
        return false;
    };
    const std::size_t from = frames_.size() > window ? frames_.size() - window : 0;
    put(from > 0 ? SIZE_MAX : frames_.size());  // deeper frames left out: a marker
    for (std::size_t i = from; i < frames_.size(); ++i) {
        const Frame& f = frames_[i];
        put(f.object);
        put(f.object || counted(f) ? f.count : 0);
        alts(f.alts);
        put(f.keys.size());
        for (std::string_view k : f.keys.items) {  // sorted
            put(k.size());
            out.append(k);
        }
    }
    put(in_string_);
    alts(current_);
}

void SchemaChecker::state_key(std::string& out, bool text_free, std::size_t window, std::size_t room_cap) const {
    const auto put = [&out](const auto& v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
    window_state(out, window);
    put_alts(out, next_);
    put(in_literal_);
    if (!frames_.empty()) {
        put(frames_.back().key.size());
        out.append(frames_.back().key);
    }
    if (!in_string_) return;
    const auto room = free_string_room();
    if (!text_free || (!room && !pattern_keyed())) {
        put(text_.size());
        out.append(text_);
        put(text_points_);
        return;
    }
    // The text matters only through its patterns' states (and, below, its length).
    if (!runs_.empty()) {
        put(text_points_ == 0);
        for (const PatternRun& r : runs_) {
            put(r.alt);
            put(current_[r.alt].alive);
            put(r.states);
        }
    }
    bool bounded = room && room->bounded;
    for (const Alt& a : current_) {
        for (const json::Value* node : a.nodes) {
            if (!room && a.alive && node->is_object() &&
                (count_keyword(*node, "maxLength") >= 0 || count_keyword(*node, "minLength") >= 0))
                bounded = true;
        }
    }
    if (!bounded) return;
    // A bounded free string: the length matters only through what each alternative's minLength and maxLength
    // still allow, and continuations of at most room_cap bytes add at most room_cap characters, so each distance
    // is kept clamped to [-1, room_cap + 1] (every length in the middle of a long maxLength shares one key).
    // A pattern's shortest match must fit maxLength: within room_cap characters its distance to a match grows to at
    // most the NFA's longest finite distance, so the maxLength distance is kept up to that much further.
    std::size_t reach = 0;
    for (const PatternRun& r : runs_)
        reach = std::max(reach, r.nfa->max_distance());
    const auto cap = static_cast<std::int64_t>(std::min<std::size_t>(room_cap + reach, INT32_MAX)) + 1;
    const auto n = static_cast<std::int64_t>(text_points_);
    for (const Alt& a : current_) {
        put(a.alive);
        if (!a.alive) continue;
        for (const json::Value* node : a.nodes) {
            if (!node->is_object()) continue;
            const std::int64_t max = count_keyword(*node, "maxLength");
            const std::int64_t min = count_keyword(*node, "minLength");
            put(max < 0 ? cap : std::clamp<std::int64_t>(max - n, -1, cap));
            put(min < 0 ? std::int64_t{-1} : std::clamp<std::int64_t>(min - n, -1, cap));
        }
    }
}

bool SchemaChecker::number_value_checked() const {
    if (!numeric_checks_) return false;
    for (const Alt& a : current_) {
        for (const json::Value* node : a.nodes) {
            if (!a.alive || !node->is_object()) continue;
            const NumberBounds b = number_bounds(*node);
            if (b.lo != -HUGE_VAL || b.hi != HUGE_VAL || b.multiple_of != 0) return true;
        }
    }
    return false;
}

bool SchemaChecker::listed_texts(bool key, std::vector<std::string_view>& out) const {
    if (!text_listed(key)) return false;
    const std::string& so_far = key ? frames_.back().key : text_;
    const auto add = [&](const json::Value& text) {
        if (text.is_string() && text.as_string().starts_with(so_far))
            out.push_back(text.as_string().substr(so_far.size()));
    };
    for (const Alt& a : key ? frames_.back().alts : current_) {
        if (!a.alive) continue;
        for (const json::Value* node : a.nodes) {
            if (!node->is_object()) continue;  // `false`: nothing to add
            if (key) {
                const json::Value* properties = node->find("properties");
                const json::Value* additional = node->find("additionalProperties");
                if (node->find("patternProperties") != nullptr || additional == nullptr || !additional->is_bool() ||
                    additional->as_bool())
                    continue;
                if (properties != nullptr && properties->is_object()) {
                    for (const json::Member& m : properties->members()) {
                        if (m.key.starts_with(so_far)) out.push_back(m.key.substr(so_far.size()));
                    }
                }
                break;  // one listing node bounds this alternative
            }
            const json::Value* c = node->find("const");
            const json::Value* e = node->find("enum");
            if (c == nullptr && e == nullptr) continue;
            if (c != nullptr) add(*c);
            if (e != nullptr && e->is_array()) {
                for (const json::Value& m : e->items())
                    add(m);
            }
            break;
        }
    }
    return true;
}

bool SchemaChecker::text_listed(bool key) const {
    auto listed = [key](const json::Value* node) {
        if (!node->is_object()) return node->is_bool() && !node->as_bool();
        if (!key) return node->find("enum") != nullptr || node->find("const") != nullptr;
        const json::Value* additional = node->find("additionalProperties");
        return node->find("patternProperties") == nullptr && additional != nullptr && additional->is_bool() &&
               !additional->as_bool();
    };
    auto all_listed = [&](const std::vector<Alt>& alts) {
        bool any = false;
        for (const Alt& a : alts) {
            if (!a.alive) continue;
            any = true;
            if (std::none_of(a.nodes.begin(), a.nodes.end(), listed)) return false;
        }
        return any;
    };
    if (key) return !frames_.empty() && frames_.back().object && all_listed(frames_.back().alts);
    return in_string_ && all_listed(current_);
}

}  // namespace slipstream::agent::structured
