// GgufReader: the GGUF v2/v3 byte layout, read with a bounds check before every access.
#include "agent/infer/gguf_reader.h"

#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace slipstream::agent::infer {

namespace {

using base::Status;

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian uint32
constexpr uint32_t kDefaultAlignment = 32;

// GGUF metadata value types (gguf_type).
enum ValueType : uint32_t {
    kUint8 = 0,
    kInt8 = 1,
    kUint16 = 2,
    kInt16 = 3,
    kUint32 = 4,
    kInt32 = 5,
    kFloat32 = 6,
    kBool = 7,
    kString = 8,
    kArray = 9,
    kUint64 = 10,
    kInt64 = 11,
    kFloat64 = 12,
};

bool is_integer_type(uint32_t t) {
    return t <= kInt32 || t == kUint64 || t == kInt64;
}
bool is_float_type(uint32_t t) {
    return t == kFloat32 || t == kFloat64;
}

// Fewest bytes one element of type t takes in the file (strings: their 8-byte length).
std::size_t min_element_bytes(uint32_t t) {
    switch (t) {
        case kUint8:
        case kInt8:
        case kBool:
            return 1;
        case kUint16:
        case kInt16:
            return 2;
        case kUint32:
        case kInt32:
        case kFloat32:
            return 4;
        default:
            return 8;
    }
}

std::string quoted(std::string_view s) {
    return "'" + std::string(s) + "'";
}

}  // namespace

Status GgufReader::read_bytes(void* dst, std::size_t n, const char* what) {
    if (n > size_ - pos_) {
        return Status::invalid_argument("gguf: truncated at byte " + std::to_string(pos_) + " reading " + what + " (" +
                                        std::to_string(n) + " bytes needed, " + std::to_string(size_ - pos_) +
                                        " left)");
    }
    std::memcpy(dst, data_ + pos_, n);
    pos_ += n;
    return Status::ok();
}

Status GgufReader::read_string(std::string& s, const char* what) {
    uint64_t len = 0;
    SLIPSTREAM_RETURN_IF_ERROR(read_pod(len, what));
    if (len > limits_.max_string_bytes) {
        return Status::invalid_argument("gguf: " + std::string(what) + " of " + std::to_string(len) +
                                        " bytes exceeds max_string_bytes (" + std::to_string(limits_.max_string_bytes) +
                                        ")");
    }
    if (len > size_ - pos_) {
        return Status::invalid_argument("gguf: " + std::string(what) + " length " + std::to_string(len) + " at byte " +
                                        std::to_string(pos_ - 8) + " runs past the end of the file");
    }
    s.assign(reinterpret_cast<const char*>(data_ + pos_), len);
    pos_ += len;
    return Status::ok();
}

Status GgufReader::read_value(uint32_t type, GgufValue& v, const std::string& key) {
    const char* what = "metadata value";
    switch (type) {
        case kUint8: {
            uint8_t x;
            SLIPSTREAM_RETURN_IF_ERROR(read_pod(x, what));
            v.value = int64_t{x};
            return Status::ok();
        }
        case kInt8: {
            int8_t x;
            SLIPSTREAM_RETURN_IF_ERROR(read_pod(x, what));
            v.value = int64_t{x};
            return Status::ok();
        }
        case kUint16: {
            uint16_t x;
            SLIPSTREAM_RETURN_IF_ERROR(read_pod(x, what));
            v.value = int64_t{x};
            return Status::ok();
        }
        case kInt16: {
            int16_t x;
            SLIPSTREAM_RETURN_IF_ERROR(read_pod(x, what));
            v.value = int64_t{x};
            return Status::ok();
        }
        case kUint32: {
            uint32_t x;
            SLIPSTREAM_RETURN_IF_ERROR(read_pod(x, what));
            v.value = int64_t{x};
            return Status::ok();
        }
        case kInt32: {
            int32_t x;
            SLIPSTREAM_RETURN_IF_ERROR(read_pod(x, what));
            v.value = int64_t{x};
            return Status::ok();
        }
        case kUint64: {
            uint64_t x;
            SLIPSTREAM_RETURN_IF_ERROR(read_pod(x, what));
            if (x > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
                return Status::invalid_argument("gguf: key " + quoted(key) + ": uint64 value " + std::to_string(x) +
                                                " does not fit int64");
            }
            v.value = static_cast<int64_t>(x);
            return Status::ok();
        }
        case kInt64: {
            int64_t x;
            SLIPSTREAM_RETURN_IF_ERROR(read_pod(x, what));
            v.value = x;
            return Status::ok();
        }
        case kFloat32: {
            float x;
            SLIPSTREAM_RETURN_IF_ERROR(read_pod(x, what));
            v.value = double{x};
            return Status::ok();
        }
        case kFloat64: {
            double x;
            SLIPSTREAM_RETURN_IF_ERROR(read_pod(x, what));
            v.value = x;
            return Status::ok();
        }
        case kBool: {
            uint8_t x;
            SLIPSTREAM_RETURN_IF_ERROR(read_pod(x, what));
            if (x > 1) {
                return Status::invalid_argument("gguf: key " + quoted(key) + ": bool value " + std::to_string(x) +
                                                " is neither 0 nor 1");
            }
            v.value = x == 1;
            return Status::ok();
        }
        case kString: {
            std::string s;
            SLIPSTREAM_RETURN_IF_ERROR(read_string(s, "metadata string"));
            v.value = std::move(s);
            return Status::ok();
        }
        case kArray:
            return read_array(v, key);
    }
    return Status::invalid_argument("gguf: key " + quoted(key) + ": unknown value type " + std::to_string(type));
}

Status GgufReader::read_array(GgufValue& v, const std::string& key) {
    uint32_t elem_type = 0;
    uint64_t count = 0;
    SLIPSTREAM_RETURN_IF_ERROR(read_pod(elem_type, "array element type"));
    SLIPSTREAM_RETURN_IF_ERROR(read_pod(count, "array length"));
    if (elem_type == kArray) {
        return Status::invalid_argument("gguf: key " + quoted(key) + ": nested arrays are not supported");
    }
    if (!is_integer_type(elem_type) && !is_float_type(elem_type) && elem_type != kBool && elem_type != kString) {
        return Status::invalid_argument("gguf: key " + quoted(key) + ": unknown array element type " +
                                        std::to_string(elem_type));
    }
    if (count > limits_.max_array_elements) {
        return Status::invalid_argument("gguf: key " + quoted(key) + ": array of " + std::to_string(count) +
                                        " elements exceeds max_array_elements (" +
                                        std::to_string(limits_.max_array_elements) + ")");
    }
    // Checked before any allocation: a hostile count cannot make us reserve more than the file could hold.
    if (count > (size_ - pos_) / min_element_bytes(elem_type)) {
        return Status::invalid_argument("gguf: key " + quoted(key) + ": array of " + std::to_string(count) +
                                        " elements runs past the end of the file");
    }
    const auto n = static_cast<std::size_t>(count);
    GgufValue elem;
    if (is_integer_type(elem_type)) {
        std::vector<int64_t> out;
        out.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            SLIPSTREAM_RETURN_IF_ERROR(read_value(elem_type, elem, key));
            out.push_back(std::get<int64_t>(elem.value));
        }
        v.value = GgufValue::Array(std::move(out));
    } else if (is_float_type(elem_type)) {
        std::vector<double> out;
        out.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            SLIPSTREAM_RETURN_IF_ERROR(read_value(elem_type, elem, key));
            out.push_back(std::get<double>(elem.value));
        }
        v.value = GgufValue::Array(std::move(out));
    } else if (elem_type == kBool) {
        std::vector<bool> out;
        out.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            SLIPSTREAM_RETURN_IF_ERROR(read_value(elem_type, elem, key));
            out.push_back(std::get<bool>(elem.value));
        }
        v.value = GgufValue::Array(std::move(out));
    } else {
        std::vector<std::string> out;
        out.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            out.emplace_back();
            SLIPSTREAM_RETURN_IF_ERROR(read_string(out.back(), "array string"));
        }
        v.value = GgufValue::Array(std::move(out));
    }
    return Status::ok();
}

Status GgufReader::read_tensor_info(GgufTensor& t, uint64_t& offset) {
    SLIPSTREAM_RETURN_IF_ERROR(read_string(t.name, "tensor name"));
    uint32_t n_dims = 0;
    SLIPSTREAM_RETURN_IF_ERROR(read_pod(n_dims, "tensor dimension count"));
    if (n_dims == 0 || n_dims > static_cast<uint32_t>(limits_.max_dims)) {
        return Status::invalid_argument("gguf: tensor " + quoted(t.name) + ": " + std::to_string(n_dims) +
                                        " dimensions (1 to " + std::to_string(limits_.max_dims) + " allowed)");
    }
    int64_t elements = 1;
    for (uint32_t i = 0; i < n_dims; ++i) {
        uint64_t d = 0;
        SLIPSTREAM_RETURN_IF_ERROR(read_pod(d, "tensor dimension"));
        if (d == 0 || d > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
            __builtin_mul_overflow(elements, static_cast<int64_t>(d), &elements)) {
            return Status::invalid_argument("gguf: tensor " + quoted(t.name) + ": dimension " + std::to_string(i) +
                                            " = " + std::to_string(d) + " is zero or overflows the element count");
        }
        t.dims.push_back(static_cast<int64_t>(d));
    }
    uint32_t raw_type = 0;
    SLIPSTREAM_RETURN_IF_ERROR(read_pod(raw_type, "tensor type"));
    if (!ggml_type_known(raw_type)) {
        return Status::invalid_argument("gguf: tensor " + quoted(t.name) + " has unsupported type " +
                                        std::to_string(raw_type) + " (supported: f32, f16, bf16, q4_0, q8_0)");
    }
    t.type = static_cast<GgmlType>(raw_type);
    const int64_t block = ggml_block_elements(t.type);
    if (t.dims[0] % block != 0) {
        return Status::invalid_argument("gguf: tensor " + quoted(t.name) + ": row of " + std::to_string(t.dims[0]) +
                                        " elements is not a multiple of the " + std::string(ggml_type_name(raw_type)) +
                                        " block (" + std::to_string(block) + ")");
    }
    const std::size_t row_bytes = ggml_row_bytes(t.type, t.dims[0]);
    if (__builtin_mul_overflow(row_bytes, static_cast<std::size_t>(elements / t.dims[0]), &t.bytes)) {
        return Status::invalid_argument("gguf: tensor " + quoted(t.name) + ": byte size overflows");
    }
    return read_pod(offset, "tensor offset");
}

Status GgufReader::parse(GgufFile& out) {
    // Header.
    uint32_t magic = 0;
    SLIPSTREAM_RETURN_IF_ERROR(read_pod(magic, "magic"));
    if (magic != kMagic) return Status::invalid_argument("gguf: not a GGUF file (bad magic)");
    SLIPSTREAM_RETURN_IF_ERROR(read_pod(out.version_, "version"));
    if (out.version_ != 2 && out.version_ != 3) {
        return Status::invalid_argument("gguf: version " + std::to_string(out.version_) +
                                        " is not supported (2 and 3 are)");
    }
    uint64_t n_tensors = 0;
    uint64_t n_kv = 0;
    SLIPSTREAM_RETURN_IF_ERROR(read_pod(n_tensors, "tensor count"));
    SLIPSTREAM_RETURN_IF_ERROR(read_pod(n_kv, "metadata count"));
    if (n_kv > limits_.max_metadata_entries) {
        return Status::invalid_argument("gguf: " + std::to_string(n_kv) + " metadata entries exceed " +
                                        "max_metadata_entries (" + std::to_string(limits_.max_metadata_entries) + ")");
    }
    if (n_tensors > limits_.max_tensors) {
        return Status::invalid_argument("gguf: " + std::to_string(n_tensors) + " tensors exceed max_tensors (" +
                                        std::to_string(limits_.max_tensors) + ")");
    }

    // Metadata.
    std::unordered_set<std::string> keys;
    uint32_t alignment = kDefaultAlignment;
    for (uint64_t i = 0; i < n_kv; ++i) {
        std::string key;
        SLIPSTREAM_RETURN_IF_ERROR(read_string(key, "metadata key"));
        if (!keys.insert(key).second) return Status::invalid_argument("gguf: duplicate key " + quoted(key));
        uint32_t type = 0;
        SLIPSTREAM_RETURN_IF_ERROR(read_pod(type, "metadata value type"));
        GgufValue v;
        SLIPSTREAM_RETURN_IF_ERROR(read_value(type, v, key));
        if (key == "general.alignment") {
            const auto* a = std::get_if<int64_t>(&v.value);
            if (a == nullptr || *a <= 0 || *a > (1 << 30) || (*a & (*a - 1)) != 0) {
                return Status::invalid_argument("gguf: general.alignment must be a power of two integer");
            }
            alignment = static_cast<uint32_t>(*a);
        }
        out.metadata_.emplace_back(std::move(key), std::move(v));
    }

    // Tensor infos.
    std::unordered_set<std::string> names;
    std::vector<uint64_t> offsets;
    out.tensors_.reserve(static_cast<std::size_t>(std::min<uint64_t>(n_tensors, (size_ - pos_) / 24)));
    for (uint64_t i = 0; i < n_tensors; ++i) {
        GgufTensor t;
        uint64_t offset = 0;
        SLIPSTREAM_RETURN_IF_ERROR(read_tensor_info(t, offset));
        if (!names.insert(t.name).second) return Status::invalid_argument("gguf: duplicate tensor " + quoted(t.name));
        out.tensors_.push_back(std::move(t));
        offsets.push_back(offset);
    }

    // Tensor data: starts at the next multiple of the alignment; each tensor lies wholly inside the file.
    if (n_tensors == 0) return Status::ok();
    const std::size_t data_start = (pos_ + alignment - 1) / alignment * alignment;
    if (data_start > size_) return Status::invalid_argument("gguf: tensor data section starts past the end of file");
    const std::size_t data_bytes = size_ - data_start;
    for (std::size_t i = 0; i < out.tensors_.size(); ++i) {
        GgufTensor& t = out.tensors_[i];
        if (offsets[i] % alignment != 0) {
            return Status::invalid_argument("gguf: tensor " + quoted(t.name) + ": offset " +
                                            std::to_string(offsets[i]) + " is not a multiple of the alignment (" +
                                            std::to_string(alignment) + ")");
        }
        if (offsets[i] > data_bytes || t.bytes > data_bytes - offsets[i]) {
            return Status::invalid_argument("gguf: tensor " + quoted(t.name) + " (" + std::to_string(t.bytes) +
                                            " bytes at data offset " + std::to_string(offsets[i]) +
                                            ") extends past the end of the file");
        }
        t.data = data_ + data_start + offsets[i];
    }
    return Status::ok();
}

}  // namespace slipstream::agent::infer
