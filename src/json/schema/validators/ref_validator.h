// RefValidator: $ref and $dynamicRef, linked to their target after the tree is built.
#pragma once

#include <string>

#include "json/schema/node.h"
#include "json/schema/validator.h"

namespace slipstream::json::schema::validators {

class RefValidator final : public detail::Validator {
  public:
    /// `dynamic_keyword`: this is a $dynamicRef; `anchor`: its fragment when it is a plain name.
    RefValidator(std::string location, bool dynamic_keyword, std::string anchor)
        : Validator(std::move(location), detail::kAnyType),
          dynamic_keyword_(dynamic_keyword),
          anchor_(std::move(anchor)) {}

    /// Called once by the compiler. `via_dynamic_anchor`: the static target is a $dynamicAnchor
    /// of that name, which makes a $dynamicRef look through the dynamic scope at run time.
    void link(const detail::Node* target, bool via_dynamic_anchor) {
        target_ = target;
        dynamic_ = dynamic_keyword_ && via_dynamic_anchor && !anchor_.empty();
    }
    const detail::Node* const* target_slot() const { return &target_; }

    bool validate(const json::Value& v, detail::Context& ctx, detail::Annotations* ann) const override {
        const detail::Node* target = target_;
        if (dynamic_) {
            // The outermost resource in the dynamic scope that defines the anchor wins.
            for (const detail::ScopeFrame* s = ctx.scope; s != nullptr; s = s->outer)
                if (const detail::Node* n = s->resource->dynamic_anchor(anchor_)) target = n;
        }
        if (ann == nullptr) return target->validate(v, ctx, nullptr);
        detail::Annotations local(ann->size());  // the target's annotations count only if it passes
        if (!target->validate(v, ctx, &local)) return false;
        ann->merge(local);
        return true;
    }

  private:
    const detail::Node* target_ = nullptr;
    bool dynamic_keyword_;
    bool dynamic_ = false;
    std::string anchor_;
};

}  // namespace slipstream::json::schema::validators
