// libFuzzer target: the response-head parser. A complete head parses the same from its own bytes, every view lies in
// the input, each shorter prefix is incomplete or an error (never complete), and the framing is consistent.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "http/h1/response_parser.h"

namespace {

using namespace slipstream::http::h1;

void require(bool ok) {
    if (!ok) __builtin_trap();
}

bool inside(std::string_view part, std::string_view whole) {
    return part.empty() || (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    // The first byte picks the request kind and the limits; the rest is the response.
    const std::uint8_t knobs = data[0];
    std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
    ResponseLimits limits;
    limits.max_head_bytes = (knobs & 1) != 0 ? 256 : 64 * 1024;
    limits.max_header_count = (knobs & 2) != 0 ? 4 : 128;
    ResponseContext ctx{.head_request = (knobs & 4) != 0};
    Header fields[128];
    ResponseHead head;
    ParseStatus st = parse_response(in, limits, ctx, &head, fields, 128);
    if (!st.is_complete()) return 0;
    require(st.consumed > 0 && st.consumed <= in.size() && st.consumed <= limits.max_head_bytes);
    require(head.status >= 100 && head.status <= 599);
    require(inside(head.reason, in));
    require(head.headers.size() <= limits.max_header_count);
    for (const Header& h : head.headers)
        require(inside(h.name, in) && inside(h.value, in) && !h.name.empty());
    require(head.body != ResponseBody::kUntilClose || !head.keep_alive);
    require(head.body == ResponseBody::kContentLength || head.content_length == 0);
    if (ctx.head_request || head.status == 204 || head.status == 304 || head.interim())
        require(head.body == ResponseBody::kNone);
    // Its own bytes give the same head; shorter prefixes never complete.
    ResponseHead again;
    Header fields2[128];
    ParseStatus st2 = parse_response(in.substr(0, st.consumed), limits, ctx, &again, fields2, 128);
    require(st2.is_complete() && st2.consumed == st.consumed && again.status == head.status &&
            again.headers.size() == head.headers.size() && again.body == head.body &&
            again.content_length == head.content_length && again.keep_alive == head.keep_alive);
    for (std::size_t n : {std::size_t{0}, st.consumed / 2, st.consumed - 1}) {
        ParseStatus p = parse_response(in.substr(0, n), limits, ctx, &again, fields2, 128);
        require(!p.is_complete());
    }
    return 0;
}
