// libFuzzer target: StreamValidator fed the input in pieces must give the whole-document validator's verdict (an
// early rejection of a document the schema accepts would abort), and never crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "agent/structured/stream_validator.h"
#include "base/arena.h"
#include "json/parse.h"

namespace {

// Every early check (patterns too) and a $ref, an anyOf and numeric bounds left to the end.
constexpr std::string_view kSchema = R"({"type":"object","required":["name"],"additionalProperties":false,
  "properties":{"name":{"type":"string","maxLength":8,"minLength":1},"kind":{"enum":["cat","dog",1,null]},
  "tags":{"type":"array","maxItems":3,"minItems":1,"items":{"type":"integer","minimum":0}},
  "pos":{"type":"array","prefixItems":[{"type":"number"},{"type":"string"}],"items":false},
  "child":{"$ref":"#/$defs/node"},"any":{"anyOf":[{"type":"string"},{"type":"boolean"}]},
  "code":{"type":"string","pattern":"^[a-z]{2}-\\d+$","maxLength":6},"word":{"pattern":"x|y\\.z"}},
  "$defs":{"node":{"type":"object","maxProperties":2,"properties":{"v":{"const":"x"}}}}})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using slipstream::agent::structured::StreamState;
    using slipstream::agent::structured::StreamValidator;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    slipstream::base::Arena arena;
    auto doc = slipstream::json::parse(text, arena);
    auto v = StreamValidator::create(kSchema).value();
    const std::size_t piece = 1 + size % 7;
    StreamState state = StreamState::kPartial;
    for (std::size_t at = 0; at < size && state != StreamState::kInvalid; at += piece)
        state = v->feed(text.substr(at, piece));
    state = v->finish();
    if (!doc.is_ok()) {
        if (state != StreamState::kInvalid) std::abort();  // not JSON: never complete
        return 0;
    }
    auto whole = StreamValidator::create(kSchema).value();
    whole->feed(text);
    const bool whole_valid = whole->finish() == StreamState::kComplete;
    if ((state == StreamState::kComplete) != whole_valid) std::abort();
    return 0;
}
