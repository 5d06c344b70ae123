// Fuzz target: any bytes as a YAML spec document; what converts must be one JSON value that parses again (errors
// are fine, crashes, hangs and unbounded memory are not).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "agent/decide/yaml_json.h"
#include "base/arena.h"
#include "json/parse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 64 * 1024) return 0;  // the spec limit's order of size
    auto json = slipstream::agent::decide::yaml_to_json(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!json.is_ok()) return 0;
    slipstream::base::Arena arena;
    if (!slipstream::json::parse(*json, arena).is_ok()) std::abort();  // the converter wrote invalid JSON
    return 0;
}
