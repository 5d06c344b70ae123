// write_cell_json and its helpers: cells to JSON without building intermediate values.
#include "store/json_rows.h"

#include <charconv>

namespace slipstream::store {

void append_compact_json(std::string& out, std::string_view json) {
    bool in_string = false;
    bool escaped = false;
    for (char c : json) {
        if (in_string) {
            out.push_back(c);
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
        if (c == '"') in_string = true;
        out.push_back(c);
    }
}

void append_base64(std::string& out, std::string_view bytes) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::size_t i = 0;
    const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
    for (; i + 3 <= bytes.size(); i += 3) {
        unsigned v = (b[i] << 16) | (b[i + 1] << 8) | b[i + 2];
        const char quad[4] = {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63], kAlphabet[(v >> 6) & 63],
                              kAlphabet[v & 63]};
        out.append(quad, 4);
    }
    std::size_t rest = bytes.size() - i;
    if (rest == 0) return;
    unsigned v = b[i] << 16;
    if (rest == 2) v |= b[i + 1] << 8;
    const char quad[4] = {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63], rest == 2 ? kAlphabet[(v >> 6) & 63] : '=',
                          '='};
    out.append(quad, 4);
}

base::Status write_cell_json(json::Writer& writer, ColumnType type, std::string_view bytes) {
    switch (type) {
        case ColumnType::kNull:
            writer.null();
            return base::Status::ok();
        case ColumnType::kBool:
            writer.boolean(bytes == "t" || bytes == "true" || bytes == "1");
            return base::Status::ok();
        case ColumnType::kInt:
            writer.raw(bytes);
            return base::Status::ok();
        case ColumnType::kFloat: {
            double d = 0;
            auto [end, ec] = std::from_chars(bytes.data(), bytes.data() + bytes.size(), d);
            if (ec != std::errc() || end != bytes.data() + bytes.size()) {
                return base::Status::invalid_argument("not a float: " + std::string(bytes));
            }
            return writer.number(d);
        }
        case ColumnType::kJson: {
            // raw() places the separator; the compact text is appended in place behind an empty raw value.
            writer.raw({});
            append_compact_json(writer.output(), bytes);
            return base::Status::ok();
        }
        case ColumnType::kArray:
            return base::Status::invalid_argument(
                "an array cell is written with its element kind (write_array_cell_json)");
        case ColumnType::kBytes: {
            std::string encoded;
            encoded.reserve((bytes.size() + 2) / 3 * 4);
            append_base64(encoded, bytes);
            writer.string(encoded);
            return base::Status::ok();
        }
        default:
            writer.string(bytes);
            return base::Status::ok();
    }
}

}  // namespace slipstream::store
