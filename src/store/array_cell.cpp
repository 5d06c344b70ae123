// Array cells: the token encoding, its walker and its JSON form.
#include "store/array_cell.h"

#include <cstdint>

#include "store/json_rows.h"

namespace slipstream::store {

void ArrayCellWriter::element(std::string_view bytes) {
    const auto n = static_cast<std::uint32_t>(bytes.size());
    out_.push_back('E');
    for (int shift = 0; shift < 32; shift += 8)
        out_.push_back(static_cast<char>((n >> shift) & 0xff));
    out_.append(bytes);
}

base::Status read_array_cell(std::string_view cell, ArrayCellVisitor& visitor) {
    const auto malformed = [] { return base::Status::invalid_argument("malformed array cell"); };
    int depth = 0;
    std::size_t i = 0;
    while (i < cell.size()) {
        const char tag = cell[i++];
        base::Status s;
        switch (tag) {
            case '[':
                if (++depth > kMaxArrayDepth) return malformed();
                s = visitor.begin();
                break;
            case ']':
                if (--depth < 0) return malformed();
                s = visitor.end();
                break;
            case 'N':
                if (depth == 0) return malformed();
                s = visitor.null();
                break;
            case 'E': {
                if (depth == 0 || cell.size() - i < 4) return malformed();
                std::uint32_t n = 0;
                for (int k = 0; k < 4; ++k)
                    n |= static_cast<std::uint32_t>(static_cast<unsigned char>(cell[i + k])) << (8 * k);
                i += 4;
                if (cell.size() - i < n) return malformed();
                s = visitor.element(cell.substr(i, n));
                i += n;
                break;
            }
            default:
                return malformed();
        }
        if (!s.is_ok()) return s;
        if (depth == 0 && i != cell.size()) return malformed();
    }
    return depth == 0 && !cell.empty() ? base::Status::ok() : malformed();
}

namespace {

class JsonArrayVisitor final : public ArrayCellVisitor {
  public:
    JsonArrayVisitor(json::Writer& w, ColumnType element) : w_(w), element_(element) {}
    base::Status begin() override {
        w_.begin_array();
        return base::Status::ok();
    }
    base::Status end() override {
        w_.end_array();
        return base::Status::ok();
    }
    base::Status null() override {
        w_.null();
        return base::Status::ok();
    }
    base::Status element(std::string_view bytes) override { return write_cell_json(w_, element_, bytes); }

  private:
    json::Writer& w_;
    ColumnType element_;
};

}  // namespace

base::Status write_array_cell_json(json::Writer& writer, std::string_view cell, ColumnType element) {
    JsonArrayVisitor visitor(writer, element);
    return read_array_cell(cell, visitor);
}

}  // namespace slipstream::store
