// if / then / else: `if` is asked silently; the chosen branch reports its errors in place.
#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class ConditionalValidator final : public Validator {
  public:
    ConditionalValidator(std::string location, const Node* condition, const Node* then_branch, const Node* else_branch)
        : Validator(std::move(location), kAnyType), if_(condition), then_(then_branch), else_(else_branch) {}

    bool validate(const Value& v, Context& ctx, Annotations* ann) const override {
        bool condition;
        {
            MuteSink mute(ctx);
            condition = validate_in_place(if_, v, ctx, ann);
        }
        const Node* branch = condition ? then_ : else_;
        return branch == nullptr || validate_in_place(branch, v, ctx, ann);
    }

  private:
    const Node* if_;
    const Node* then_;
    const Node* else_;
};

}  // namespace

void make_if_then_else(const KeywordInput& in) {
    const Node* then_branch = in.get("then") ? in.sub("then") : nullptr;
    const Node* else_branch = in.get("else") ? in.sub("else") : nullptr;
    const Node* condition = in.sub("if");
    // `if` alone still yields annotations for unevaluated*, so it is kept.
    in.add(std::make_unique<ConditionalValidator>(in.location("if"), condition, then_branch, else_branch));
}

}  // namespace slipstream::json::schema::validators
