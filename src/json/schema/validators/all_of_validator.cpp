// allOf: every subschema must pass; errors of each are reported in place.
#include <vector>

#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class AllOfValidator final : public Validator {
  public:
    AllOfValidator(std::string location, std::vector<const Node*> children)
        : Validator(std::move(location), kAnyType), children_(std::move(children)) {}

    bool validate(const Value& v, Context& ctx, Annotations* ann) const override {
        bool ok = true;
        for (const Node* child : children_) {
            if (!validate_in_place(child, v, ctx, ann)) {
                ok = false;
                if (ctx.stop()) return false;
            }
        }
        return ok;
    }

  private:
    std::vector<const Node*> children_;
};

}  // namespace

std::vector<const Node*> compile_schema_array(const KeywordInput& in, std::string_view keyword) {
    const Value& list = in.schema_array(keyword);
    std::vector<const Node*> nodes;
    for (std::uint32_t i = 0; i < list.size(); ++i)
        nodes.push_back(in.sub(list.items()[i], in.location(keyword) + "/" + std::to_string(i)));
    return nodes;
}

void make_all_of(const KeywordInput& in) {
    auto children = compile_schema_array(in, "allOf");
    in.node().mutable_shape().all_of = children;
    in.add(std::make_unique<AllOfValidator>(in.location("allOf"), std::move(children)));
}

}  // namespace slipstream::json::schema::validators
