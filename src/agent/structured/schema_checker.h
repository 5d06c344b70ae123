// SchemaChecker: the JSON Schema keywords a streamed prefix can prove unsatisfiable, checked event by event.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agent/structured/json_stream.h"
#include "agent/structured/pattern_nfa.h"
#include "json/value.h"

namespace slipstream::agent::structured {

/// What made a prefix invalid: the keyword that can no longer be satisfied, the instance location (a JSON
/// pointer) and a message.
struct CheckFailure {
    std::string keyword;
    std::string pointer;
    std::string message;
};

/// Sits between a JsonStream and the next events (a ValueBuilder; every accepted event goes on) and refuses an event
/// once no way of reading the schema can accept the document any more. At each value it keeps the alternatives the
/// schema allows there: each a conjunction of schema nodes (a node, its local `$ref` target and `allOf` members),
/// several for `anyOf`/`oneOf` (their branches); an alternative that a checked keyword refuses drops out, and a
/// container whose every alternative for a child has dropped out drops that alternative too. The checked keywords are
/// those a prefix can break (`false`, `type`, `enum`/`const`, `maxLength`, `additionalProperties: false` (from the
/// first byte of a key no declared property starts with), `maxLength` (also at the first byte of an escape or a
/// multi-byte character one too many), `maxProperties`, `maxItems`, `prefixItems`/`items: false`, `pattern` (in
/// PatternNfa's subset: at the character, or the first byte of an escape or UTF-8 sequence, after which no
/// continuation within `maxLength` can match))
/// and those settled when a value closes (`required`, `minProperties`, `minItems`, `minLength`); every other keyword
/// (`not`, conditionals, fractional bounds, formats, other patterns,
/// ...) is left to the compiled schema at the end. Refusing only when no alternative is left never rejects a
/// document the schema accepts. Past 16 alternatives at a value, or 8 nested expansions, that value is not checked.
/// `schema` must outlive this; `siblings_of_ref`: false for draft 7 (its `$ref` ignores sibling keywords).
/// Copyable: a copy has the same state and still hands its events to the same `next` until set_next() (forks that
/// try a continuation, PrefixChecker).
class SchemaChecker final : public JsonEvents {
  public:
    /// `patterns`: compile_patterns(schema) made once for the schema (null: made here).
    SchemaChecker(const json::Value& schema, bool siblings_of_ref, JsonEvents& next,
                  std::shared_ptr<const PatternTable> patterns = nullptr);

    /// Where accepted events go from now on; `next` must outlive this.
    void set_next(JsonEvents& next) { builder_ = &next; }
    /// Whether every living alternative lists the texts allowed for the key (`key`: `properties` under
    /// `additionalProperties: false`) or the string value being read (`enum`/`const`): a caller generating text
    /// can avoid escapes there, whose characters are checked only once whole.
    bool text_listed(bool key) const;
    /// When text_listed(key): appends, for each text a living alternative lists (declared property names, string
    /// members of `enum`/`const`) that starts with the key or string read so far, the rest of it, and returns
    /// true (a superset of what may still be written: keys already present are not left out). Else false.
    bool listed_texts(bool key, std::vector<std::string_view>& out) const;
    /// Whether every living alternative of the number being read refuses a fraction (`type` "integer").
    bool integer_only() const;
    /// When integer_only(): per living alternative, the closed range of integers its numeric bounds allow
    /// (`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`; infinite where absent) and its `multipleOf`, so a
    /// generator can refuse digits no value in range can start with. Empty otherwise. (When an integer ends it is
    /// checked against these bounds and an integral `multipleOf`.)
    struct IntegerRange {
        double lo = 0, hi = 0;         // closed; infinite where unbounded
        std::int64_t multiple_of = 0;  // an integral multipleOf (of every node: their lcm), 0: none
    };
    std::vector<IntegerRange> integer_bounds() const;
    /// Inside a string value whose living alternatives list no texts (no `enum`/`const`), so that only its
    /// length counts for the checks here: the most characters more that one of them allows (SIZE_MAX when one has
    /// no `maxLength`) and whether any of them bounds the length (`minLength`/`maxLength`: then the closing quote's
    /// verdict depends on the length). Empty elsewhere.
    struct StringRoom {
        std::size_t chars = 0;
        bool bounded = false;
    };
    std::optional<StringRoom> free_string_room() const;
    /// Inside such a string: which living alternatives (bit i: current alternative i) would still live if the
    /// string closed after `more` characters more (its length keywords); empty past 64 alternatives. Two closes
    /// with the same survivors leave the same state behind.
    std::optional<std::uint64_t> close_survivors(std::size_t more) const;
    /// Appends what, besides the current string's text, decides the checks after it closes: every open container's
    /// alternatives (nodes, parents, which live), counts and keys, and the string's alternatives. Two checkers with
    /// the same state, whose strings close with the same close_survivors(), check what follows alike.
    void container_state(std::string& out) const;
    /// Appends everything here that decides the checks from now on (for a constrained decoder's per-state mask
    /// cache): container_state(), the next value's alternatives, the key being read and the string being read
    /// (its text, or with `text_free` only its length where a length keyword counts it, as each alternative's
    /// distance to its minLength and maxLength clamped to `room_cap` + 1: the caller promises continuations of at
    /// most `room_cap` bytes). `window`: only the innermost this many containers count (a close settles only its
    /// parent's alternatives, so events that close fewer than `window` containers never read the others).
    void state_key(std::string& out, bool text_free, std::size_t window, std::size_t room_cap) const;
    /// Whether the number being read is checked by its value (numeric bounds or `multipleOf` on a living
    /// alternative), not only by its shape.
    bool number_value_checked() const;
    /// Inside a string value whose living alternatives list no texts but some of them check a `pattern` (one
    /// PatternNfa runs per such node): its text matters only through each pattern's state set (and its length
    /// through the length keywords), so state_key() with `text_free` keeps those instead of the text.
    bool pattern_keyed() const;
    /// Inside such a string with one living alternative that checks one pattern, between characters: that
    /// pattern's automaton and states, the characters more its `maxLength` allows (SIZE_MAX: none) and those its
    /// `minLength` still needs. Whole characters without escapes continue the string here exactly when the states
    /// after them are not empty, their count plus the shortest match after them fits `chars_left`, and their count
    /// plus the longest match after them (max_to_match) reaches `chars_needed` (a generator's fast path). Empty
    /// elsewhere.
    struct PatternFocus {
        const PatternNfa* nfa = nullptr;
        PatternNfa::States states{};
        std::size_t chars_left = SIZE_MAX;
        std::size_t chars_needed = 0;
    };
    std::optional<PatternFocus> pattern_focus() const;

    const CheckFailure& failure() const { return failure_; }
    /// Refuse a key an object already has (generation: json::parse keeps the last one, a generator should not
    /// write two). Off by default.
    void set_reject_repeated_keys(bool on) { reject_repeated_keys_ = on; }

    base::Status begin_object() override;
    base::Status end_object() override;
    base::Status begin_array() override;
    base::Status end_array() override;
    base::Status next_member() override;
    base::Status next_item() override;
    base::Status key(std::string_view piece, bool last) override;
    base::Status string(std::string_view piece, bool last) override;
    base::Status begin_number() override;
    base::Status begin_literal(bool null) override;
    base::Status begin_char(bool key, std::string_view pending) override;
    base::Status char_range(bool key, std::string_view pending, std::uint32_t lo, std::uint32_t hi) override;
    base::Status number(std::string_view text) override;
    base::Status boolean(bool value) override;
    base::Status null() override;

    /// A value's JSON Schema type as `type` sees it; numbers split by whether their value is integral.
    enum class Kind : std::uint8_t { kObject, kArray, kString, kNumber, kIntegral, kFraction, kBoolean, kNull };

  private:
    using Conj = std::vector<const json::Value*>;
    struct Alt {
        std::size_t parent = 0;  // the enclosing container's alternative it came from
        Conj nodes;              // all must hold (empty: anything)
        bool alive = true;
    };
    // An object's distinct keys, sorted: copied with the checker at each candidate a generator tries, where a
    // vector of short strings copies without allocating per key (a hash set's nodes would).
    struct KeySet {
        std::vector<std::string> items;
        std::size_t count(std::string_view k) const {
            return std::binary_search(items.begin(), items.end(), k, std::less<>()) ? 1 : 0;
        }
        void insert(const std::string& k) {
            const auto at = std::lower_bound(items.begin(), items.end(), k);
            if (at == items.end() || *at != k) items.insert(at, k);
        }
        std::size_t size() const { return items.size(); }
    };
    struct Frame {
        bool object = false;
        std::vector<Alt> alts;  // the container's alternatives
        std::size_t count = 0;  // elements so far (arrays)
        std::string key;        // the key being read (objects)
        KeySet keys;            // distinct keys so far (objects)
    };

    // A living alternative's `pattern` on the string being read: the NFA's states after the text stepped so far.
    struct PatternRun {
        std::size_t alt = 0;  // index in current_
        const PatternNfa* nfa = nullptr;
        PatternNfa::States states{};
    };
    const PatternNfa* pattern_of(const json::Value* node) const;
    void step_patterns(std::string_view text);
    base::Status check_patterns(bool last, const std::uint32_t* lo, const std::uint32_t* hi);

    // container_state() of the innermost `window` frames (state_key()).
    void window_state(std::string& out, std::size_t window) const;
    // container_state() and state_key(): a list of alternatives (their parents, liveness and nodes).
    static void put_alts(std::string& out, const std::vector<Alt>& list);
    bool expand(const json::Value* node, int depth, std::vector<Conj>& out) const;
    bool product(std::vector<Conj>& into, const std::vector<Conj>& with) const;
    std::vector<Alt> children(const std::vector<Alt>& parents, bool object, std::size_t index,
                              std::string_view key) const;
    const json::Value* child_node(const json::Value& node, bool object, std::size_t index, std::string_view key,
                                  bool& refused) const;
    const json::Value* local_target(std::string_view ref) const;

    base::Status begin_value(Kind k);
    base::Status end_value();
    base::Status check_string(bool last);
    base::Status check_key_prefix(Frame& f);
    base::Status survive(std::vector<Alt>& alts);
    void kill(Alt& alt, const char* keyword, std::string message);

    JsonEvents* builder_;      // never null
    const json::Value* root_;  // never null
    bool siblings_of_ref_;
    bool follow_refs_;
    bool numeric_checks_;  // numeric bounds checked when a number ends (the schema uses a draft's metaschema)
    std::vector<Frame> frames_;
    std::vector<std::string> path_;  // tokens of the value being read
    std::vector<Alt> next_;          // the alternatives of the value about to start (after a key)
    std::vector<Alt> current_;       // the alternatives of the scalar or string being read
    bool in_string_ = false;
    bool in_literal_ = false;  // begin_literal() came: the literal's value has begun
    std::string text_;
    std::size_t text_points_ = 0;  // code points in text_
    CheckFailure failure_;
    bool reject_repeated_keys_ = false;
    CheckFailure last_kill_;                        // why the most recent alternative dropped out
    std::shared_ptr<const PatternTable> patterns_;  // shared by copies
    std::vector<PatternRun> runs_;                  // the string being read: its patterns' states
    std::size_t stepped_ = 0;         // bytes of the stream's pending text (char_range) already stepped into runs_
    std::size_t stepped_points_ = 0;  // their characters
};

}  // namespace slipstream::agent::structured
