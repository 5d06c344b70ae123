// set_log_options: the public API over base's log level and line format.
#include "base/log.h"
#include "base/log_line.h"
#include "slipstream/logging.h"

namespace slipstream {

bool set_log_options(std::string_view level, std::string_view format) {
    base::LogLevel parsed_level;
    base::LogFormat parsed_format;
    if (!base::parse_log_level(level, &parsed_level) || !base::parse_log_format(format, &parsed_format)) return false;
    base::set_log_level(parsed_level);
    base::set_log_format(parsed_format);
    return true;
}

}  // namespace slipstream
