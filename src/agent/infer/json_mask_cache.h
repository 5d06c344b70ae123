// JsonMaskCache: whole token masks per checker state key, shared by the JsonConstraints of one schema and vocabulary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "agent/structured/compiled_schema.h"

namespace slipstream::agent::infer {

class TokenBytes;

/// A mask computed once for a state (PrefixChecker::state_key plus the constraint's own state), kept as bits: a
/// later state with the same key costs a lookup and a copy. `finals`: the tokens that complete the document from
/// that state, whose verdict reads the whole text (CompiledSchema::accepts) and so is judged again each time;
/// their bits are 0 here.
/// The same cache also keeps, under keys of their own, the verdicts on every distinct suffix after a closing quote
/// for a container state (`suffix_verdicts`, JsonConstraint's closers; no bits then), which a string closing in a
/// place seen before reuses whatever its length.
/// A mask with few tokens allowed (a listed key's or enum's) keeps them as a sorted list instead (`sparse`, `bits`
/// empty): a few hundred bytes instead of 16 KiB at 128k tokens.
struct CachedMask {
    std::vector<uint64_t> bits;
    bool sparse = false;
    std::vector<int32_t> allowed;  // sparse: the tokens allowed, ascending
    std::size_t width = 0;         // tokens (the logits' width)
    std::vector<int32_t> finals;
    std::vector<uint8_t> suffix_verdicts;
};

/// The most recently used masks, up to a memory budget (keys, bits and lists counted), for one schema and one
/// vocabulary (a JsonConstraint given a cache for another ignores it), and apart from them the masks precomputed
/// for the schema (JsonConstraint::precompute), pinned: never dropped, up to a budget of their own. Thread-safe:
/// constraints on different threads may share it; entries are immutable once stored.
class JsonMaskCache {
  public:
    /// 8 MiB: about 500 masks of a 128k vocabulary.
    static constexpr std::size_t kDefaultMaxBytes = std::size_t{8} << 20;

    /// 16 MiB of pinned masks: about 1,000 dense masks of a 128k vocabulary (the sparse ones of listed keys take
    /// a few hundred bytes each).
    static constexpr std::size_t kDefaultMaxPinnedBytes = std::size_t{16} << 20;

    JsonMaskCache(std::shared_ptr<const structured::CompiledSchema> schema, std::shared_ptr<const TokenBytes> tokens,
                  std::size_t max_bytes = kDefaultMaxBytes, std::size_t max_pinned_bytes = kDefaultMaxPinnedBytes);

    /// The mask pinned or stored under `key` (a stored one is now the most recent), or null.
    std::shared_ptr<const CachedMask> find(std::string_view key);
    /// Stores `mask` under `key` (replacing one there), dropping the least recently used past the budget; a
    /// mask larger than the whole budget is not kept.
    void insert(std::string key, std::shared_ptr<const CachedMask> mask);
    /// Keeps `mask` under `key` for the cache's lifetime (a stored one under that key is dropped; one pinned
    /// already stays); false, keeping nothing, when the pinned budget cannot take it.
    bool pin(std::string key, std::shared_ptr<const CachedMask> mask);

    bool serves(const structured::CompiledSchema* schema, const TokenBytes* tokens) const {
        return schema == schema_.get() && tokens == tokens_.get();
    }
    std::size_t size() const;
    std::size_t bytes() const;
    std::size_t pinned() const;
    std::size_t pinned_bytes() const;
    std::uint64_t hits() const;
    std::uint64_t misses() const;

  private:
    struct Entry {
        std::string key;
        std::shared_ptr<const CachedMask> mask;
        std::size_t bytes = 0;
    };
    static std::size_t cost(const std::string& key, const CachedMask& mask);

    const std::shared_ptr<const structured::CompiledSchema> schema_;  // held: the keys hold its nodes' addresses
    const std::shared_ptr<const TokenBytes> tokens_;
    const std::size_t max_bytes_;
    mutable std::mutex mu_;
    std::list<Entry> lru_;                                                    // most recent first
    std::unordered_map<std::string_view, std::list<Entry>::iterator> index_;  // keys view lru_'s strings
    std::size_t bytes_ = 0;
    const std::size_t max_pinned_bytes_;
    struct KeyHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view k) const { return std::hash<std::string_view>{}(k); }
    };
    std::unordered_map<std::string, std::shared_ptr<const CachedMask>, KeyHash, std::equal_to<>> pinned_;
    std::size_t pinned_bytes_ = 0;
    std::uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace slipstream::agent::infer
