// StopMatcher: streaming stop-sequence detection over detokenized text, holding back what may still become a stop.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace slipstream::agent::infer {

/// Finds a request's stop strings in the text stream as pieces arrive. Emits only text that can no longer begin a
/// stop string and that ends on a UTF-8 character boundary; never emits the stop string itself (OpenAI: the output
/// excludes it) nor anything after it. Not thread-safe; one per sequence.
class StopMatcher {
  public:
    static constexpr size_t kMaxStops = 4;        // OpenAI's limit
    static constexpr size_t kMaxStopBytes = 256;  // per stop string

    struct Output {
        std::string emit;      // text now safe to send (possibly empty)
        bool stopped = false;  // a stop string was found: emit ends right before it; later feeds emit nothing
    };

    /// Invalid argument when there are more than kMaxStops stop strings or one is empty or over kMaxStopBytes.
    /// No stop strings is valid: the matcher then only keeps UTF-8 characters whole.
    static base::Result<StopMatcher> create(std::vector<std::string> stops);

    /// Appends a piece of detokenized text (any bytes; a piece may split a character or a stop string).
    Output feed(std::string_view piece);
    /// End of generation without a stop: returns the held text, an incomplete trailing UTF-8 sequence as U+FFFD.
    /// Empty after a stop. Leaves the matcher empty.
    std::string finish();

    bool stopped() const { return stopped_; }
    /// Index into the create() list of the stop string that ended the text; -1 before a stop.
    int matched_stop() const { return matched_; }

  private:
    explicit StopMatcher(std::vector<std::string> stops) : stops_(std::move(stops)) {}
    /// Bytes at the end of held_ that are the longest proper prefix of some stop string.
    size_t partial_stop_length() const;

    std::vector<std::string> stops_;
    std::string held_;  // text received but not yet emitted
    bool stopped_ = false;
    int matched_ = -1;
};

}  // namespace slipstream::agent::infer
