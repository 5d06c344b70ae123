// dependentRequired, dependentSchemas, and draft-07 dependencies (either form per property).
#include <utility>
#include <vector>

#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class DependentRequiredValidator final : public Validator {
  public:
    using Rule = std::pair<std::string_view, std::vector<std::string_view>>;
    DependentRequiredValidator(std::string location, std::vector<Rule> rules)
        : Validator(std::move(location), kObjectType), rules_(std::move(rules)) {}

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        bool ok = true;
        for (const auto& [property, names] : rules_) {
            if (v.find(property) == nullptr) continue;
            for (std::string_view name : names) {
                if (v.find(name) != nullptr) continue;
                ok = false;
                PathSegment key{name, -1};
                ctx.report(location_, "missing", "Field required", v, Value(), &key);
                if (ctx.stop()) return false;
            }
        }
        return ok;
    }

  private:
    std::vector<Rule> rules_;
};

class DependentSchemasValidator final : public Validator {
  public:
    using Rule = std::pair<std::string_view, const Node*>;
    DependentSchemasValidator(std::string location, std::vector<Rule> rules)
        : Validator(std::move(location), kObjectType), rules_(std::move(rules)) {}

    bool validate(const Value& v, Context& ctx, Annotations* ann) const override {
        bool ok = true;
        for (const auto& [property, node] : rules_) {
            if (v.find(property) == nullptr) continue;
            if (!validate_in_place(node, v, ctx, ann)) {
                ok = false;
                if (ctx.stop()) return false;
            }
        }
        return ok;
    }

  private:
    std::vector<Rule> rules_;
};

void add_rules(const KeywordInput& in, std::string_view keyword, bool allow_names, bool allow_schemas) {
    const Value& map = *in.get(keyword);
    if (!map.is_object()) in.fail(keyword, "must be an object");
    std::vector<DependentRequiredValidator::Rule> required;
    std::vector<DependentSchemasValidator::Rule> schemas;
    for (const json::Member& m : map.members()) {
        std::string location = in.location(keyword, m.key);
        if (allow_names && m.value.is_array())
            required.emplace_back(m.key, name_list(in, m.value, location));
        else if (allow_schemas)
            schemas.emplace_back(m.key, in.sub(m.value, location));
        else
            throw SchemaError(location, "must be an array of strings");
    }
    if (!required.empty())
        in.add(std::make_unique<DependentRequiredValidator>(in.location(keyword), std::move(required)));
    if (!schemas.empty()) in.add(std::make_unique<DependentSchemasValidator>(in.location(keyword), std::move(schemas)));
}

}  // namespace

void make_dependent_required(const KeywordInput& in) {
    add_rules(in, "dependentRequired", true, false);
}
void make_dependent_schemas(const KeywordInput& in) {
    add_rules(in, "dependentSchemas", false, true);
}
void make_dependencies(const KeywordInput& in) {
    add_rules(in, "dependencies", true, true);
}

}  // namespace slipstream::json::schema::validators
