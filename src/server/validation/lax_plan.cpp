// LaxPlan: pydantic's lax conversions of JSON body values, guided by the body's schema document.
#include "server/validation/lax_plan.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "json/schema/coerce.h"

namespace slipstream::server::detail {
namespace {

enum : std::uint8_t { kNull = 1, kBool = 2, kInt = 4, kNum = 8, kStr = 16, kArr = 32, kObj = 64, kAll = 127 };
constexpr int kMaxDepth = 64;
constexpr std::string_view kLiteralKeyword = "x-slipstream-literal";
// "dataclass:<class name>", "typeddict", "set", "frozenset" or "tuple" (a variadic one; a fixed one has prefixItems)
constexpr std::string_view kKindKeyword = "x-slipstream-kind";
constexpr std::string_view kTagsKeyword = "x-slipstream-tags";  // union member tags (json/schema puts them in loc)

std::uint8_t type_bit(std::string_view t) {
    if (t == "null") return kNull;
    if (t == "boolean") return kBool;
    if (t == "integer") return kInt;
    if (t == "number") return kNum;
    if (t == "string") return kStr;
    if (t == "array") return kArr;
    if (t == "object") return kObj;
    return 0;
}

// The type bit of a JSON value as an enum member.
std::uint8_t value_bit(const json::Value& v) {
    switch (v.type()) {
        case json::Type::kNull:
            return kNull;
        case json::Type::kBool:
            return kBool;
        case json::Type::kInt:
        case json::Type::kUint:
        case json::Type::kBigInt:
            return kInt;
        case json::Type::kDouble:
            return kNum;
        case json::Type::kString:
            return kStr;
        case json::Type::kArray:
            return kArr;
        case json::Type::kObject:
            return kObj;
    }
    return 0;
}

// Whether `types` accept `v` as it is, in JSON Schema's sense (1 is a number, 1.0 an integer).
bool accepts(std::uint8_t types, const json::Value& v) {
    switch (v.type()) {
        case json::Type::kInt:
        case json::Type::kUint:
        case json::Type::kBigInt:
            return (types & (kInt | kNum)) != 0;
        case json::Type::kDouble:
            return (types & kNum) != 0 ||
                   ((types & kInt) != 0 && std::isfinite(v.as_double()) && v.as_double() == std::floor(v.as_double()));
        default:
            return (types & value_bit(v)) != 0;
    }
}

std::string escape_token(std::string_view token) {
    std::string out;
    for (char c : token) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out.push_back(c);
    }
    return out;
}

}  // namespace

struct LaxPlan::Node {
    std::uint8_t types = kAll;
    bool literal = false;   // a Literal: no string parsing
    bool has_enum = false;  // an Enum's or Literal's members: pydantic reports "enum"/"literal_error" alone
    std::vector<std::pair<std::string, const Node*>> properties;
    const Node* additional = nullptr;
    const Node* items = nullptr;
    std::vector<const Node*> prefix_items;
    std::vector<const Node*> any_of;  // anyOf / oneOf
    std::vector<std::string> tags;    // x-slipstream-tags: pydantic's loc segment per union member
    std::vector<const Node*> all_of;
    const Node* ref = nullptr;
};

namespace {

using Node = LaxPlan::Node;

// Follows $ref and a lone allOf (pydantic's wrapper around a $ref) to the node that says something.
const Node* resolve(const Node* n) {
    for (int i = 0; n != nullptr && i < kMaxDepth; ++i) {
        if (n->ref != nullptr) {
            n = n->ref;
        } else if (n->all_of.size() == 1 && n->types == kAll && n->properties.empty() && n->any_of.empty() &&
                   n->items == nullptr) {
            n = n->all_of[0];
        } else {
            return n;
        }
    }
    return n;
}

std::uint8_t types_of(const Node* n, int depth) {
    n = resolve(n);
    if (n == nullptr || depth > kMaxDepth) return kAll;
    std::uint8_t types = n->types;
    if (!n->any_of.empty()) {
        std::uint8_t any = 0;
        for (const Node* b : n->any_of)
            any |= types_of(b, depth + 1);
        types &= any;
    }
    return types;
}

class Converter {
  public:
    Converter(base::Arena& arena, std::vector<LaxFailure>* failures) : arena_(arena), failures_(failures) {}

    json::Value run(const Node* n, const json::Value& v, int depth) {
        n = resolve(n);
        if (n == nullptr || depth > kMaxDepth) return v;
        if (!n->any_of.empty()) return run_union(n, v, depth);
        if (accepts(n->types, v)) {
            if (v.is_array()) return array(n, v, depth);
            if (v.is_object()) return object(n, v, depth);
            return v;
        }
        json::Value out;
        if (scalar(n, v, &out, true, depth)) return out;
        return v;
    }

    std::size_t conversions() const { return conversions_; }

  private:
    // pydantic's smart union: a branch that takes the value as it is wins; else the first that converts it.
    json::Value run_union(const Node* n, const json::Value& v, int depth) {
        for (std::size_t i = 0; i < n->any_of.size(); ++i) {
            const Node* b = n->any_of[i];
            if (!accepts(types_of(b, depth + 1), v)) continue;
            // A tagged member's failures are reported under its tag, as the validator reports them.
            const bool tagged = i < n->tags.size() && !n->tags[i].empty();
            if (tagged) path_.push_back({n->tags[i], -1});
            json::Value out = run(b, v, depth + 1);
            if (tagged) path_.pop_back();
            return out;
        }
        const Node* only = nullptr;
        int non_null = 0;
        for (const Node* b : n->any_of) {
            if (types_of(b, depth + 1) == kNull) continue;
            ++non_null;
            only = b;
            json::Value out;
            if (scalar(b, v, &out, false, depth + 1)) return out;
        }
        // Optional[X] is X for pydantic's errors too.
        if (non_null == 1) return run(only, v, depth + 1);
        return v;
    }

    // One scalar converted to what `n` accepts; false (with a failure when `record`) when pydantic would fail.
    bool scalar(const Node* n, const json::Value& v, json::Value* out, bool record, int depth) {
        n = resolve(n);
        if (n == nullptr || depth > kMaxDepth) return false;
        if (!n->any_of.empty()) {
            for (const Node* b : n->any_of)
                if (scalar(b, v, out, false, depth + 1)) return true;
            return false;
        }
        const std::uint8_t t = n->types;
        bool ok = false;
        if (v.is_string()) {
            if ((t & kStr) || n->literal) return false;
            json::schema::LaxInt int_result = json::schema::LaxInt::kInvalid;
            ok = ((t & kInt) && (int_result = json::schema::parse_lax_int(v.as_string(), &arena_, out)) ==
                                    json::schema::LaxInt::kOk) ||
                 ((t & kNum) && json::schema::parse_lax_float(v.as_string(), out)) ||
                 ((t & kBool) && json::schema::parse_lax_bool(v.as_string(), out));
            if (!ok && record && !n->has_enum) {
                if (t & kInt)
                    fail(int_result == json::schema::LaxInt::kTooBig ? "int_parsing_size" : "int_parsing",
                         int_result == json::schema::LaxInt::kTooBig
                             ? "Unable to parse input string as an integer, exceeded maximum size"
                             : "Input should be a valid integer, unable to parse string as an integer");
                else if (t & kNum)
                    fail("float_parsing", "Input should be a valid number, unable to parse string as a number");
                else if (t & kBool)
                    fail("bool_parsing", "Input should be a valid boolean, unable to interpret input");
            }
        } else if (v.is_bool()) {
            if (t & kInt)
                ok = (*out = json::Value::integer(v.as_bool() ? 1 : 0), true);
            else if (t & kNum)
                ok = (*out = json::Value::number(v.as_bool() ? 1.0 : 0.0), true);
        } else if (v.is_number() && (t & kBool)) {
            double d = v.as_double();
            if (d == 0.0 || d == 1.0)
                ok = (*out = json::Value::boolean(d == 1.0), true);
            else if (record && v.is_integer() && !n->has_enum)
                fail("bool_parsing", "Input should be a valid boolean, unable to interpret input");
        }
        if (ok) ++conversions_;
        return ok;
    }

    json::Value array(const Node* n, const json::Value& v, int depth) {
        if (n->items == nullptr && n->prefix_items.empty()) return v;
        json::Value* copy = nullptr;
        for (std::uint32_t i = 0; i < v.size(); ++i) {
            const Node* child = i < n->prefix_items.size() ? n->prefix_items[i] : n->items;
            if (child == nullptr) continue;
            std::size_t before = conversions_;
            path_.push_back({{}, static_cast<std::int64_t>(i)});
            json::Value c = run(child, v.items()[i], depth + 1);
            path_.pop_back();
            if (conversions_ == before) continue;
            if (copy == nullptr) {
                copy = arena_.make_array<json::Value>(v.size());
                for (std::uint32_t j = 0; j < v.size(); ++j)
                    copy[j] = v.items()[j];
            }
            copy[i] = c;
        }
        return copy != nullptr ? json::Value::array(copy, v.size()) : v;
    }

    json::Value object(const Node* n, const json::Value& v, int depth) {
        if (n->properties.empty() && n->additional == nullptr) return v;
        json::Member* copy = nullptr;
        for (std::uint32_t i = 0; i < v.size(); ++i) {
            const json::Member& m = v.members()[i];
            const Node* child = n->additional;
            for (const auto& [key, node] : n->properties)
                if (key == m.key) child = node;
            if (child == nullptr) continue;
            std::size_t before = conversions_;
            path_.push_back({m.key, -1});
            json::Value c = run(child, m.value, depth + 1);
            path_.pop_back();
            if (conversions_ == before) continue;
            if (copy == nullptr) {
                copy = arena_.make_array<json::Member>(v.size());
                for (std::uint32_t j = 0; j < v.size(); ++j)
                    copy[j] = v.members()[j];
            }
            copy[i].value = c;
        }
        return copy != nullptr ? json::Value::object(copy, v.size()) : v;
    }

    void fail(std::string_view type, std::string_view msg) {
        if (failures_ != nullptr) failures_->push_back(LaxFailure{path_, type, msg});
    }

    base::Arena& arena_;
    std::vector<LaxFailure>* failures_;
    std::vector<json::schema::PathSegment> path_;
    std::size_t conversions_ = 0;
};

}  // namespace

LaxPlan::LaxPlan(const json::Value& schema) {
    root_ = build(schema, schema, "#", 0);
}

LaxPlan::~LaxPlan() = default;

const LaxPlan::Node* LaxPlan::build(const json::Value& s, const json::Value& root, const std::string& pointer,
                                    int depth) {
    nodes_.push_back(std::make_unique<Node>());
    Node& n = *nodes_.back();
    if (s.is_bool()) n.types = s.as_bool() ? kAll : 0;
    if (!s.is_object() || depth > kMaxDepth) return &n;
    if (const json::Value* t = s.find("type")) {
        n.types = 0;
        if (t->is_string()) n.types = type_bit(t->as_string());
        if (t->is_array())
            for (const json::Value& item : t->items())
                if (item.is_string()) n.types |= type_bit(item.as_string());
    }
    const json::Value* values = s.find("enum");
    const json::Value* constant = s.find("const");
    if ((values != nullptr && values->is_array()) || constant != nullptr) {
        n.has_enum = true;
        if (s.find("type") == nullptr) {
            n.types = constant != nullptr ? value_bit(*constant) : 0;
            if (values != nullptr && values->is_array())
                for (const json::Value& v : values->items())
                    n.types |= value_bit(v);
        }
        const json::Value* literal = s.find(kLiteralKeyword);
        n.literal = literal != nullptr && literal->is_bool() && literal->as_bool();
        if (n.literal && values != nullptr) literal_enums_.insert(pointer + "/enum");
    }
    if (const json::Value* kind = s.find(kKindKeyword); kind != nullptr && kind->is_string()) {
        constexpr std::string_view kDataclass = "dataclass:";
        std::string_view k = kind->as_string();
        if (k == "typeddict") kinds_.emplace(pointer, KindInfo{Kind::kTypedDict, {}});
        if (k == "set") kinds_.emplace(pointer, KindInfo{Kind::kSet, {}});
        if (k == "frozenset") kinds_.emplace(pointer, KindInfo{Kind::kFrozenSet, {}});
        if (k == "tuple") kinds_.emplace(pointer, KindInfo{Kind::kTuple, {}});
        if (k.substr(0, kDataclass.size()) == kDataclass)
            kinds_.emplace(pointer, KindInfo{Kind::kDataclass, std::string(k.substr(kDataclass.size()))});
    }
    if (s.find("prefixItems") != nullptr) kinds_.emplace(pointer, KindInfo{Kind::kTuple, {}});
    if (const json::Value* props = s.find("properties"); props != nullptr && props->is_object())
        for (const json::Member& m : props->members())
            n.properties.emplace_back(std::string(m.key),
                                      build(m.value, root, pointer + "/properties/" + escape_token(m.key), depth + 1));
    if (const json::Value* extra = s.find("additionalProperties"); extra != nullptr && extra->is_object())
        n.additional = build(*extra, root, pointer + "/additionalProperties", depth + 1);
    if (const json::Value* items = s.find("items"); items != nullptr && items->is_object())
        n.items = build(*items, root, pointer + "/items", depth + 1);
    if (const json::Value* prefix = s.find("prefixItems"); prefix != nullptr && prefix->is_array())
        for (std::uint32_t i = 0; i < prefix->size(); ++i)
            n.prefix_items.push_back(
                build(prefix->items()[i], root, pointer + "/prefixItems/" + std::to_string(i), depth + 1));
    if (const json::Value* tags = s.find(kTagsKeyword); tags != nullptr && tags->is_array())
        for (const json::Value& t : tags->items())
            n.tags.emplace_back(t.is_string() ? t.as_string() : std::string_view());
    for (std::string_view key : {std::string_view("anyOf"), std::string_view("oneOf"), std::string_view("allOf")}) {
        const json::Value* branches = s.find(key);
        if (branches == nullptr || !branches->is_array()) continue;
        auto& into = key == "allOf" ? n.all_of : n.any_of;
        for (std::uint32_t i = 0; i < branches->size(); ++i)
            into.push_back(build(branches->items()[i], root, pointer + "/" + std::string(key) + "/" + std::to_string(i),
                                 depth + 1));
    }
    const json::Value* ref = s.find("$ref");
    constexpr std::string_view kDefs = "#/$defs/";
    if (ref != nullptr && ref->is_string() && ref->as_string().substr(0, kDefs.size()) == kDefs) {
        std::string name(ref->as_string().substr(kDefs.size()));
        for (const auto& [seen, node] : defs_)
            if (seen == name) n.ref = node;
        const json::Value* defs = root.find("$defs");
        const json::Value* target = defs != nullptr && defs->is_object() ? defs->find(name) : nullptr;
        if (n.ref == nullptr && target != nullptr) {
            // Registered before it is filled, so a recursive model refers to itself.
            nodes_.push_back(std::make_unique<Node>());
            Node* def = nodes_.back().get();
            defs_.emplace_back(name, def);
            const Node* built = build(*target, root, "#/$defs/" + escape_token(name), depth + 1);
            *def = *built;
            n.ref = def;
        }
    }
    return &n;
}

std::vector<std::uint32_t> LaxPlan::order_key(std::span<const json::schema::PathSegment> loc,
                                              const json::Value* input) const {
    constexpr std::uint32_t kAfterFields = 1u << 30;
    std::vector<std::uint32_t> key;
    key.reserve(loc.size());
    const Node* n = root_;
    for (const json::schema::PathSegment& seg : loc) {
        // Where this segment is in the input: a dict's keys (and extra keys) are ordered as sent, as pydantic
        // reports them.
        std::uint32_t sent_rank = 0;
        const json::Value* inner = nullptr;
        if (input != nullptr && seg.is_index() && input->is_array() &&
            static_cast<std::uint64_t>(seg.index) < input->size()) {
            inner = &input->items()[static_cast<std::size_t>(seg.index)];
        } else if (input != nullptr && !seg.is_index() && input->is_object()) {
            std::span<const json::Member> members = input->members();
            for (std::size_t i = 0; i < members.size() && inner == nullptr; ++i)
                if (members[i].key == seg.key) {
                    sent_rank = static_cast<std::uint32_t>(std::min<std::size_t>(i, kAfterFields - 1));
                    inner = &members[i].value;
                }
        }
        input = inner;
        n = resolve(n);
        // A tagged union member's errors: ordered by member, as pydantic tries them.
        if (n != nullptr && !seg.is_index() && !n->tags.empty()) {
            auto tag = std::find(n->tags.begin(), n->tags.end(), seg.key);
            if (tag != n->tags.end() && !tag->empty()) {
                std::size_t b = static_cast<std::size_t>(tag - n->tags.begin());
                key.push_back(static_cast<std::uint32_t>(b));
                n = b < n->any_of.size() ? n->any_of[b] : nullptr;
                continue;
            }
        }
        // A union: the branch that has this property (or takes items).
        for (std::size_t b = 0; n != nullptr && b < n->any_of.size(); ++b) {
            const Node* branch = resolve(n->any_of[b]);
            if (branch == nullptr) continue;
            bool fits = seg.is_index() ? branch->items != nullptr || !branch->prefix_items.empty()
                                       : !branch->properties.empty() || branch->additional != nullptr;
            if (fits) {
                n = branch;
                break;
            }
        }
        const Node* next = nullptr;
        std::uint32_t rank = kAfterFields + sent_rank;
        if (seg.is_index()) {
            rank = static_cast<std::uint32_t>(std::min<std::int64_t>(seg.index, kAfterFields));
            if (n != nullptr)
                next = static_cast<std::size_t>(seg.index) < n->prefix_items.size()
                           ? n->prefix_items[static_cast<std::size_t>(seg.index)]
                           : n->items;
        } else if (n != nullptr) {
            next = n->additional;
            for (std::size_t i = 0; i < n->properties.size(); ++i)
                if (n->properties[i].first == seg.key) {
                    rank = static_cast<std::uint32_t>(i);
                    next = n->properties[i].second;
                    break;
                }
        }
        key.push_back(rank);
        n = next;
    }
    return key;
}

bool LaxPlan::is_enum() const {
    const Node* n = resolve(root_);
    return n != nullptr && n->has_enum && !n->literal;
}

bool LaxPlan::convert(const json::Value& in, base::Arena& arena, json::Value* out,
                      std::vector<LaxFailure>* failures) const {
    std::size_t failed_before = failures != nullptr ? failures->size() : 0;
    Converter converter(arena, failures);
    *out = converter.run(root_, in, 0);
    return converter.conversions() > 0 || (failures != nullptr && failures->size() > failed_before);
}

}  // namespace slipstream::server::detail
