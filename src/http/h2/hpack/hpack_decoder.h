// HPACK decoder (RFC 7541): one complete header block at a time into a field sink, strict on malformed input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "http/h2/hpack/hpack_dynamic_table.h"

namespace slipstream::http::h2 {

class HpackFieldSink {
  public:
    // One decoded field, in order. Views are valid during the call only. Return false to stop decoding
    // (the block is then abandoned: the caller ends the connection, the table may be out of sync).
    virtual bool on_field(std::string_view name, std::string_view value) = 0;

  protected:
    ~HpackFieldSink() = default;
};

enum class HpackStatus : std::uint8_t { kOk, kCompressionError, kStopped };

class HpackDecoder {
  public:
    // max_table_size: the SETTINGS_HEADER_TABLE_SIZE we advertise (we advertise none: 4096). A size
    // update above it is a COMPRESSION_ERROR.
    explicit HpackDecoder(std::uint32_t max_table_size = 4096);
    // Decodes one complete header block (HEADERS + CONTINUATION fragments joined, padding removed).
    // kCompressionError: malformed (truncated integer/string, integer overflow past 2^32-1, index 0 or past
    // the tables, bad Huffman, size update above the limit or after the first field).
    HpackStatus decode(std::string_view block, HpackFieldSink& sink);

    /// The dynamic table (for tests and statistics).
    const HpackDynamicTable& table() const { return table_; }

  private:
    std::uint32_t max_table_size_;
    HpackDynamicTable table_;
    std::string name_scratch_;  // Huffman-decoded strings, reused from block to block
    std::string value_scratch_;
};

}  // namespace slipstream::http::h2
