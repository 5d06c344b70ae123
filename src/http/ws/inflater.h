// Inflater: permessage-deflate decompression with a hard cap on the output (against decompression bombs).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace slipstream::http::ws {

/// Raw DEFLATE with a 32 KiB window (reads streams made with any smaller window). Feed a message's
/// payload in pieces, then end_message(). Output never grows past the cap: the inflate stops as soon as
/// it would, whatever the compressed size, so a tiny bomb costs at most `max_out` + 64 KiB of memory.
/// Loop-thread object; not thread-safe.
class Inflater {
  public:
    Inflater();
    ~Inflater();
    Inflater(const Inflater&) = delete;
    Inflater& operator=(const Inflater&) = delete;

    /// Appends the bytes inflated from `in` to `out`. Errors: out_of_range when `out` would pass
    /// `max_out` bytes; invalid_argument for corrupt data.
    [[nodiscard]] base::Status feed(std::string_view in, std::string& out, std::size_t max_out);
    /// Feeds the 00 00 FF FF tail the sender stripped (RFC 7692 §7.2.2). With `reset`, the window is
    /// dropped afterwards (the client's no_context_takeover).
    [[nodiscard]] base::Status end_message(std::string& out, std::size_t max_out, bool reset);

  private:
    struct State;
    std::unique_ptr<State> state_;
};

/// Raw DEFLATE for outgoing messages: each message ends with a sync flush whose 00 00 FF FF is stripped.
class Deflater {
  public:
    /// `window_bits` 9-15; `reset_each_message` for server_no_context_takeover. Throws std::bad_alloc
    /// when zlib cannot allocate its state.
    Deflater(int window_bits, bool reset_each_message);
    ~Deflater();
    Deflater(const Deflater&) = delete;
    Deflater& operator=(const Deflater&) = delete;

    /// Appends the compressed form of a whole message to `out`. Errors: internal when zlib fails.
    [[nodiscard]] base::Status compress(std::string_view in, std::string& out);

  private:
    struct State;
    std::unique_ptr<State> state_;
    bool reset_each_message_;
};

}  // namespace slipstream::http::ws
