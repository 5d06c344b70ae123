// Assignment: one option's raw text from one source, kept until the sources are merged.
#pragma once

#include <string>

#include "app/option.h"

namespace slipstream::app {

/// "--port 9000", "SLIPSTREAM_PORT=9000" or "port = 9000" before parsing. `where` names the source
/// for error messages: "--port", "SLIPSTREAM_PORT", "app.conf:3: port".
struct Assignment {
    const Option* option = nullptr;  // points into the Registry, which outlives the assignment
    std::string text;
    std::string where;
};

}  // namespace slipstream::app
