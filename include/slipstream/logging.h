// Process-wide log settings for the engine's own messages (start, drain, errors).
#pragma once

#include <string_view>

namespace slipstream {

/// Sets the least severe level logged ("debug", "info", "warn"/"warning", "error", "off") and the line shape
/// ("auto": coloured on a terminal, plain text otherwise; "text"; "color"; "json": one object per line with
/// ts, level, msg). Returns false, changing nothing, when a name is unknown. Call at start-up, before serving.
bool set_log_options(std::string_view level, std::string_view format);

}  // namespace slipstream
