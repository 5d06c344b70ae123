// libFuzzer target: the head parser (with a prefix property), the chunked decoder (whole vs split feeding),
// path and query decoding. Any broken invariant traps.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "http/h1/chunked_decoder.h"
#include "http/h1/decode.h"
#include "http/h1/parser.h"

namespace {

using namespace slipstream::http::h1;

void require(bool ok) {
    if (!ok) __builtin_trap();
}

bool inside(std::string_view part, std::string_view whole) {
    return part.empty() || (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

struct BodyRun {
    ChunkedDecoder::Event last = ChunkedDecoder::Event::kNeedMore;
    std::string data;
    std::size_t consumed = 0;
    ParseError error;
};

// Decodes `body` fed as [0, split) then [split, end), checking each data span lies in the bytes given.
BodyRun decode_body(std::string_view body, std::size_t split, const Limits& limits) {
    ChunkedDecoder dec(limits);
    BodyRun run;
    std::string pending;
    for (std::string_view piece : {body.substr(0, split), body.substr(split)}) {
        pending.append(piece);
        std::string_view in = pending;
        for (;;) {
            const ChunkedDecoder::Step step = dec.decode(in);
            require(step.consumed <= in.size());
            if (step.event == ChunkedDecoder::Event::kData) {
                require(!step.data.empty() && inside(step.data, in));
                run.data.append(step.data);
            }
            in.remove_prefix(step.consumed);
            run.consumed += step.consumed;
            run.last = step.event;
            if (step.event != ChunkedDecoder::Event::kData) break;
        }
        if (run.last == ChunkedDecoder::Event::kError) {
            run.error = dec.decode("x").error;  // errors are sticky
            return run;
        }
        if (run.last == ChunkedDecoder::Event::kDone) return run;
        require(in.empty());
        pending.clear();
    }
    return run;
}

void check_body(std::string_view body, std::size_t split, const Limits& limits) {
    const BodyRun whole = decode_body(body, body.size(), limits);
    const BodyRun parts = decode_body(body, split, limits);
    require(whole.last == parts.last && whole.data == parts.data && whole.consumed == parts.consumed);
    require(whole.error == parts.error);
    require(whole.data.size() <= limits.max_body);
}

void check_head(std::string_view in, const Limits& limits) {
    RequestHead head;
    std::array<Header, 32> headers;
    const ParseStatus st = parse_request(in, limits, &head, headers.data(), headers.size());
    if (st.is_error()) {
        require(st.error.http_status >= 400 && !st.error.reason.empty());
        return;
    }
    if (st.is_incomplete()) return;
    require(st.consumed > 0 && st.consumed <= in.size());
    const std::string_view bytes = in.substr(0, st.consumed);
    require(inside(head.method, bytes) && inside(head.target, bytes) && inside(head.query, bytes));
    require(inside(head.host, bytes) && (head.path == "/" || inside(head.path, bytes)));
    require(head.headers.size() <= headers.size());
    for (const Header& h : head.headers)
        require(inside(h.name, bytes) && inside(h.value, bytes) && !h.name.empty());
    require(head.body_kind != BodyKind::kContentLength || head.content_length <= limits.max_body);

    // Every strict prefix of a complete head is a valid prefix.
    RequestHead again;
    require(
        parse_request(in.substr(0, st.consumed - 1), limits, &again, headers.data(), headers.size()).is_incomplete());

    std::string scratch(in.size(), '\0');
    const PathDecodeResult path = decode_path(head.path, scratch);
    require(path.status != DecodeStatus::kOk || path.path.size() <= head.path.size());
    std::array<QueryParam, 16> params;
    const QueryParseResult query = parse_query(head.query, scratch, params);
    require(query.count <= params.size());

    if (head.body_kind == BodyKind::kChunked) {
        const std::string_view body = in.substr(st.consumed);
        check_body(body, body.empty() ? 0 : static_cast<unsigned char>(body[0]) % (body.size() + 1), limits);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view in(reinterpret_cast<const char*>(data), size);
    Limits limits;
    check_head(in, limits);
    // Tight limits reach the limit paths with small inputs.
    Limits tight;
    tight.max_request_line = 32;
    tight.max_header_bytes = 64;
    tight.max_header_count = 4;
    tight.max_body = 64;
    tight.max_chunk_line = 16;
    tight.max_trailer_bytes = 32;
    check_head(in, tight);
    // The input as a chunked body on its own.
    check_body(in, size / 2, limits);
    check_body(in, size / 3, tight);
    return 0;
}
