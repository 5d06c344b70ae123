// The array literal parser: PostgreSQL's array text output to an array cell (store/array_cell.h), and to JSON.
#include "store/postgres/pg_array.h"

#include <cstdint>
#include <string>

#include "store/array_cell.h"
#include "store/postgres/pg_result.h"

namespace slipstream::store::postgres {

std::optional<ColumnType> array_element_type(Oid oid) {
    // Built-in array OIDs (pg_type.typarray of each element type); stable across versions.
    switch (oid) {
        case 1000:
            return ColumnType::kBool;
        case 1001:
            return ColumnType::kBytes;
        case 1005:  // int2[]
        case 1007:  // int4[]
        case 1016:  // int8[]
        case 1028:  // oid[]
            return ColumnType::kInt;
        case 1021:  // float4[]
        case 1022:  // float8[]
            return ColumnType::kFloat;
        case 1231:
            return ColumnType::kNumeric;
        case 1009:  // text[]
        case 1015:  // varchar[]
        case 1014:  // bpchar[]
        case 1003:  // name[]
            return ColumnType::kText;
        case 2951:
            return ColumnType::kUuid;
        case 1182:
            return ColumnType::kDate;
        case 1183:  // time[]
        case 1270:  // timetz[]
            return ColumnType::kTime;
        case 1115:
            return ColumnType::kTimestamp;
        case 1185:
            return ColumnType::kTimestampTz;
        case 1187:
            return ColumnType::kInterval;
        case 199:   // json[]
        case 3807:  // jsonb[]
            return ColumnType::kJson;
        default:
            return std::nullopt;
    }
}

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool is_null_word(std::string_view s) {
    return s.size() == 4 && (s[0] == 'N' || s[0] == 'n') && (s[1] == 'U' || s[1] == 'u') &&
           (s[2] == 'L' || s[2] == 'l') && (s[3] == 'L' || s[3] == 'l');
}

base::Status malformed(std::string_view text) {
    constexpr std::size_t kShown = 64;
    std::string shown(text.substr(0, kShown));
    if (text.size() > kShown) shown += "...";
    return base::Status::invalid_argument("malformed array literal: " + shown);
}

// Parses one array literal into an array cell; scratch buffers are kept across elements.
class ArrayParser {
  public:
    ArrayParser(std::string& cell, std::string_view text, ColumnType element)
        : w_(cell), text_(text), element_(element) {}

    base::Status run() {
        // Dimension decoration "[lo:hi]...=" appears when a lower bound is not 1; the braces carry the shape.
        if (!text_.empty() && text_[0] == '[') {
            std::size_t eq = text_.find('=');
            if (eq == std::string_view::npos) return malformed(text_);
            i_ = eq + 1;
        }
        skip_space();
        if (i_ >= text_.size() || text_[i_] != '{') return malformed(text_);
        SLIPSTREAM_RETURN_IF_ERROR(parse());
        skip_space();
        return i_ == text_.size() ? base::Status::ok() : malformed(text_);
    }

  private:
    enum class Expect : std::uint8_t { kValueOrClose, kValue, kCommaOrClose };

    void skip_space() {
        while (i_ < text_.size() && is_space(text_[i_]))
            ++i_;
    }

    // From the opening brace to its closing one, sub-arrays included (iterative: the depth is bounded anyway).
    base::Status parse() {
        int depth = 0;
        Expect expect = Expect::kValue;
        for (;;) {
            skip_space();
            if (i_ >= text_.size()) return malformed(text_);
            const char c = text_[i_];
            if (c == '}' && expect != Expect::kValue) {
                w_.end();
                ++i_;
                if (--depth == 0) return base::Status::ok();
                expect = Expect::kCommaOrClose;
                continue;
            }
            if (expect == Expect::kCommaOrClose) {
                if (c != ',') return malformed(text_);
                ++i_;
                expect = Expect::kValue;
                continue;
            }
            if (c == '{') {
                if (depth == kMaxArrayDepth) return malformed(text_);
                w_.begin();
                ++depth;
                ++i_;
                expect = Expect::kValueOrClose;
                continue;
            }
            if (depth == 0) return malformed(text_);
            SLIPSTREAM_RETURN_IF_ERROR(c == '"' ? quoted() : unquoted());
            expect = Expect::kCommaOrClose;
        }
    }

    base::Status quoted() {
        element_text_.clear();
        for (++i_; i_ < text_.size(); ++i_) {
            char c = text_[i_];
            if (c == '"') {
                ++i_;
                return element(element_text_);
            }
            if (c == '\\' && ++i_ == text_.size()) break;
            element_text_.push_back(text_[i_]);
        }
        return malformed(text_);
    }

    base::Status unquoted() {
        std::size_t start = i_;
        bool escaped = false;
        while (i_ < text_.size() && text_[i_] != ',' && text_[i_] != '}') {
            char c = text_[i_];
            if (c == '{' || c == '"') return malformed(text_);
            if (c == '\\') {
                escaped = true;
                if (++i_ == text_.size()) return malformed(text_);
            }
            ++i_;
        }
        std::string_view raw = text_.substr(start, i_ - start);
        while (!raw.empty() && is_space(raw.back()))
            raw.remove_suffix(1);
        if (raw.empty()) return malformed(text_);
        if (!escaped) {
            if (is_null_word(raw)) {
                w_.null();
                return base::Status::ok();
            }
            return element(raw);
        }
        element_text_.clear();
        for (std::size_t k = 0; k < raw.size(); ++k) {
            if (raw[k] == '\\') ++k;
            element_text_.push_back(raw[k]);
        }
        return element(element_text_);
    }

    base::Status element(std::string_view text) {
        if (element_ == ColumnType::kBytes) {
            bytes_.clear();
            if (!decode_bytea(text, bytes_)) return base::Status::invalid_argument("malformed bytea array element");
            text = bytes_;
        }
        w_.element(text);
        return base::Status::ok();
    }

    ArrayCellWriter w_;
    std::string_view text_;
    ColumnType element_;
    std::size_t i_ = 0;
    std::string element_text_;
    std::string bytes_;
};

}  // namespace

base::Status parse_array_literal(std::string_view text, ColumnType element, std::string& cell) {
    return ArrayParser(cell, text, element).run();
}

base::Status write_array_json(json::Writer& writer, std::string_view text, ColumnType element) {
    std::string cell;
    SLIPSTREAM_RETURN_IF_ERROR(parse_array_literal(text, element, cell));
    return write_array_cell_json(writer, cell, element);
}

}  // namespace slipstream::store::postgres
