// HPACK encoder (RFC 7541): response header blocks, with the dynamic table and Huffman coding when shorter.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "http/h2/hpack/hpack_dynamic_table.h"

namespace slipstream::http::h2 {

enum class HpackIndexing : std::uint8_t { kIncremental, kWithout, kNever };  // §6.2.1 / 6.2.2 / 6.2.3
/// How a literal value is coded (§5.2): Huffman when that is shorter, or always as its raw bytes (for a
/// random value such as a request id, where Huffman coding saves a quarter of the bytes at a CPU cost on
/// both sides, every time).
enum class HpackCoding : std::uint8_t { kShortest, kRaw };

class HpackEncoder {
  public:
    explicit HpackEncoder(std::uint32_t max_table_size = 4096);  // our cap on the encoder's table
    // The peer's SETTINGS_HEADER_TABLE_SIZE. The table becomes min(size, cap); the next block starts with
    // the size update(s) RFC 7541 §4.2 requires (the smallest value seen since the last block, then the final).
    void set_peer_table_size(std::uint32_t size);
    // Starts a header block: appends a pending dynamic table size update, if any.
    void begin_block(std::string& out);
    // ":status": static index for 200 204 206 304 400 404 500, else a literal with the static name :status.
    void status(std::string& out, int code);
    // One field (name already lowercase). kIncremental/kWithout: an exact match (static or dynamic table)
    // when there is one, else a literal (with an indexed name when the name is in a table). kNever: always a
    // never-indexed literal (§6.2.3; its name may be indexed). Strings Huffman-coded when that is shorter.
    // kIncremental enters the field into the dynamic table (unless it is larger than the table). A literal
    // value is coded as `coding` says.
    void field(std::string& out, std::string_view name, std::string_view value, HpackIndexing how,
               HpackCoding coding = HpackCoding::kShortest);

    /// The dynamic table (for tests and statistics).
    const HpackDynamicTable& table() const { return table_; }

  private:
    std::uint32_t cap_;
    HpackDynamicTable table_;
    bool update_pending_ = false;
    std::uint32_t smallest_update_ = 0;  // the smallest size since the last block, when update_pending_
};

}  // namespace slipstream::http::h2
