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
            for (std::size_t i = 0; i < properties_.size(); ++i)
                index_.emplace(properties_[i].first, i);
    }

    bool validate(const Value& v, Context& ctx, Annotations* ann) const override {
        bool ok = true;
        std::uint32_t i = 0;
        std::size_t next = 0;  // where the next member's property is looked for first
        for (const json::Member& m : v.members()) {
            const Node* node = find(m.key, next);
            if (!member(m, node, ctx)) {
                ok = false;
                if (ctx.stop()) return false;
            }
            // Every member some keyword of this group applied to counts as evaluated.
            if (ann && (additional_ != nullptr || node != nullptr || pattern_matched(m.key))) ann->set(i);
            ++i;
        }
        return ok;
    }

  private:
    // Bodies usually list members in the schema's property order (pydantic, FastAPI clients and most
    // serializers keep declaration order), so the scan starts after the previous hit: one key comparison
    // per member in that case, whatever the order otherwise. Large models fall back to a hash lookup.
    const Node* find(std::string_view key, std::size_t& next) const {
        const std::size_t n = properties_.size();
        if (n == 0) return nullptr;
        if (next >= n) next = 0;
        if (same_key(properties_[next].first, key)) return properties_[next++].second;
        if (!index_.empty()) {
            auto it = index_.find(key);
            if (it == index_.end()) return nullptr;
            next = it->second + 1;
            return properties_[it->second].second;
        }
        for (std::size_t k = 1, i = next + 1; k < n; ++k, ++i) {
            if (i == n) i = 0;
            if (same_key(properties_[i].first, key)) {
                next = i + 1;
                return properties_[i].second;
            }
        }
        return nullptr;
    }

    bool pattern_matched(std::string_view key) const {
        for (const PatternRule& p : patterns_)
            if (p.regex->search(key)) return true;
        return false;
    }

    bool member(const json::Member& m, const Node* node, Context& ctx) const {
        bool ok = true, hit = false;
        PathGuard guard(ctx, m.key);
        if (node != nullptr) {
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
    std::unordered_map<std::string_view, std::size_t> index_;  // name -> position, for large models
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
