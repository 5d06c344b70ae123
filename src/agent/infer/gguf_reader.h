// GgufReader: parses a GGUF v2/v3 image in memory into a GgufFile, bounds-checking every read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "agent/infer/gguf_file.h"
#include "base/status.h"

namespace slipstream::agent::infer {

/// One pass over the bytes of a GGUF file. Never reads outside [data, data + size); each error names what was
/// wrong and where (the key or tensor being read). Tensor views point into `data`, which must outlive `out`.
class GgufReader {
  public:
    GgufReader(const uint8_t* data, std::size_t size, const GgufLimits& limits)
        : data_(data), size_(size), limits_(limits) {}

    /// Fills out's version, metadata and tensors (not its mapping).
    base::Status parse(GgufFile& out);

  private:
    base::Status read_bytes(void* dst, std::size_t n, const char* what);
    template <typename T>
    base::Status read_pod(T& v, const char* what) {
        return read_bytes(&v, sizeof(T), what);
    }
    base::Status read_string(std::string& s, const char* what);
    base::Status read_value(uint32_t type, GgufValue& v, const std::string& key);
    base::Status read_array(GgufValue& v, const std::string& key);
    base::Status read_tensor_info(GgufTensor& t, uint64_t& offset);

    const uint8_t* data_;
    std::size_t size_;
    std::size_t pos_ = 0;
    GgufLimits limits_;
};

}  // namespace slipstream::agent::infer
