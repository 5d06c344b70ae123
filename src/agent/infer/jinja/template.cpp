// Template: source -> tokens -> AST once; each render walks the AST with its own Renderer.
#include "agent/infer/jinja/template.h"

#include "agent/infer/jinja/limits.h"
#include "agent/infer/jinja/parser.h"
#include "agent/infer/jinja/renderer.h"

namespace slipstream::agent::infer::jinja {

base::Result<Template> Template::parse(std::string_view source, const LexOptions& options) {
    if (source.size() > kMaxTemplateBytes) {
        return base::Status::out_of_range("template of " + std::to_string(source.size()) +
                                          " bytes is over kMaxTemplateBytes (" + std::to_string(kMaxTemplateBytes) +
                                          ")");
    }
    SLIPSTREAM_ASSIGN_OR_RETURN(std::vector<Token> tokens, tokenize(source, options));
    SLIPSTREAM_ASSIGN_OR_RETURN(ParsedTemplate parsed, jinja::parse(std::move(tokens)));
    return Template(std::make_shared<const ParsedTemplate>(std::move(parsed)));
}

base::Result<std::string> Template::render(const Object& variables) const {
    return Renderer(variables).render(parsed_->nodes);
}

bool Template::uses(std::string_view name) const {
    return parsed_->names.contains(std::string(name));
}

}  // namespace slipstream::agent::infer::jinja
