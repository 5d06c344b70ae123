// parse_part_head: one multipart part's header block -> PartHead (name, filename, content type, headers).
#pragma once

#include <string_view>

#include "http/multipart/form_error.h"
#include "http/multipart/form_limits.h"
#include "http/multipart/part_head.h"

namespace slipstream::http::multipart {

/// `block`: the header lines, each ending with CRLF, without the empty line that ends the block (so "" for a
/// part with no headers). Folded lines (starting with space or tab) continue the previous value. Fills `out`
/// (cleared first). Errors: kMalformed (a line without ':', a bad name, a bare CR or LF), kTooManyHeaders,
/// kMissingName (no Content-Disposition name). A Windows path in a filename ("C:\dir\a.txt") keeps its last
/// component, as python-multipart does.
FormError parse_part_head(std::string_view block, const FormLimits& limits, PartHead* out);

}  // namespace slipstream::http::multipart
