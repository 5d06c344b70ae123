// COPY data helpers: which statements are COPY FROM STDIN / TO STDOUT, and COPY sources over rows or bytes.
#include "store/postgres/copy_data.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace slipstream::store::postgres {

namespace {

bool is_word_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

bool is_word_char(char c) {
    return is_word_start(c) || (c >= '0' && c <= '9') || c == '$';
}

bool equals_keyword(std::string_view word, std::string_view upper) {
    if (word.size() != upper.size()) return false;
    for (std::size_t i = 0; i < word.size(); ++i) {
        char c = word[i];
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
        if (c != upper[i]) return false;
    }
    return true;
}

// The index just past the quoted text that starts at sql[i] (quote char q); `backslashes`: E'' strings.
std::size_t skip_quoted(std::string_view sql, std::size_t i, char q, bool backslashes) {
    for (++i; i < sql.size(); ++i) {
        if (backslashes && sql[i] == '\\') {
            ++i;
        } else if (sql[i] == q) {
            if (i + 1 < sql.size() && sql[i + 1] == q) {
                ++i;  // a doubled quote
            } else {
                return i + 1;
            }
        }
    }
    return sql.size();
}

// At sql[i] == '$': the index past a $tag$...$tag$ string, or npos when it does not open one.
std::size_t skip_dollar_quoted(std::string_view sql, std::size_t i) {
    std::size_t end = i + 1;
    while (end < sql.size() && sql[end] != '$') {
        if (!is_word_char(sql[end]) || sql[end] == '$') return std::string_view::npos;
        ++end;
    }
    if (end >= sql.size()) return std::string_view::npos;
    std::string_view tag = sql.substr(i, end - i + 1);
    std::size_t close = sql.find(tag, end + 1);
    return close == std::string_view::npos ? sql.size() : close + tag.size();
}

std::size_t skip_block_comment(std::string_view sql, std::size_t i) {
    int depth = 0;  // PostgreSQL's block comments nest
    while (i + 1 < sql.size()) {
        if (sql[i] == '/' && sql[i + 1] == '*') {
            ++depth;
            i += 2;
        } else if (sql[i] == '*' && sql[i + 1] == '/') {
            i += 2;
            if (--depth == 0) return i;
        } else {
            ++i;
        }
    }
    return sql.size();
}

}  // namespace

CopyDirection copy_direction(std::string_view sql) {
    bool first = true;
    int depth = 0;
    std::string_view previous;  // the word before this one at depth 0 (empty after any other token)
    std::size_t i = 0;
    while (i < sql.size()) {
        char c = sql[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            ++i;
        } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
            std::size_t nl = sql.find('\n', i);
            i = nl == std::string_view::npos ? sql.size() : nl + 1;
        } else if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
            i = skip_block_comment(sql, i);
        } else if (is_word_start(c)) {
            std::size_t end = i;
            while (end < sql.size() && is_word_char(sql[end]))
                ++end;
            std::string_view word = sql.substr(i, end - i);
            if (end < sql.size() && sql[end] == '\'' && word.size() == 1) {
                // E'..', B'..', X'..', U&'..' prefixes: the quoted text follows.
                i = skip_quoted(sql, end, '\'', word[0] == 'e' || word[0] == 'E');
                previous = {};
                first = false;
                continue;
            }
            if (first) {
                if (!equals_keyword(word, "COPY")) return CopyDirection::kNone;
                first = false;
            } else if (depth == 0) {
                if (equals_keyword(previous, "FROM") && equals_keyword(word, "STDIN")) return CopyDirection::kIn;
                if (equals_keyword(previous, "TO") && equals_keyword(word, "STDOUT")) return CopyDirection::kOut;
            }
            previous = depth == 0 ? word : std::string_view();
            i = end;
        } else {
            if (first) return CopyDirection::kNone;
            if (c == '\'' || c == '"') {
                i = skip_quoted(sql, i, c, false);
            } else if (c == '$') {
                std::size_t end = skip_dollar_quoted(sql, i);
                i = end == std::string_view::npos ? i + 1 : end;
            } else {
                depth += c == '(' ? 1 : c == ')' ? -1 : 0;
                ++i;
            }
            previous = {};
        }
    }
    return CopyDirection::kNone;
}

CopySource copy_rows_from(RowSource next, std::size_t chunk_bytes) {
    return [next = std::move(next), row = std::vector<Value>(), ended = false, chunk_bytes](std::string& out) mutable {
        while (!ended && out.size() < chunk_bytes) {
            row.clear();
            if (!next(row)) {
                ended = true;  // `next` is not asked again
                break;
            }
            encode_copy_text_row(row, out);
        }
        return base::Status::ok();
    };
}

CopySource copy_rows(std::vector<std::vector<Value>> rows, std::size_t chunk_bytes) {
    auto held = std::make_shared<std::vector<std::vector<Value>>>(std::move(rows));
    return [held, index = std::size_t{0}, chunk_bytes](std::string& out) mutable {
        while (out.size() < chunk_bytes && index < held->size())
            encode_copy_text_row((*held)[index++], out);
        return base::Status::ok();
    };
}

namespace {
constexpr std::string_view kCopyDataPending = "COPY data pending";
}  // namespace

base::Status copy_data_pending() {
    return base::Status::unavailable(std::string(kCopyDataPending));
}

bool is_copy_data_pending(const base::Status& status) {
    return status.code() == base::StatusCode::kUnavailable && status.message() == kCopyDataPending;
}

CopySource copy_bytes(std::string data, std::size_t chunk_bytes) {
    auto held = std::make_shared<std::string>(std::move(data));
    return [held, offset = std::size_t{0}, chunk_bytes](std::string& out) mutable {
        const std::size_t n = std::min(chunk_bytes, held->size() - offset);
        out.assign(*held, offset, n);
        offset += n;
        return base::Status::ok();
    };
}

}  // namespace slipstream::store::postgres
