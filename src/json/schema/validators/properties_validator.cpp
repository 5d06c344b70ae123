// properties + patternProperties + additionalProperties, in one pass over the members.
#include <unordered_map>
#include <vector>

#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

struct PatternRule {
    std::unique_ptr<detail::Regex> regex;
    const Node* node;
};

class PropertiesValidator final : public Validator {
  public:
    PropertiesValidator(std::string location, std::vector<std::pair<std::string_view, const Node*>> properties,
                        std::vector<PatternRule> patterns, const Node* additional, std::string additional_location)
        : Validator(std::move(location), kObjectType),
          properties_(std::move(properties)),
          patterns_(std::move(patterns)),
          additional_(additional),
          additional_location_(std::move(additional_location)) {
        if (properties_.size() > 8)
            for (const auto& [name, node] : properties_)
                index_.emplace(name, node);
    }

    bool validate(const Value& v, Context& ctx, Annotations* ann) const override {
        bool ok = true;
        std::uint32_t i = 0;
        for (const json::Member& m : v.members()) {
            if (!member(m, ctx)) {
                ok = false;
                if (ctx.stop()) return false;
            }
            // Every member some keyword of this group applied to counts as evaluated.
            if (ann && (additional_ != nullptr || matched(m.key))) ann->set(i);
            ++i;
        }
        return ok;
    }

  private:
    const Node* find(std::string_view key) const {
        if (!index_.empty()) {
            auto it = index_.find(key);
            return it == index_.end() ? nullptr : it->second;
        }
        for (const auto& [name, node] : properties_)
            if (same_key(name, key)) return node;
        return nullptr;
    }

    bool matched(std::string_view key) const {
        if (find(key) != nullptr) return true;
        for (const PatternRule& p : patterns_)
            if (p.regex->search(key)) return true;
        return false;
    }

    bool member(const json::Member& m, Context& ctx) const {
        bool ok = true, hit = false;
        PathGuard guard(ctx, m.key);
        if (const Node* node = find(m.key)) {
            hit = true;
            if (!validate_child(node, m.value, ctx)) {
                ok = false;
                if (ctx.stop()) return false;
            }
        }
        for (const PatternRule& p : patterns_) {
            if (!p.regex->search(m.key)) continue;
            hit = true;
            if (!validate_child(p.node, m.value, ctx)) {
                ok = false;
                if (ctx.stop()) return false;
            }
        }
        if (hit || additional_ == nullptr) return ok;
        if (additional_->is_false()) {
            ctx.report(additional_location_, "extra_forbidden", "Extra inputs are not permitted", m.value);
            return false;
        }
        return validate_child(additional_, m.value, ctx);
    }

    std::vector<std::pair<std::string_view, const Node*>> properties_;
    std::unordered_map<std::string_view, const Node*> index_;  // for large models
    std::vector<PatternRule> patterns_;
    const Node* additional_;
    std::string additional_location_;
};

}  // namespace

void make_properties(const KeywordInput& in) {
    std::vector<std::pair<std::string_view, const Node*>> properties;
    if (const Value* p = in.get("properties")) {
        if (!p->is_object()) in.fail("properties", "must be an object");
        for (const json::Member& m : p->members())
            properties.emplace_back(m.key, in.sub(m.value, in.location("properties", m.key)));
    }
    std::vector<PatternRule> patterns;
    if (const Value* p = in.get("patternProperties")) {
        if (!p->is_object()) in.fail("patternProperties", "must be an object");
        for (const json::Member& m : p->members()) {
            std::string location = in.location("patternProperties", m.key);
            auto regex = compile_pattern(in, Value::string(m.key), location);
            patterns.push_back(PatternRule{std::move(regex), in.sub(m.value, location)});
        }
    }
    const Node* additional = in.get("additionalProperties") ? in.sub("additionalProperties") : nullptr;
    in.add(std::make_unique<PropertiesValidator>(in.location("properties"), std::move(properties), std::move(patterns),
                                                 additional, in.location("additionalProperties")));
}

}  // namespace slipstream::json::schema::validators
