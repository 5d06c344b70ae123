// JsonStream: an incremental JSON parser fed arbitrary chunks, reporting events as the bytes arrive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "json/parse.h"

namespace slipstream::agent::structured {

/// Receives a document's events in order, as soon as the bytes that prove them have arrived. Strings and keys
/// come in pieces of decoded UTF-8 (`last` on the final one; a piece may be empty; a string value's first,
/// empty piece comes with its opening quote); a number comes whole, once
/// the byte after it (or the end) shows it ended. A status other than ok stops the stream: the parser reports
/// it as the document's error at the current byte (a validator's early rejection).
class JsonEvents {
  public:
    virtual ~JsonEvents() = default;
    virtual base::Status begin_object() { return base::Status::ok(); }
    virtual base::Status end_object() { return base::Status::ok(); }
    virtual base::Status begin_array() { return base::Status::ok(); }
    virtual base::Status end_array() { return base::Status::ok(); }
    /// A ',' inside an object: another member must follow.
    virtual base::Status next_member() { return base::Status::ok(); }
    /// A ',' inside an array: another element must follow.
    virtual base::Status next_item() { return base::Status::ok(); }
    virtual base::Status key(std::string_view piece, bool last) { return base::Status::ok(); }
    virtual base::Status string(std::string_view piece, bool last) { return base::Status::ok(); }
    /// A number's first byte ('-' or a digit); number() follows once it ended.
    virtual base::Status begin_number() { return base::Status::ok(); }
    virtual base::Status number(std::string_view text) { return base::Status::ok(); }
    /// Inside a string or key, a character begins with an escape or a UTF-8 lead byte (so one more character
    /// will come, whatever it is); `pending`: the decoded text before it not yet handed over in a piece.
    virtual base::Status begin_char(bool key, std::string_view pending) { return base::Status::ok(); }
    /// Inside a string or key, after each byte of an escape or a UTF-8 sequence that does not finish its character:
    /// the code points [lo, hi] that character may still be (`pending`: the decoded text before it not yet handed
    /// over in a piece), so a check can refuse the byte that leaves no allowed character.
    virtual base::Status char_range(bool key, std::string_view pending, std::uint32_t lo, std::uint32_t hi) {
        return base::Status::ok();
    }
    /// A literal's first byte ('n': null, 't' or 'f': a boolean); null() or boolean() follows once it is whole.
    virtual base::Status begin_literal(bool null) { return base::Status::ok(); }
    virtual base::Status boolean(bool value) { return base::Status::ok(); }
    virtual base::Status null() { return base::Status::ok(); }
};

/// Where a stream stands after a chunk: every byte so far is a prefix of some valid document (kPartial), the
/// document ended and only whitespace may follow (kComplete), or no continuation can make it valid (kInvalid).
enum class StreamState : std::uint8_t { kPartial, kComplete, kInvalid };

/// Why a stream is invalid: the byte offset that proved it, the kind (json/parse.h's kinds; a JsonEvents refusal
/// is kSyntax with its own message) and the message ("Expecting value", "Invalid UTF-8", "Nesting deeper than
/// 64", ...).
struct StreamError {
    std::size_t offset = 0;
    json::ParseErrorKind kind = json::ParseErrorKind::kSyntax;
    std::string message;
};

/// Parses one JSON document fed in chunks split anywhere (inside a UTF-8 sequence, an escape, a number or a
/// literal). Accepts exactly what json::parse accepts with the same ParseOptions (a leading UTF-8 BOM skipped;
/// integers of any length up to max_integer_digits; no NaN, no lone surrogates, no float that overflows), and
/// rejects at the first byte that proves a document invalid. Each chunk costs time proportional to its length:
/// consumed bytes are never read again; memory holds the container stack and the current number only (strings
/// go to `events` piece by piece). Duplicate keys are the events' concern. Not thread-safe. Copyable: a copy goes on
/// from the same byte and reports to the same events until set_events() (forks that try a continuation).
class JsonStream {
  public:
    /// `events` may be null (syntax only); it must outlive the stream.
    explicit JsonStream(JsonEvents* events = nullptr, json::ParseOptions options = {});
    /// Where events go from now on (null: nowhere); it must outlive the stream.
    void set_events(JsonEvents* events) { events_ = events; }

    /// Consumes `chunk`; once kInvalid, later calls change nothing.
    StreamState feed(std::string_view chunk);
    /// The input ended: kComplete, or kInvalid (a truncated document: "Expecting value", "Unterminated string
    /// starting at", ...).
    StreamState finish();

    StreamState state() const { return state_; }
    /// Set once state() is kInvalid.
    const StreamError& error() const { return error_; }
    /// Bytes consumed so far.
    std::size_t offset() const { return offset_; }
    /// Inside a string or a key (whitespace there is text, not layout).
    bool in_string() const { return mode_ == Mode::kString; }
    /// Inside a key.
    bool in_key() const { return mode_ == Mode::kString && in_key_; }
    /// Inside a string between two characters (no escape or UTF-8 sequence begun and unfinished).
    bool at_char_boundary() const { return mode_ == Mode::kString && escape_ == 0 && utf8_left_ == 0; }
    /// The offset of the current (or last) string's opening quote.
    std::size_t string_start() const { return string_start_; }
    /// Decoded bytes the current string may still take (ParseOptions::max_string_bytes).
    std::size_t string_room() const {
        return string_bytes_ < options_.max_string_bytes ? options_.max_string_bytes - string_bytes_ : 0;
    }
    /// Between the tokens of a started document (where whitespace changes nothing but the offset): after a value's
    /// start, a key, a colon, a comma or a container's end, before the document ends.
    bool in_layout() const {
        return state_ == StreamState::kPartial && mode_ != Mode::kStart && mode_ != Mode::kString &&
               mode_ != Mode::kNumber && mode_ != Mode::kLiteral && mode_ != Mode::kDone;
    }
    /// Appends what, besides the current string's text, decides how the stream goes on after it closes: the open
    /// containers and their counts (two streams with the same take the same bytes after the closing quote).
    void container_state(std::string& out) const;
    /// Appends everything that decides which bytes feed() takes from here (for a constrained decoder's per-state
    /// mask cache; equal keys, equal verdicts on every chunk of at most `room_cap` bytes): the state, the mode,
    /// container_state(), the escape, UTF-8, number and literal progress, and the string's room up to `room_cap`.
    /// `text_free`: the current string's decoded text is left out (its events' checks count only its length).
    /// `number_shape_below`: a number shorter than this without an exponent goes by its shape only (sign, leading
    /// zero, fraction begun, a nonzero fraction digit), not its digits: the caller's promise that its events do
    /// not read the value and that it only asks about chunks that keep the number under 16 bytes (so whether it
    /// is integral, parsed as a double, follows from the shape). 0: the digits are kept.
    /// `window`: only the innermost this many open containers count (and the depth only where `open_cap` more
    /// would reach max_depth): the caller's promise that a chunk closes fewer than `window` containers and opens at
    /// most `open_cap`.
    void state_key(std::string& out, bool text_free, std::size_t number_shape_below, std::size_t room_cap,
                   std::size_t window, std::size_t open_cap) const;
    /// Whether byte `c` could come next as far as the syntax at this position goes: false only for a byte that
    /// feed() refuses (a constrained decoder skips such bytes without trying them); true inside strings.
    bool may_follow(unsigned char c) const;
    /// The number being read (empty when not inside one).
    std::string_view number_text() const { return mode_ == Mode::kNumber ? std::string_view(number_) : ""; }
    /// Open containers ('{' or '['), outermost first.
    const std::vector<char>& open_containers() const { return stack_; }

  private:
    enum class Mode : std::uint8_t {
        kStart,            // before the document (a BOM may come)
        kValue,            // a value must come
        kArrayValueOrEnd,  // just after '['
        kObjectKeyOrEnd,   // just after '{'
        kObjectKey,        // after ',' in an object
        kColon,            // after a key
        kAfterValue,       // ',' or the container's end
        kString,           // inside a string or key
        kNumber,           // inside a number
        kLiteral,          // inside true / false / null
        kDone,             // the document ended: whitespace only
    };

    // container_state() of the innermost `window` containers (state_key()).
    void window_state(std::string& out, std::size_t window, std::size_t open_cap) const;
    bool step(const char*& p, const char* end);
    bool value_start(char c);
    bool string_bytes(const char*& p, const char* end);
    bool escape_byte(unsigned char c);
    bool utf8_byte(unsigned char c);
    bool number_byte(char c, bool& consumed);
    bool end_number();
    bool integer_too_long();
    bool literal_byte(char c);
    bool open(char kind);
    bool close(char kind);
    bool after_value();
    bool flush_string(bool last);
    bool begin_char();
    bool char_range(std::uint32_t lo, std::uint32_t hi);
    bool escape_range();
    bool utf8_range();
    bool emit(const base::Status& s);
    bool fail(json::ParseErrorKind kind, std::string message);
    bool fail_at(std::size_t offset, json::ParseErrorKind kind, std::string message);
    bool append_code_point(std::uint32_t cp);

    JsonEvents* events_;
    json::ParseOptions options_;
    StreamState state_ = StreamState::kPartial;
    StreamError error_;
    Mode mode_ = Mode::kStart;
    std::size_t offset_ = 0;          // of the byte being read
    std::vector<char> stack_;         // open containers
    std::vector<std::size_t> count_;  // members / elements of each open container
    std::uint8_t bom_seen_ = 0;       // bytes of a leading BOM matched

    // The current string or key.
    bool in_key_ = false;
    std::size_t string_start_ = 0;  // offset of its opening quote
    std::size_t string_bytes_ = 0;  // decoded so far
    std::string piece_;             // decoded, not handed to events yet
    std::uint8_t escape_ = 0;       // 0 none; 1 after '\'; 2..5 hex digits read + 1; 6 '\' of a low surrogate due;
                                    // 7 its 'u'
    std::uint32_t hex_ = 0;
    std::uint32_t high_surrogate_ = 0;               // waiting for its low half
    std::uint8_t utf8_left_ = 0;                     // continuation bytes still due
    std::uint8_t utf8_have_ = 0;                     // bytes of the current sequence read
    unsigned char utf8_lo_ = 0x80, utf8_hi_ = 0xbf;  // the next continuation byte's range

    // The current number.
    std::string number_;
    std::uint8_t number_state_ = 0;
    bool number_is_float_ = false;
    std::size_t number_digits_ = 0;

    // The current literal.
    std::string_view literal_;
    std::size_t literal_at_ = 0;
};

}  // namespace slipstream::agent::structured
