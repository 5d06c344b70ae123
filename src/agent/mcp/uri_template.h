// UriTemplate: an RFC 6570 level-1 template (`users://{id}/profile`) matched against concrete URIs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace slipstream::mcp::detail {

/// A compiled level-1 template: literal text and `{name}` variables, no two variables adjacent (the match would
/// be ambiguous). A variable matches one or more characters other than '/', percent-decoded.
class UriTemplate {
  public:
    /// invalid_argument naming the problem: unbalanced braces, an operator or modifier (levels 2-4), a bad or
    /// repeated name, adjacent variables.
    static base::Result<UriTemplate> compile(std::string_view text);

    /// The variables of `uri` in template order, or nullopt when it does not match.
    std::optional<std::vector<std::pair<std::string, std::string>>> match(std::string_view uri) const;

    const std::vector<std::string>& variables() const { return names_; }

  private:
    struct Part {
        std::string literal;  // empty for a variable
        int variable = -1;    // index into names_, or -1 for a literal
    };
    std::vector<Part> parts_;
    std::vector<std::string> names_;
};

}  // namespace slipstream::mcp::detail
