// TokenConstraint: what a sequence may emit next (grammar-constrained decoding), and sampling under it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "agent/infer/sampler.h"

namespace slipstream::agent::infer {

/// Which tokens keep a sequence's output a prefix of an acceptable one (e.g. a JSON document valid under a
/// schema). The scheduler asks it before emitting a token of its sequence and tells it each emitted token; stop
/// tokens are the scheduler's own (emitted only once complete()). One per sequence, used by the scheduler's step
/// thread only; what it shares with others (token tables, compiled schemas) must be immutable.
class TokenConstraint {
  public:
    virtual ~TokenConstraint() = default;
    /// Whether emitting `token` (not a stop token) keeps the output acceptable. Ids outside the vocabulary: false.
    virtual bool allows(int32_t token) = 0;
    /// allowed[t] = allows(t) for every t < allowed.size() (the logits' width); the default asks allows() per
    /// token. Implementations prune (a refused prefix refuses every token that starts with it).
    virtual void fill_allowed(std::span<uint8_t> allowed);
    /// The same mask as bits, the layout of xgrammar's and vLLM's int32 bitmask: bit t % 32 of bits[t / 32] is
    /// allows(t), for every t < tokens; the rest of the last word is 0. bits.size() must be (tokens + 31) / 32. The
    /// default packs fill_allowed()'s bytes.
    virtual void fill_allowed_bits(std::span<uint32_t> bits, std::size_t tokens);
    /// Records an emitted token (one allows() said yes to).
    virtual void accept(int32_t token) = 0;
    /// Whether the output so far is a whole acceptable one (then a stop token may end it).
    virtual bool complete() = 0;
    /// An independent constraint in the same state (for the forks of a request); null when it cannot be copied.
    virtual std::unique_ptr<TokenConstraint> clone() const { return nullptr; }
};

/// What sample_constrained() did, for counters.
struct ConstrainedDraw {
    std::optional<SampledToken> token;  // empty: nothing is allowed (the output is complete or at a dead end)
    int32_t refused = 0;                // samples refused before the one kept
    bool masked = false;                // the full mask was computed
};

/// Samples as `sampler` would, but only a token `constraint` allows, or a stop token once it is complete (and
/// `params.ignore_eos` is off): first plain draws, each refused token's logit set to -inf before the next
/// (`tries` of them), then one draw from the logits with every refused token masked (fill_allowed_bits).
/// `scratch` and `allowed` are reused buffers. Does not call accept() on either.
ConstrainedDraw sample_constrained(Sampler& sampler, TokenConstraint& constraint, std::span<const float> logits,
                                   int tries, std::vector<float>& scratch, std::vector<uint32_t>& allowed);

}  // namespace slipstream::agent::infer
