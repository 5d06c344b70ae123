// not: the subschema must fail (its annotations are always dropped).
#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class NotValidator final : public Validator {
  public:
    NotValidator(std::string location, const Node* child) : Validator(std::move(location), kAnyType), child_(child) {}

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        bool matched;
        {
            MuteSink mute(ctx);
            matched = child_->validate(v, ctx, nullptr);
        }
        if (!matched) return true;
        ctx.report(location_, "not", "Input should not match the 'not' schema", v);
        return false;
    }

  private:
    const Node* child_;
};

}  // namespace

void make_not(const KeywordInput& in) {
    in.add(std::make_unique<NotValidator>(in.location("not"), in.sub("not")));
}

}  // namespace slipstream::json::schema::validators
