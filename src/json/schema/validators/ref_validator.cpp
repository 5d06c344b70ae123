// $ref / $dynamicRef factories: resolve against the base URI now, link the target later.
#include "json/schema/validators/ref_validator.h"

#include "json/schema/uri.h"
#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

void add_reference(const KeywordInput& in, std::string_view keyword, bool dynamic) {
    const Value& ref = *in.get(keyword);
    if (!ref.is_string()) in.fail(keyword, "must be a string (a URI reference)");
    std::string uri = detail::resolve_uri(in.info().base, ref.as_string());
    auto [doc, fragment] = detail::split_fragment(uri);
    std::string anchor = !fragment.empty() && fragment[0] != '/' ? std::string(fragment) : std::string();
    auto validator = std::make_unique<RefValidator>(in.location(keyword), dynamic, std::move(anchor));
    if (!dynamic) in.node().mutable_shape().ref = validator->target_slot();
    in.node().mark_applicator();
    in.compiler().add_pending(validator.get(), std::move(uri), in.location(keyword), dynamic);
    in.add(std::move(validator));
}

}  // namespace

void make_ref(const KeywordInput& in) {
    add_reference(in, "$ref", false);
}
void make_dynamic_ref(const KeywordInput& in) {
    add_reference(in, "$dynamicRef", true);
}

}  // namespace slipstream::json::schema::validators
