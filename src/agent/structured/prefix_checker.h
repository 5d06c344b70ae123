// PrefixChecker: the syntax and early schema checks of a streamed JSON document, copyable to try a continuation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/structured/compiled_schema.h"
#include "agent/structured/json_stream.h"
#include "agent/structured/schema_checker.h"
#include "json/parse.h"

namespace slipstream::agent::structured {

/// A JsonStream and a SchemaChecker without a value: `feed` says kInvalid exactly where a StreamValidator fed the
/// same bytes would (the checks a prefix can prove), kPartial otherwise, kComplete once the document ended. It
/// keeps no value, so a complete document's final verdict (the keywords only the whole value can settle: numeric
/// bounds, patterns, `not`, ...) is the caller's: CompiledSchema::accepts over the text. Copying is the point:
/// a copy (or an assignment, which reuses this one's buffers) goes on from the same byte independently, so a
/// caller tries a candidate continuation on a copy and keeps the original. ~0.3 us to copy and feed a short token
/// into a two-level object (prefix_checker_bench). Not thread-safe; copies may live on different threads.
class PrefixChecker {
  public:
    /// options.duplicate_keys kReject refuses a repeated key at its closing quote.
    explicit PrefixChecker(std::shared_ptr<const CompiledSchema> schema, json::ParseOptions options = {});
    PrefixChecker(const PrefixChecker& other);
    PrefixChecker& operator=(const PrefixChecker& other);

    /// Consumes `chunk`; once kInvalid, later calls change nothing.
    StreamState feed(std::string_view chunk) { return stream_.feed(chunk); }
    /// The input ended (a top-level number ends only here): kComplete or kInvalid.
    StreamState finish() { return stream_.finish(); }
    StreamState state() const { return stream_.state(); }
    /// Bytes consumed so far.
    std::size_t offset() const { return stream_.offset(); }
    /// Inside a string or a key.
    bool in_string() const { return stream_.in_string(); }
    /// Inside a key.
    bool in_key() const { return stream_.in_key(); }
    /// Inside a string or a key, between characters (not inside an escape or a UTF-8 sequence).
    bool at_char_boundary() const { return stream_.at_char_boundary(); }
    /// The number being read (empty when not inside one): a number ends only at the byte after it.
    std::string_view number_text() const { return stream_.number_text(); }
    /// Inside a number that only an integer may be (SchemaChecker::integer_only).
    bool in_integer() const { return !stream_.number_text().empty() && checker_.integer_only(); }
    /// Inside a key or a string whose allowed texts the schema lists (SchemaChecker::text_listed): an escape
    /// begun here is checked only once its character is whole, so a generator may refuse to begin one.
    bool in_listed_text() const { return stream_.in_string() && checker_.text_listed(stream_.in_key()); }
    /// Whether byte `c` could come next as far as the syntax goes (JsonStream::may_follow): false only for a byte
    /// feed() refuses, so a generator skips it without trying it on a copy.
    bool may_follow(unsigned char c) const { return stream_.may_follow(c); }
    /// Between tokens of the document (JsonStream::in_layout): whitespace here leaves the state as it is.
    bool in_layout() const { return stream_.in_layout(); }
    /// Inside a number whose value some alternative checks (bounds, multipleOf): state_key keeps its digits.
    bool number_value_checked() const { return !stream_.number_text().empty() && checker_.number_value_checked(); }
    /// Inside an integer-only number: the integer ranges its alternatives allow (SchemaChecker::integer_bounds).
    std::vector<SchemaChecker::IntegerRange> integer_bounds() const {
        return stream_.number_text().empty() ? std::vector<SchemaChecker::IntegerRange>{} : checker_.integer_bounds();
    }
    /// Inside a key or a string value at a character boundary whose every living alternative lists its texts
    /// (SchemaChecker::listed_texts): appends to `out` what each listed text that starts with the text so far
    /// would add, and returns true; false (nothing appended) elsewhere.
    bool listed_continuations(std::vector<std::string_view>& out) const {
        return stream_.state() == StreamState::kPartial && stream_.at_char_boundary() &&
               checker_.listed_texts(stream_.in_key(), out);
    }
    /// Inside a string value at a character boundary whose schema checks here count only its length (no listed
    /// texts): what it may still take, so a generator can judge a continuation that stays inside the string by
    /// its characters alone. Empty elsewhere.
    struct StringRoom {
        std::size_t chars = 0;  // characters more that some alternative allows (SIZE_MAX: unbounded)
        std::size_t bytes = 0;  // decoded bytes more (ParseOptions::max_string_bytes)
        bool bounded = false;   // some alternative has minLength/maxLength: the closing quote depends on the length
    };
    /// The offset of the current (or last) string's opening quote.
    std::size_t string_start() const { return stream_.string_start(); }
    /// What decides how the document goes on once the current string closes, besides its text (JsonStream's and
    /// SchemaChecker's container_state): equal for two checkers that take the same bytes after their strings close
    /// with the same close_survivors().
    std::string container_state() const {
        std::string out;
        stream_.container_state(out);
        checker_.container_state(out);
        return out;
    }
    /// Appends a key for everything that decides which continuations of at most `room_cap` bytes this checker
    /// takes (feed()'s verdicts, and every query above after them), leaving out what cannot matter: the text of a
    /// string whose checks count only its length, the digits of a number nothing checks by value when it is
    /// shorter than `number_shape_below` (JsonStream::state_key: the caller promises continuations that keep it
    /// under 16 bytes; 0: digits kept), and the containers outside the innermost `window` (the caller promises
    /// continuations that close fewer than `window` containers and open at most `open_cap`). Two checkers with equal
    /// keys (same schema and options) agree on every such continuation except the end of the document, whose
    /// verdict (CompiledSchema::accepts) reads the whole text. For a constrained decoder's per-state mask cache.
    void state_key(std::string& out, std::size_t room_cap, std::size_t number_shape_below, std::size_t window,
                   std::size_t open_cap) const {
        const bool value_string = stream_.in_string() && !stream_.in_key();
        const bool text_free = value_string && checker_.free_string_room().has_value();
        const bool number_free = !stream_.number_text().empty() && !checker_.number_value_checked();
        // A pattern's string: its states stand for the text, but a UTF-8 sequence's bytes so far are kept (the
        // stream's pending bytes: which character they begin matters to the pattern).
        stream_.state_key(out, text_free, number_free ? number_shape_below : 0, room_cap, window, open_cap);
        checker_.state_key(out, text_free || (value_string && checker_.pattern_keyed()), window, room_cap);
    }
    /// Inside a string value at a character boundary whose one living alternative checks one pattern
    /// (SchemaChecker::pattern_focus), and the decoded bytes it may still take (ParseOptions::max_string_bytes).
    struct PatternString {
        SchemaChecker::PatternFocus focus;
        std::size_t bytes = 0;
    };
    std::optional<PatternString> pattern_string() const {
        if (stream_.state() != StreamState::kPartial || !stream_.at_char_boundary() || stream_.in_key())
            return std::nullopt;
        const auto focus = checker_.pattern_focus();
        if (!focus) return std::nullopt;
        return PatternString{*focus, stream_.string_room()};
    }
    /// Inside a free string: the alternatives a close after `more` characters more leaves (SchemaChecker).
    std::optional<std::uint64_t> close_survivors(std::size_t more) const { return checker_.close_survivors(more); }
    std::optional<StringRoom> free_string() const {
        if (stream_.state() != StreamState::kPartial || !stream_.at_char_boundary() || stream_.in_key())
            return std::nullopt;
        const auto room = checker_.free_string_room();
        if (!room) return std::nullopt;
        return StringRoom{room->chars, stream_.string_room(), room->bounded};
    }
    /// Set once state() is kInvalid: the syntax error (a schema refusal is kSyntax with the checker's message).
    const StreamError& error() const { return stream_.error(); }
    /// The schema keyword that refused the prefix; empty keyword for a syntax error.
    const CheckFailure& failure() const { return checker_.failure(); }
    const CompiledSchema& schema() const { return *schema_; }
    const std::shared_ptr<const CompiledSchema>& schema_ptr() const { return schema_; }

  private:
    std::shared_ptr<const CompiledSchema> schema_;
    JsonEvents sink_;  // after the checker: nothing
    SchemaChecker checker_;
    JsonStream stream_;
};

}  // namespace slipstream::agent::structured
