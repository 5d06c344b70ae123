// JsonConstraint: a TokenConstraint that keeps a sequence's output a prefix of a JSON document valid under a schema.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "agent/infer/json_mask_cache.h"
#include "agent/infer/token_bytes.h"
#include "agent/infer/token_constraint.h"
#include "agent/structured/compiled_schema.h"
#include "agent/structured/prefix_checker.h"

namespace slipstream::agent::infer {

/// Allows a token when the output with its bytes is still a prefix of a document the schema may accept (the
/// early checks of agent/structured's PrefixChecker, tried on a copy) and, when those bytes complete the
/// document, the whole document is valid (CompiledSchema::accepts). Beyond JSON it refuses: anything after the
/// document (not even whitespace), numbers past kMaxNumberBytes or with a longer exponent (a number that
/// overflows is refused only once it ends), a fraction or an exponent where only an integer may come (1.5e1 is
/// one, but 1.5e-9 could not end), more than kMaxLayoutWhitespace whitespace bytes in a row between tokens of
/// the document (a model cannot pad forever), a byte-order mark, tokens without bytes, and escapes and non-ASCII
/// bytes in keys and strings whose texts the schema lists (a character is checked only once whole: `\u12` could
/// leave no way on; so listed texts with non-ASCII characters cannot be written). The schema's
/// keywords that only a whole value settles (numeric bounds, patterns, `not`, ...) can leave no way to finish:
/// then nothing is allowed and the scheduler ends the request.
///
/// fill_allowed() gives exactly what allows() gives for every token, faster (json_constraint_mask.cpp; the design
/// and its costs are in README.md): inside a string whose schema counts only its length, the vocabulary's
/// StringTokenClasses settle every token that stays in the string by its character count and the tokens that close
/// it by their suffix (judged once per container state); in a listed key or enum string only the tokens along the
/// listed texts are checked; elsewhere the tokens are walked in byte order with one checker per shared prefix, a
/// byte the syntax refuses skipping every token under it without a check. Each state's mask is kept in a
/// JsonMaskCache (shared per schema by the engine) under PrefixChecker::state_key, so a state seen before costs a
/// lookup and a copy; tokens that complete the document are judged again each time.
class JsonConstraint final : public TokenConstraint {
  public:
    static constexpr size_t kMaxLayoutWhitespace = 20;
    /// Numbers are written in at most this many bytes, with at most two exponent digits (so none overflows).
    static constexpr size_t kMaxNumberBytes = 32;

    /// `cache`: the masks per state shared with the other constraints of this schema and vocabulary (clones share
    /// it too); null, or one made for another schema or vocabulary: a cache of this constraint's own.
    JsonConstraint(std::shared_ptr<const TokenBytes> tokens, std::shared_ptr<const structured::CompiledSchema> schema,
                   std::shared_ptr<JsonMaskCache> cache = nullptr);

    bool allows(int32_t token) override;
    void fill_allowed(std::span<uint8_t> allowed) override;
    /// From the cache, a copy of the state's bits (~0.5 us at 128k tokens, where the bytes take ~4 us to write).
    void fill_allowed_bits(std::span<uint32_t> bits, std::size_t tokens) override;
    void accept(int32_t token) override;
    bool complete() override;
    std::unique_ptr<TokenConstraint> clone() const override { return std::make_unique<JsonConstraint>(*this); }

    /// What precompute() explores.
    struct Precompute {
        std::size_t max_masks = 1024;  // masks computed at most
        std::size_t width = 0;         // the logits' width the masks are for (0: the vocabulary's size)
        std::size_t layout_run = 1;    // whitespace bytes in a row explored between the document's tokens
        std::size_t number_bytes = 1;  // bytes explored of a number whose value is checked (its end always)
        unsigned max_detours = 0;      // keys written out of the schema's order along one path
        std::vector<std::string>* computed = nullptr;  // where given: the text of each state whose mask it computed
    };
    struct PrecomputeStats {
        std::size_t masks = 0;    // computed (or derived) and pinned
        std::size_t derived = 0;  // of which derived from the state before a whitespace byte between tokens
        std::size_t known = 0;    // states whose mask the cache already held
        std::size_t left = 0;     // states reached but not computed (max_masks or the pinned budget stopped it)
        bool full = false;        // the cache's pinned budget stopped it
    };
    /// Computes the masks of the states reachable from this one (in practice: the start of the document) and pins
    /// them in the mask cache, so that a decoder reaching them later finds them there: a breadth-first search
    /// over single bytes (each byte class once: one plain character inside a free string, the bounds of a UTF-8
    /// continuation), keeping keys in the schema's order first (a model writes them so; other orders come after,
    /// up to `max_detours`), bounded by `options` and the cache's pinned budget. What it leaves out (long
    /// whitespace runs, numbers' digits where a schema checks their value, escapes' hex digits, keys outside
    /// the properties listed, strings whose text the key keeps) is computed when first reached, as before.
    /// Leaves this constraint as it was.
    PrecomputeStats precompute(const Precompute& options);

    /// The accepted output so far.
    const std::string& text() const { return text_; }
    const std::shared_ptr<JsonMaskCache>& mask_cache() const { return cache_; }

  private:
    struct Level {
        size_t length = 0;  // of the shared prefix this level's checker consumed
        bool refused = false;
        std::optional<structured::PrefixChecker::StringRoom> room;  // the checker's free_string()
        size_t checker = 0;  // its checker in levels_ (a parent's, when the prefix added only layout whitespace)
        size_t pending = 0;  // bytes at the prefix's end that checker has not consumed (whitespace between tokens,
                             // or digits of the number it is reading: neither changes what it checks)
    };

    // fill_allowed() without the cache: every entry of `allowed` written.
    void compute_mask(std::span<uint8_t> allowed);
    // The cached mask of the current state for `width` tokens (key_ set to its key), or null.
    std::shared_ptr<const CachedMask> cached(size_t width);
    // compute_mask() into `allowed`, stored under key_ (returned) unless a verdict completed the document for a
    // token it cannot name (null).
    std::shared_ptr<const CachedMask> compute_and_store(std::span<uint8_t> allowed);
    // The cache's key for the current state (committed_'s state_key and what plausible() reads).
    void state_key(std::string& out) const { key_of(committed_, layout_run_, out); }
    // The cache's key for a state: `at` after `layout_run` whitespace bytes between tokens.
    void key_of(const structured::PrefixChecker& at, size_t layout_run, std::string& out) const;
    // precompute(): the mask after one more whitespace byte between tokens (`run` bytes then), from `before`.
    std::shared_ptr<const CachedMask> with_longer_run(const CachedMask& before, size_t run,
                                                      const std::vector<int32_t>& long_spaces) const;
    std::vector<int32_t> long_space_tokens(size_t room) const;
    // The masks' cache: pinned while precompute() runs (pin_full_ once the budget refuses one), else stored.
    void store(std::string key, std::shared_ptr<const CachedMask> mask);
    // verdict() once the document completes: the whole document's verdict, per distinct content.
    bool final_verdict(std::string_view bytes);
    static bool needs_bytewise(std::string_view bytes);
    static bool number_fits(std::string_view number, bool integer);
    // A number's prefix inside a number `after` is reading: number_fits() and, for an integer with bounds, some
    // integer in range (of at most kMaxNumberBytes) still starts with it.
    static bool partial_ok(const structured::PrefixChecker& after, std::string_view number);
    static bool integer_reachable(std::string_view number,
                                  const std::vector<structured::SchemaChecker::IntegerRange>& ranges);
    // Whether `digits` may follow the number text `number` (no digit after a leading zero).
    static bool digits_continue(std::string_view number, std::string_view digits);
    // judge() for a token whose bytes from `fed` on are digits continuing the number `at` is reading.
    bool judge_digits(const structured::PrefixChecker& at, std::string_view digits);
    // fill_allowed() inside a string whose checks count only its length.
    void fill_free_string(std::span<uint8_t> allowed, const structured::PrefixChecker::StringRoom& room);
    // compute_mask() inside a string one pattern checks (PrefixChecker::pattern_string): tokens of whole characters
    // without escapes or quotes by the pattern's states after them (a lazy DFA over ASCII), the rest by allows().
    void fill_pattern_string(std::span<uint8_t> allowed, const structured::PrefixChecker::PatternString& at);
    // fill_free_string(): each distinct closer suffix's verdict (kSuffix*) after the quote in levels_[1].
    static constexpr uint8_t kSuffixNo = 0, kSuffixYes = 1, kSuffixEach = 2;  // kSuffixEach: completes; per token
    void judge_suffixes(std::vector<uint8_t>& out, size_t root);
    // fill_free_string() and fill_tails(): closers' verdicts by their suffixes, from `from` inside a free string.
    void fill_closers(std::span<uint8_t> allowed, const structured::PrefixChecker& from,
                      const structured::PrefixChecker::StringRoom& room,
                      const std::vector<StringTokenClasses::Closer>& closers, size_t base);
    // walk() and judge_suffixes(): a level for bytes[0, length) on top of stack_.
    void push_level(std::string_view bytes, size_t length);
    // fill_allowed() inside a key or string whose texts are listed: the tokens along the listed continuations.
    void fill_listed(std::span<uint8_t> allowed, const std::vector<std::string_view>& continuations);
    // fill_allowed() elsewhere: the tokens in byte order.
    void walk(std::span<uint8_t> allowed);
    // walk() and fill_listed(): the tokens order()[lo, hi), all under stack_'s root level.
    void walk_range(std::span<uint8_t> allowed, uint32_t lo, uint32_t hi);
    // walk(): the tokens order()[lo, hi) after a first byte that leaves a free string at a character boundary.
    void fill_tails(std::span<uint8_t> allowed, unsigned char first, uint32_t lo, uint32_t hi,
                    const structured::PrefixChecker::StringRoom& room);
    // walk(): the verdict on order()[i] from the deepest level.
    bool judge(std::string_view bytes);
    // Cheap refusals before any checker is copied.
    bool plausible(std::string_view bytes) const;
    // Whether a checker that just consumed `bytes` (after text_) and is in state `s` leaves an acceptable output.
    bool verdict(const structured::PrefixChecker& after, structured::StreamState s, std::string_view bytes);
    // A token with a backslash or a non-ASCII byte: byte by byte, refusing a character begun so in listed text.
    bool allows_escape(std::string_view bytes);
    structured::PrefixChecker& level(size_t k, const structured::PrefixChecker& from);

    std::shared_ptr<const TokenBytes> tokens_;
    std::shared_ptr<JsonMaskCache> cache_;
    std::string key_;               // fill_allowed(): the state's key; reused
    std::vector<uint8_t> scratch_;  // fill_allowed_bits(): a computed mask's bytes; reused
    std::vector<uint64_t> packed_;  // fill_allowed_bits(): those bytes packed, when not stored; reused
    // compute_mask() for the cache: the token being judged (-1: none), the tokens whose verdict completed the
    // document (final_verdict(): they are judged again on each hit), and whether one completed unattributed.
    bool recording_ = false;
    bool pinning_ = false;
    bool pin_full_ = false;
    int32_t judging_ = -1;
    bool unattributed_final_ = false;
    std::vector<int32_t> finals_seen_;
    structured::PrefixChecker committed_;  // after text_
    std::string text_;
    size_t layout_run_ = 0;                          // whitespace bytes ending text_, outside strings
    std::unordered_map<std::string, bool> finals_;   // completing token bytes -> the whole document's verdict
    int complete_ = -1;                              // complete() since the last accept (-1: not asked)
    std::vector<structured::PrefixChecker> levels_;  // fill_allowed's checkers, one per shared prefix; reused
    std::vector<Level> stack_;                       // walk(): the levels in use
    std::vector<std::string_view> listed_;           // fill_allowed(): listed continuations; reused
    // fill_free_string(): per container state and set of alternatives surviving a string's close, each distinct
    // suffix's verdict (the most recent kMaxSuffixSets here; all of them in cache_, shared).
    struct SuffixVerdicts {
        uint64_t survivors = 0;
        std::string state;                           // PrefixChecker::container_state()
        std::shared_ptr<const CachedMask> verdicts;  // its suffix_verdicts
    };
    static constexpr size_t kMaxSuffixSets = 16;
    std::vector<SuffixVerdicts> suffix_cache_;
    std::array<int8_t, 256> head_memo_{};
    bool digits_done_ = false;
    bool spaces_done_ = false;   // walk(): the head is between tokens and its tokens of whitespace only are judged
    size_t slot_base_ = 1;       // push_level(): the slot of the stack's root level (levels_[slot_base_ + depth])   //
                                 // walk(): the head is in a number and its tokens of digits only are judged already
    uint64_t level_writes_ = 0;  // level() calls: a checker at the same address may differ
    // judge_digits(): the number context of the checker last asked (its address and level_writes_ then).
    const structured::PrefixChecker* digits_at_ = nullptr;
    uint64_t digits_writes_ = 0;
    bool digits_integer_ = false;
    bool digits_has_fraction_ = false;   // the number has '.', 'e' or 'E'
    size_t digits_exponent_ = SIZE_MAX;  // where its exponent's 'e' or 'E' is (SIZE_MAX: none)
    size_t digits_exponent_digits_ = 0;  // digits after it
    std::vector<structured::SchemaChecker::IntegerRange>
        digits_bounds_;  // levels_[1] fed one byte more: 1 accepted, -1 refused, 0 unknown
};

}  // namespace slipstream::agent::infer
