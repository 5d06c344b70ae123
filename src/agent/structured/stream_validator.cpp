// StreamValidator: the early keyword checks (Checker, between JsonStream and ValueBuilder) and the final verdict.
#include "agent/structured/stream_validator.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <unordered_set>

#include "json/pointer.h"
#include "json/schema/error_sink.h"
#include "json/writer.h"

namespace slipstream::agent::structured {
namespace {

// A value's JSON Schema type as far as `type` goes; numbers split by whether their value is integral.
enum class Kind : std::uint8_t { kObject, kArray, kString, kNumber, kIntegral, kFraction, kBoolean, kNull };

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
        case Kind::kNumber:
        case Kind::kIntegral:
        case Kind::kFraction:
            return "number";
        case Kind::kBoolean:
            return "boolean";
        case Kind::kNull:
            return "null";
    }
    return "value";
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

}  // namespace

// Checks the keywords a prefix can prove unsatisfiable, then hands each event to the ValueBuilder.
class StreamValidator::Checker final : public JsonEvents {
  public:
    Checker(const json::Value& schema, bool siblings_of_ref, ValueBuilder& builder, SchemaFailure& failure)
        : builder_(builder),
          failure_(failure),
          root_(schema),
          siblings_of_ref_(siblings_of_ref),
          follow_refs_(!has_nested_id(schema, true)) {
        next_ = usable(&schema);
    }

    base::Status begin_object() override {
        SLIPSTREAM_RETURN_IF_ERROR(begin_value(Kind::kObject));
        push_frame(true);
        return builder_.begin_object();
    }
    base::Status begin_array() override {
        SLIPSTREAM_RETURN_IF_ERROR(begin_value(Kind::kArray));
        push_frame(false);
        return builder_.begin_array();
    }
    base::Status end_object() override {
        Frame& f = frames_.back();
        if (f.node != nullptr) {
            if (const json::Value* required = f.node->find("required"); required != nullptr && required->is_array()) {
                for (const json::Value& name : required->items()) {
                    if (name.is_string() && f.keys.count(std::string(name.as_string())) == 0)
                        return fail("required", "'" + std::string(name.as_string()) + "' is a required property");
                }
            }
            const std::int64_t min = count_keyword(*f.node, "minProperties");
            if (min >= 0 && static_cast<std::int64_t>(f.keys.size()) < min)
                return fail("minProperties", "should have at least " + std::to_string(min) + " properties");
        }
        frames_.pop_back();
        SLIPSTREAM_RETURN_IF_ERROR(builder_.end_object());
        return end_value();
    }
    base::Status end_array() override {
        Frame& f = frames_.back();
        if (f.node != nullptr) {
            const std::int64_t min = count_keyword(*f.node, "minItems");
            if (min >= 0 && static_cast<std::int64_t>(f.count) < min)
                return fail("minItems", "should have at least " + std::to_string(min) + " items");
        }
        frames_.pop_back();
        SLIPSTREAM_RETURN_IF_ERROR(builder_.end_array());
        return end_value();
    }

    base::Status key(std::string_view piece, bool last) override {
        Frame& f = frames_.back();
        f.key.append(piece);
        SLIPSTREAM_RETURN_IF_ERROR(builder_.key(piece, last));
        if (!last) return base::Status::ok();
        path_.push_back(f.key);
        f.keys.insert(f.key);
        next_ = nullptr;
        const json::Value* node = f.node;
        if (node != nullptr) {
            const std::int64_t max = count_keyword(*node, "maxProperties");
            if (max >= 0 && static_cast<std::int64_t>(f.keys.size()) > max)
                return fail("maxProperties", "should have at most " + std::to_string(max) + " properties");
            const json::Value* properties = node->find("properties");
            const json::Value* declared =
                properties != nullptr && properties->is_object() ? properties->find(f.key) : nullptr;
            const json::Value* additional = node->find("additionalProperties");
            if (declared != nullptr) {
                next_ = usable(declared);
            } else if (node->find("patternProperties") == nullptr && additional != nullptr) {
                if (additional->is_bool() && !additional->as_bool())
                    return fail("additionalProperties", "'" + f.key + "' is not allowed here");
                next_ = usable(additional);
            }
        }
        f.key.clear();
        return base::Status::ok();
    }

    base::Status string(std::string_view piece, bool last) override {
        if (!in_string_) {
            SLIPSTREAM_RETURN_IF_ERROR(begin_value(Kind::kString));
            in_string_ = true;
            text_.clear();
            string_node_ = current_;
        }
        text_.append(piece);
        if (string_node_ != nullptr) SLIPSTREAM_RETURN_IF_ERROR(check_string(last));
        SLIPSTREAM_RETURN_IF_ERROR(builder_.string(piece, last));
        if (!last) return base::Status::ok();
        in_string_ = false;
        return end_value();
    }

    base::Status begin_number() override { return begin_value(Kind::kNumber); }
    base::Status number(std::string_view text) override {
        // The kind is known now: an "integer"-only type refuses a fraction.
        if (current_ != nullptr && number_kind(text) == Kind::kFraction && !type_allows(*current_, Kind::kFraction))
            return fail("type", "a number with a fraction is not allowed here");
        SLIPSTREAM_RETURN_IF_ERROR(builder_.number(text));
        return end_value();
    }
    base::Status boolean(bool value) override {
        SLIPSTREAM_RETURN_IF_ERROR(begin_value(Kind::kBoolean));
        SLIPSTREAM_RETURN_IF_ERROR(builder_.boolean(value));
        return end_value();
    }
    base::Status null() override {
        SLIPSTREAM_RETURN_IF_ERROR(begin_value(Kind::kNull));
        SLIPSTREAM_RETURN_IF_ERROR(builder_.null());
        return end_value();
    }

  private:
    struct Frame {
        const json::Value* node = nullptr;  // the container's schema (null: nothing checked early)
        bool object = false;
        std::size_t count = 0;                 // elements so far (arrays)
        std::string key;                       // the key being read (objects)
        std::unordered_set<std::string> keys;  // distinct keys so far (objects)
    };

    void push_frame(bool object) {
        frames_.emplace_back();
        frames_.back().node = current_ != nullptr && current_->is_object() ? current_ : nullptr;
        frames_.back().object = object;
    }

    // A schema node whose own keywords may be checked early: an object or a boolean. A node that is only a local
    // `$ref` (with annotations at most, as pydantic writes nested models) stands for its target. Otherwise a node
    // with `$ref` is checked by its own keywords, except before 2019-09, which ignores them beside a `$ref`.
    const json::Value* usable(const json::Value* node) const {
        for (int hops = 0; hops < 32; ++hops) {
            if (node == nullptr || !(node->is_object() || node->is_bool())) return nullptr;
            const json::Value* ref = node->is_object() ? node->find("$ref") : nullptr;
            if (ref == nullptr) return node;
            const json::Value* target = follow_refs_ && ref->is_string() && only_annotations_beside_ref(*node)
                                            ? local_target(ref->as_string())
                                            : nullptr;
            if (target == nullptr) return siblings_of_ref_ ? node : nullptr;
            node = target;
        }
        return nullptr;  // a cycle of references
    }

    const json::Value* local_target(std::string_view ref) const {
        if (ref == "#") return &root_;
        if (!ref.starts_with("#/") || ref.find('%') != std::string_view::npos) return nullptr;  // not decoded here
        return json::resolve_pointer(root_, ref.substr(1));
    }

    static bool only_annotations_beside_ref(const json::Value& node) {
        static constexpr std::string_view kAnnotations[] = {
            "$ref", "title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"};
        for (const json::Member& m : node.members()) {
            if (std::find(std::begin(kAnnotations), std::end(kAnnotations), m.key) == std::end(kAnnotations))
                return false;
        }
        return true;
    }

    // Whether a `$id` below the root changes what "#/..." means somewhere (then no reference is followed).
    static bool has_nested_id(const json::Value& v, bool root) {
        if (v.is_array()) {
            for (const json::Value& item : v.items())
                if (has_nested_id(item, false)) return true;
            return false;
        }
        if (!v.is_object()) return false;
        for (const json::Member& m : v.members()) {
            if (!root && m.key == "$id") return true;
            if (has_nested_id(m.value, false)) return true;
        }
        return false;
    }

    // A value starts: its node, the element count of an enclosing array, `false`, `type`, `enum`/`const` kinds.
    base::Status begin_value(Kind k) {
        if (!frames_.empty() && !frames_.back().object) {
            Frame& f = frames_.back();
            path_.push_back(std::to_string(f.count));
            ++f.count;
            next_ = nullptr;
            if (f.node != nullptr && f.node->is_object()) {
                const std::int64_t max = count_keyword(*f.node, "maxItems");
                if (max >= 0 && static_cast<std::int64_t>(f.count) > max)
                    return fail("maxItems", "should have at most " + std::to_string(max) + " items");
                next_ = element_node(*f.node, f.count - 1);
            }
        }
        current_ = next_;
        next_ = nullptr;
        if (current_ == nullptr) return base::Status::ok();
        if (current_->is_bool()) {
            if (current_->as_bool()) {
                current_ = nullptr;
                return base::Status::ok();
            }
            return fail("false", "no value is allowed here");
        }
        if (!type_allows(*current_, k)) return fail("type", std::string("a ") + kind_name(k) + " is not allowed here");
        if (!allowed_by_members(k))
            return fail(current_->find("const") != nullptr ? "const" : "enum",
                        std::string("no allowed value is a ") + kind_name(k));
        return base::Status::ok();
    }

    // The schema of element `i` of an array whose schema is `node`: prefixItems (or draft 7's items array),
    // then items. A `false` there means the element is not allowed.
    const json::Value* element_node(const json::Value& node, std::size_t i) const {
        const json::Value* prefix = node.find("prefixItems");
        const json::Value* items = node.find("items");
        if (items != nullptr && items->is_array()) prefix = items, items = nullptr;
        if (prefix != nullptr && prefix->is_array()) {
            if (i < prefix->items().size()) return usable(&prefix->items()[i]);
            if (items == nullptr) return nullptr;
        }
        return usable(items);
    }

    // `enum` / `const` name at least one value of this kind (absent: anything).
    bool allowed_by_members(Kind k) const {
        for (const char* keyword : {"enum", "const"}) {
            const json::Value* v = current_->find(keyword);
            if (v == nullptr) continue;
            bool any = false;
            const auto matches = [k](const json::Value& m) {
                switch (k) {
                    case Kind::kObject:
                        return m.is_object();
                    case Kind::kArray:
                        return m.is_array();
                    case Kind::kString:
                        return m.is_string();
                    case Kind::kNumber:
                    case Kind::kIntegral:
                    case Kind::kFraction:
                        return m.is_number();
                    case Kind::kBoolean:
                        return m.is_bool();
                    case Kind::kNull:
                        return m.is_null();
                }
                return false;
            };
            if (std::string_view(keyword) == "const") {
                any = matches(*v);
            } else if (v->is_array()) {
                for (const json::Value& m : v->items())
                    any = any || matches(m);
            } else {
                any = true;  // a malformed enum: the compiled schema judges
            }
            if (!any) return false;
        }
        return true;
    }

    // maxLength as code points arrive; enum/const as prefixes; minLength and exact members at the end.
    base::Status check_string(bool last) {
        const json::Value& node = *string_node_;
        const std::int64_t max = count_keyword(node, "maxLength");
        const std::size_t length = code_points(text_);
        if (max >= 0 && static_cast<std::int64_t>(length) > max)
            return fail("maxLength", "should have at most " + std::to_string(max) + " characters");
        for (const char* keyword : {"enum", "const"}) {
            const json::Value* v = node.find(keyword);
            if (v == nullptr) continue;
            const auto fits = [&](const json::Value& m) {
                return m.is_string() && (last ? m.as_string() == text_ : m.as_string().starts_with(text_));
            };
            bool any = false;
            if (std::string_view(keyword) == "const") {
                any = fits(*v);
            } else if (v->is_array()) {
                for (const json::Value& m : v->items())
                    any = any || fits(m);
            } else {
                any = true;
            }
            if (!any) return fail(keyword, "'" + text_ + "' cannot become an allowed value");
        }
        if (last) {
            const std::int64_t min = count_keyword(node, "minLength");
            if (min >= 0 && static_cast<std::int64_t>(length) < min)
                return fail("minLength", "should have at least " + std::to_string(min) + " characters");
        }
        return base::Status::ok();
    }

    base::Status end_value() {
        if (!path_.empty() && !frames_.empty()) path_.pop_back();
        return base::Status::ok();
    }

    base::Status fail(const char* keyword, std::string message) {
        failure_.keyword = keyword;
        failure_.pointer.clear();
        for (const std::string& token : path_) {
            failure_.pointer.push_back('/');
            json::append_pointer_token(failure_.pointer, token);
        }
        failure_.message = message;
        return base::Status::invalid_argument(std::move(message));
    }

    ValueBuilder& builder_;
    SchemaFailure& failure_;
    const json::Value& root_;
    bool siblings_of_ref_;
    bool follow_refs_;
    std::vector<Frame> frames_;
    std::vector<std::string> path_;         // tokens of the value being read
    const json::Value* next_ = nullptr;     // the schema of the next value to start
    const json::Value* current_ = nullptr;  // the schema of the value that just started
    bool in_string_ = false;
    const json::Value* string_node_ = nullptr;
    std::string text_;
};

StreamValidator::StreamValidator(const json::Value& schema, json::schema::Schema compiled, json::ParseOptions options)
    : compiled_(std::move(compiled)),
      builder_(arena_, options.duplicate_keys),
      checker_(
          std::make_unique<Checker>(schema, compiled_.draft() != json::schema::Draft::kDraft7, builder_, failure_)),
      stream_(checker_.get(), options) {}

StreamValidator::~StreamValidator() = default;

base::Result<std::unique_ptr<StreamValidator>> StreamValidator::create(std::string_view schema_json,
                                                                       json::ParseOptions options) {
    auto owned = std::make_unique<OwnedSchema>();
    json::ParseError pe;
    base::Result<const json::Value*> doc = json::parse(schema_json, owned->arena, {}, &pe);
    if (!doc.is_ok()) return base::Status::invalid_argument("the schema is not JSON: " + pe.message);
    owned->doc = doc.value();
    json::schema::Schema compiled;
    try {
        compiled = json::schema::compile(*owned->doc);
    } catch (const json::schema::SchemaError& e) {
        return base::Status::invalid_argument(std::string("the schema does not compile: ") + e.what());
    }
    auto v = std::make_unique<StreamValidator>(*owned->doc, std::move(compiled), options);
    v->owned_ = std::move(owned);
    return v;
}

bool StreamValidator::snapshot_json(std::string& out, std::vector<std::string>* partial) {
    const json::Value* v = builder_.snapshot(partial);
    if (v == nullptr) return false;
    json::Writer w(out);
    return w.write_value(*v).is_ok();
}

StreamState StreamValidator::feed(std::string_view chunk) {
    return settle(stream_.feed(chunk));
}

StreamState StreamValidator::finish() {
    return settle(stream_.finish());
}

// An invalid stream gets its offset (and "json" for a syntax or limit error); a complete one its verdict.
StreamState StreamValidator::settle(StreamState s) {
    if (state_ == StreamState::kInvalid) return state_;
    if (s == StreamState::kInvalid) {  // also after a complete document: bytes other than whitespace followed it
        if (failure_.keyword.empty()) {
            failure_.keyword = "json";
            failure_.message = stream_.error().message;
        }
        failure_.offset = stream_.error().offset;
        return state_ = s;
    }
    if (s != StreamState::kComplete || state_ == StreamState::kComplete) return state_;
    json::schema::ErrorSink sink(1);
    if (compiled_.validate(*builder_.result(), &sink)) return state_ = StreamState::kComplete;
    const json::schema::ValidationError& e = sink.errors().front();
    failure_.offset = stream_.offset();
    failure_.pointer.clear();
    for (const json::schema::PathSegment& seg : e.loc) {
        failure_.pointer.push_back('/');
        if (seg.is_index()) {
            failure_.pointer += std::to_string(seg.index);
        } else {
            json::append_pointer_token(failure_.pointer, seg.key);
        }
    }
    const std::size_t slash = e.schema_path.rfind('/');
    failure_.keyword = slash == std::string::npos ? e.schema_path : e.schema_path.substr(slash + 1);
    failure_.message = e.msg;
    return state_ = StreamState::kInvalid;
}

}  // namespace slipstream::agent::structured
