// COPY data helpers: which statements are COPY FROM STDIN / TO STDOUT, and the text-format row codec.
#include "store/postgres/copy_data.h"

#include <charconv>
#include <cmath>
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

void append_escaped(std::string& out, std::string_view text) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        char esc = 0;
        switch (c) {
            case '\\':
                esc = '\\';
                break;
            case '\t':
                esc = 't';
                break;
            case '\n':
                esc = 'n';
                break;
            case '\r':
                esc = 'r';
                break;
            default:
                continue;
        }
        out.append(text.data() + start, i - start);
        out.push_back('\\');
        out.push_back(esc);
        start = i + 1;
    }
    out.append(text.data() + start, text.size() - start);
}

void append_double(std::string& out, double d) {
    if (std::isnan(d)) {
        out += "NaN";
    } else if (std::isinf(d)) {
        out += d > 0 ? "Infinity" : "-Infinity";
    } else {
        char buf[32];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
        out.append(buf, end);
    }
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Undoes COPY text escapes of one field (field[0..] up to its end). False on a trailing lone backslash.
bool unescape_field(std::string_view field, std::string& out) {
    out.reserve(field.size());
    for (std::size_t i = 0; i < field.size(); ++i) {
        char c = field[i];
        if (c != '\\') {
            out.push_back(c);
            continue;
        }
        if (++i == field.size()) return false;
        c = field[i];
        switch (c) {
            case 'b':
                out.push_back('\b');
                break;
            case 'f':
                out.push_back('\f');
                break;
            case 'n':
                out.push_back('\n');
                break;
            case 'r':
                out.push_back('\r');
                break;
            case 't':
                out.push_back('\t');
                break;
            case 'v':
                out.push_back('\v');
                break;
            case 'x': {
                int v = i + 1 < field.size() ? hex_value(field[i + 1]) : -1;
                if (v < 0) {
                    out.push_back('x');  // not followed by a hex digit: the letter itself, as the server reads it
                    break;
                }
                ++i;
                if (i + 1 < field.size() && hex_value(field[i + 1]) >= 0) v = v * 16 + hex_value(field[++i]);
                out.push_back(static_cast<char>(v));
                break;
            }
            default:
                if (c >= '0' && c <= '7') {
                    int v = c - '0';
                    for (int n = 1; n < 3 && i + 1 < field.size() && field[i + 1] >= '0' && field[i + 1] <= '7'; ++n)
                        v = v * 8 + (field[++i] - '0');
                    out.push_back(static_cast<char>(v & 0xff));
                } else {
                    out.push_back(c);
                }
                break;
        }
    }
    return true;
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

void encode_copy_text_row(const std::vector<Value>& row, std::string& out) {
    for (std::size_t i = 0; i < row.size(); ++i) {
        if (i > 0) out.push_back('\t');
        const Value& v = row[i];
        switch (v.index()) {
            case 0:
                out += "\\N";
                break;
            case 1:
                out.push_back(std::get<bool>(v) ? 't' : 'f');
                break;
            case 2: {
                char buf[24];
                auto [end, ec] = std::to_chars(buf, buf + sizeof buf, std::get<std::int64_t>(v));
                out.append(buf, end);
                break;
            }
            case 3:
                append_double(out, std::get<double>(v));
                break;
            case 4:
                append_escaped(out, std::get<std::string>(v));
                break;
            default: {
                // bytea's hex input form, its backslash escaped for COPY.
                static constexpr char kHex[] = "0123456789abcdef";
                const std::string& data = std::get<Bytes>(v).data;
                out += "\\\\x";
                for (unsigned char b : data) {
                    out.push_back(kHex[b >> 4]);
                    out.push_back(kHex[b & 15]);
                }
                break;
            }
        }
    }
    out.push_back('\n');
}

bool parse_copy_text_row(std::string_view line, std::vector<Value>& fields) {
    fields.clear();
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    std::size_t start = 0;
    for (;;) {
        std::size_t tab = line.find('\t', start);
        std::string_view field = line.substr(start, tab == std::string_view::npos ? line.size() - start : tab - start);
        if (field == "\\N") {
            fields.emplace_back(std::monostate{});
        } else {
            std::string text;
            if (!unescape_field(field, text)) return false;
            fields.emplace_back(std::move(text));
        }
        if (tab == std::string_view::npos) return true;
        start = tab + 1;
    }
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

}  // namespace slipstream::store::postgres
