// GgufFile: a GGUF model file, memory-mapped: its metadata and its tensors as views into the mapping.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "agent/infer/ggml_type.h"
#include "base/result.h"

namespace slipstream::agent::infer {

/// One metadata value. Integers of every GGUF width read as int64 (uint64 above INT64_MAX is rejected), floats as
/// double; arrays keep their element kind.
struct GgufValue {
    using Array = std::variant<std::vector<int64_t>, std::vector<double>, std::vector<std::string>, std::vector<bool>>;
    std::variant<int64_t, double, bool, std::string, Array> value;
};

struct GgufTensor {
    std::string name;
    GgmlType type = GgmlType::kF32;
    std::vector<int64_t> dims;   // ne0 first: a [rows x cols] matrix has dims {cols, rows}
    const void* data = nullptr;  // into the mapping, aligned as the file says (general.alignment, default 32)
    std::size_t bytes = 0;

    int64_t elements() const;
    /// The tensor as a matrix: rows = product of dims[1..], cols = dims[0].
    WeightMatrix matrix() const {
        return WeightMatrix{type, data, elements() / (dims.empty() ? 1 : dims[0]), dims.empty() ? 0 : dims[0]};
    }
};

/// Limits on what open() accepts; a file past one is rejected with the limit's name, never read past its end.
struct GgufLimits {
    std::size_t max_string_bytes = 1 << 24;    // one metadata string
    std::size_t max_array_elements = 1 << 24;  // one metadata array (vocabularies are ~150k)
    std::size_t max_metadata_entries = 1 << 16;
    std::size_t max_tensors = 1 << 16;
    int max_dims = 4;
};

class GgufFile {
  public:
    /// Maps the file read-only. Errors (invalid_argument / io_error): not GGUF, version other than 2 or 3, a
    /// truncated header, a tensor past the end of the file, an unknown tensor type (named), a limit exceeded.
    static base::Result<std::unique_ptr<GgufFile>> open(const std::string& path, GgufLimits limits = {});
    ~GgufFile();
    GgufFile(const GgufFile&) = delete;
    GgufFile& operator=(const GgufFile&) = delete;

    uint32_t version() const { return version_; }
    /// The path open() was given.
    const std::string& path() const { return path_; }
    const GgufValue* find(std::string_view key) const;
    std::optional<int64_t> get_int(std::string_view key) const;
    std::optional<double> get_float(std::string_view key) const;  // also reads integers
    std::optional<std::string_view> get_string(std::string_view key) const;
    std::optional<bool> get_bool(std::string_view key) const;
    /// Array accessors: nullptr when absent or of another element kind.
    const std::vector<std::string>* get_string_array(std::string_view key) const;
    const std::vector<double>* get_float_array(std::string_view key) const;
    const std::vector<int64_t>* get_int_array(std::string_view key) const;

    const std::vector<GgufTensor>& tensors() const { return tensors_; }
    const GgufTensor* tensor(std::string_view name) const;
    const std::vector<std::pair<std::string, GgufValue>>& metadata() const { return metadata_; }

  private:
    GgufFile() = default;
    uint32_t version_ = 0;
    std::string path_;
    void* map_ = nullptr;
    std::size_t map_bytes_ = 0;
    std::vector<std::pair<std::string, GgufValue>> metadata_;
    std::vector<GgufTensor> tensors_;
    friend class GgufReader;
};

}  // namespace slipstream::agent::infer
