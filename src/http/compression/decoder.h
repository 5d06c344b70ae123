// Decoder: decompresses a body with a size cap and a ratio cap, so a small bomb cannot exhaust memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/status.h"
#include "http/compression/encoding.h"

namespace slipstream::http::compression {

/// Bounds on what decoding may produce.
struct DecodeLimits {
    /// Most decoded bytes.
    std::size_t max_output = 1024 * 1024;
    /// Most decoded bytes per input byte given so far; 0 switches the ratio check off.
    std::uint32_t max_ratio = 100;
    /// Outputs up to this size are never refused for their ratio (small repetitive bodies are normal).
    std::size_t ratio_grace = 64 * 1024;
};

/// One decompression stream. Output is produced in bounded steps and checked after each, so decoding
/// stops as soon as a limit is passed (a bomb costs at most one step past the limit). Not thread-safe.
///
/// Errors (each with a message fit for a client):
///  - kOutOfRange: the decoded size passed `max_output` ("... exceeds the limit of N bytes") or the ratio
///    passed `max_ratio` ("... expands more than N times ..."); tell them apart with exceeded_ratio();
///  - kInvalidArgument: malformed data, data after the end of the stream, or (at finish) a truncated stream.
class Decoder {
  public:
    /// kInvalidArgument for identity; kResourceExhausted when the library cannot allocate its state.
    static base::Result<std::unique_ptr<Decoder>> create(Encoding encoding, DecodeLimits limits);

    virtual ~Decoder() = default;
    Encoding encoding() const { return encoding_; }

    /// Decodes `input`, appending to `out`. After an error the decoder is unusable.
    [[nodiscard]] base::Status write(std::string_view input, std::string& out);
    /// Checks the stream ended properly (kInvalidArgument "truncated ..." otherwise).
    [[nodiscard]] base::Status finish();

    std::size_t total_in() const { return total_in_; }
    std::size_t total_out() const { return total_out_; }
    /// True when the last error was the ratio cap (not the size cap).
    bool exceeded_ratio() const { return exceeded_ratio_; }

  protected:
    explicit Decoder(Encoding encoding, DecodeLimits limits) : encoding_(encoding), limits_(limits) {}

    struct Step {
        std::size_t produced = 0;
        bool stream_end = false;  // the (last) frame ended; more input would start a new member/frame
    };
    /// Decodes from `in` (advancing it) into `out`. Must make progress when `in` is non-empty or output is
    /// pending inside the library; returns produced == 0 with `in` empty when it needs more input.
    virtual base::Result<Step> step(std::string_view& in, std::span<char> out) = 0;
    /// True when the input so far ends at a stream boundary.
    virtual bool at_end() const = 0;
    /// kInvalidArgument "invalid <token> data: <why>".
    base::Status malformed(std::string_view why) const;

  private:
    base::Status check_limits();

    Encoding encoding_;
    DecodeLimits limits_;
    std::size_t total_in_ = 0;
    std::size_t total_out_ = 0;
    bool failed_ = false;
    bool exceeded_ratio_ = false;
};

/// One-shot: decodes all of `input` and checks it ended. The ratio is measured against the whole input.
base::Result<std::string> decode(Encoding encoding, std::string_view input, const DecodeLimits& limits);

}  // namespace slipstream::http::compression
