// ClientStreamIds: what a session knows of client stream ids no longer (or never) in its table.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace slipstream::http::h2::detail {

/// RFC 9113 §5.1, §5.1.1: an id above every one the client opened is idle; ids the client jumped over are
/// closed, never used; the others were used and are closed. Streams this server reset recently are
/// remembered, because frames the client sent before it saw the RST_STREAM are to be ignored (§5.1); so are
/// streams the client reset: a HEADERS on one is a stream error, on a stream closed by END_STREAM both ways
/// a connection error (§5.1 "closed").
class ClientStreamIds {
  public:
    enum class Kind : std::uint8_t { kIdle, kSkipped, kResetByUs, kResetByClient, kClosed };

    /// The highest id the client opened (0 before any).
    std::int32_t last() const { return last_; }
    /// `id` names no stream the client could have opened: a server (even) id, as we push none, or an idle one.
    bool never_opened(std::int32_t id) const { return id % 2 == 0 || id > last_; }
    /// Records a new client stream `id` (above last()), and the range it skipped.
    void open(std::int32_t id);
    /// We reset `id` (RST_STREAM, or END_STREAM before the request ended).
    void note_reset(std::int32_t id);
    /// The client reset `id`.
    void note_client_reset(std::int32_t id);
    /// What `id`, a client (odd) id not in the stream table, is.
    Kind classify(std::int32_t id) const;

  private:
    static constexpr std::size_t kSkippedRanges = 64;
    static constexpr std::size_t kResets = 128;
    std::int32_t last_ = 0;
    std::array<std::array<std::int32_t, 2>, kSkippedRanges> skipped_{};  // ring of [first, last] ranges
    std::size_t skipped_next_ = 0;
    std::array<std::int32_t, kResets> resets_{};  // rings of ids
    std::size_t resets_next_ = 0;
    std::array<std::int32_t, kResets> client_resets_{};
    std::size_t client_resets_next_ = 0;
};

}  // namespace slipstream::http::h2::detail
