// ChunkedDecoder: incremental, zero-copy decoder of a chunked request body (RFC 9112 §7.1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "http/h1/limits.h"
#include "http/h1/parse_error.h"

namespace slipstream::http::h1 {

/// Decodes one chunked body, fed in pieces of any size. One decoder per request; not thread-safe.
///
///     ChunkedDecoder dec(limits);
///     for (;;) {
///         auto step = dec.decode(input);
///         input.remove_prefix(step.consumed);
///         if (step.event == ChunkedDecoder::Event::kData) { sink(step.data); continue; }
///         if (step.event == ChunkedDecoder::Event::kNeedMore) break;  // read more, call again
///         if (step.event == ChunkedDecoder::Event::kDone) break;      // `input` holds the next request
///         answer(step.error); break;                                 // kError
///     }
///
/// Chunk extensions are checked against RFC 9112 §7.1.1 (BWS ";" BWS token [BWS "=" BWS token /
/// quoted-string]) and discarded; trailer fields are checked like header fields and discarded.
class ChunkedDecoder {
  public:
    enum class Event : std::uint8_t {
        kData,      // `data` is chunk content: a view into the input just given
        kNeedMore,  // every byte given was consumed (the decoder keeps partial state): feed more
        kDone,      // the last chunk and trailers were read; bytes after `consumed` belong to the next request
        kError,     // answer `error` and close; every later call returns the same error
    };

    struct Step {
        Event event = Event::kNeedMore;
        std::size_t consumed = 0;  // bytes of the input used by this step (data included)
        std::string_view data;     // kData only
        ParseError error;          // kError only: 400 (syntax, too-long line), 413 (max_body), 431 (trailers)
    };

    /// Uses limits.max_body, max_chunk_line and max_trailer_bytes.
    explicit ChunkedDecoder(const Limits& limits = Limits{});

    /// Decodes from the start of `in` until one data span, the end of the body, an error, or the end of `in`.
    Step decode(std::string_view in);

    /// Starts a new body with the same limits.
    void reset();

    bool done() const { return state_ == State::kDone; }
    /// Content bytes announced by the chunk sizes read so far.
    std::uint64_t body_bytes() const { return body_bytes_; }

  private:
    enum class State : std::uint8_t {
        kSizeStart,
        kSize,
        kSizeBws,
        kExtNameStart,
        kExtName,
        kExtAfterName,
        kExtValueStart,
        kExtToken,
        kExtQuoted,
        kExtQuotedPair,
        kExtAfterQuote,
        kExtAfterValue,
        kSizeLf,
        kData,
        kDataCr,
        kDataLf,
        kTrailerStart,
        kTrailerName,
        kTrailerValue,
        kTrailerLf,
        kEndLf,
        kDone,
        kError,
    };

    // Consumes one byte of a chunk-size line or trailer section; returns the error, or nullptr.
    const ParseError* step_line(char c);
    const ParseError* step_extension(char c);
    const ParseError* step_trailer(char c);

    std::uint64_t max_body_;
    std::size_t max_chunk_line_;
    std::size_t max_trailer_bytes_;

    State state_ = State::kSizeStart;
    std::uint64_t chunk_size_ = 0;       // size of the chunk being read
    std::uint64_t chunk_remaining_ = 0;  // its bytes not yet emitted
    std::uint64_t body_bytes_ = 0;
    std::size_t line_bytes_ = 0;     // bytes of the current chunk-size line
    std::size_t trailer_bytes_ = 0;  // bytes of the trailer section
    ParseError error_;
};

}  // namespace slipstream::http::h1
