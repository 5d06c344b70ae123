// propertyNames: every member name, as a string instance, against a subschema.
#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class PropertyNamesValidator final : public Validator {
  public:
    PropertyNamesValidator(std::string location, const Node* names)
        : Validator(std::move(location), kObjectType), names_(names) {}

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        bool ok = true;
        for (const json::Member& m : v.members()) {
            PathGuard guard(ctx, m.key);
            if (!validate_child(names_, Value::string(m.key), ctx)) {
                ok = false;
                if (ctx.stop()) return false;
            }
        }
        return ok;
    }

  private:
    const Node* names_;
};

}  // namespace

void make_property_names(const KeywordInput& in) {
    in.add(std::make_unique<PropertyNamesValidator>(in.location("propertyNames"), in.sub("propertyNames")));
}

}  // namespace slipstream::json::schema::validators
