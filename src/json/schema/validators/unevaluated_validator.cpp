// unevaluatedProperties / unevaluatedItems: members/items no other keyword evaluated.
#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class UnevaluatedValidator final : public Validator {
  public:
    UnevaluatedValidator(std::string location, const Node* child, bool properties)
        : Validator(std::move(location), properties ? kObjectType : kArrayType), child_(child) {}

    // The node that owns this keyword always tracks annotations for this instance type, so `ann`
    // is set; this keyword runs last, after every sibling and in-place subschema.
    bool validate(const Value& v, Context& ctx, Annotations* ann) const override {
        if (ann == nullptr || ann->all()) return true;
        bool ok = true;
        const std::uint32_t n = v.size();
        for (std::uint32_t i = 0; i < n; ++i) {
            if (ann->test(i)) continue;
            if (!check(v, i, ctx)) {
                ok = false;
                if (ctx.stop()) return false;
            }
        }
        if (ok) ann->set_all();
        return ok;
    }

  private:
    bool check(const Value& v, std::uint32_t i, Context& ctx) const {
        const bool object = v.is_object();
        const Value& item = object ? v.members()[i].value : v.items()[i];
        if (object) {
            PathGuard guard(ctx, v.members()[i].key);
            return check_item(item, ctx);
        }
        PathGuard guard(ctx, i);
        return check_item(item, ctx);
    }

    bool check_item(const Value& item, Context& ctx) const {
        if (child_->is_false()) {
            ctx.report(location_, "extra_forbidden", "Extra inputs are not permitted", item);
            return false;
        }
        return validate_child(child_, item, ctx);
    }

    const Node* child_;
};

}  // namespace

void make_unevaluated_items(const KeywordInput& in) {
    in.node().track_unevaluated(false, true);
    in.add(std::make_unique<UnevaluatedValidator>(in.location("unevaluatedItems"), in.sub("unevaluatedItems"), false));
}

void make_unevaluated_properties(const KeywordInput& in) {
    in.node().track_unevaluated(true, false);
    in.add(std::make_unique<UnevaluatedValidator>(in.location("unevaluatedProperties"), in.sub("unevaluatedProperties"),
                                                  true));
}

}  // namespace slipstream::json::schema::validators
