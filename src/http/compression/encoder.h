// Encoder: compresses a body in one shot or as a stream of chunks, each flushed so the client can decode it.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/status.h"
#include "http/compression/encoding.h"

namespace slipstream::http::compression {

/// Quality ranges: gzip and deflate 1..9, br 0..11, zstd 1..19.
struct LevelRange {
    int min;
    int max;
    int fallback;  // a good default for dynamic responses
};
LevelRange level_range(Encoding encoding);

/// One compression stream. Output is appended to the caller's string. Not thread-safe; reusable through
/// reset() (the library state is kept, so a per-thread encoder costs no allocation per response).
/// Errors: kInvalidArgument for a write after finish(); kInternal when the library fails (out of memory).
class Encoder {
  public:
    /// kInvalidArgument for identity or a level outside level_range(); kResourceExhausted when the
    /// library cannot allocate its state.
    static base::Result<std::unique_ptr<Encoder>> create(Encoding encoding, int level);

    virtual ~Encoder() = default;
    Encoding encoding() const { return encoding_; }

    /// Compresses `input`; output the library has ready is appended to `out` (it may buffer).
    [[nodiscard]] virtual base::Status write(std::string_view input, std::string& out) = 0;
    /// Appends everything written so far in a form the client can decode now (a sync flush).
    [[nodiscard]] virtual base::Status flush(std::string& out) = 0;
    /// Ends the stream: appends the remaining output and the trailer. Only reset() may follow.
    [[nodiscard]] virtual base::Status finish(std::string& out) = 0;
    /// Starts a new stream with the same settings.
    [[nodiscard]] virtual base::Status reset() = 0;

    /// reset() + the whole of `input` + finish(), into `out` (appended). The fast path for complete bodies.
    [[nodiscard]] virtual base::Status compress(std::string_view input, std::string& out);
    /// write() + flush(): one chunk of a streamed body, decodable on arrival.
    [[nodiscard]] base::Status write_chunk(std::string_view input, std::string& out);

  protected:
    explicit Encoder(Encoding encoding) : encoding_(encoding) {}

  private:
    Encoding encoding_;
};

/// One-shot helper (allocates an encoder per call; hot paths keep an Encoder and call compress()).
base::Result<std::string> compress(Encoding encoding, std::string_view input, int level);

}  // namespace slipstream::http::compression
