// GgufFile: maps a GGUF file read-only and answers metadata and tensor lookups.
#include "agent/infer/gguf_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "agent/infer/gguf_reader.h"

namespace slipstream::agent::infer {

int64_t GgufTensor::elements() const {
    int64_t n = 1;
    for (int64_t d : dims)
        n *= d;
    return n;
}

base::Result<std::unique_ptr<GgufFile>> GgufFile::open(const std::string& path, GgufLimits limits) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return base::Status::from_errno("gguf: open " + path, errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return base::Status::from_errno("gguf: stat " + path, err);
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size < 24) {
        ::close(fd);
        return base::Status::invalid_argument("gguf: " + path + ": " + std::to_string(size) +
                                              " bytes is too short for a GGUF header");
    }
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    const int map_err = errno;
    ::close(fd);
    if (map == MAP_FAILED) return base::Status::from_errno("gguf: mmap " + path, map_err);

    std::unique_ptr<GgufFile> file(new GgufFile());
    file->map_ = map;
    file->map_bytes_ = size;
    file->path_ = path;
    GgufReader reader(static_cast<const uint8_t*>(map), size, limits);
    base::Status st_parse = reader.parse(*file);
    if (!st_parse.is_ok()) return base::Status::invalid_argument(st_parse.message() + " (" + path + ")");
    return file;
}

GgufFile::~GgufFile() {
    if (map_ != nullptr) ::munmap(map_, map_bytes_);
}

const GgufValue* GgufFile::find(std::string_view key) const {
    for (const auto& [k, v] : metadata_) {
        if (k == key) return &v;
    }
    return nullptr;
}

std::optional<int64_t> GgufFile::get_int(std::string_view key) const {
    const GgufValue* v = find(key);
    if (v == nullptr) return std::nullopt;
    if (const auto* i = std::get_if<int64_t>(&v->value)) return *i;
    return std::nullopt;
}

std::optional<double> GgufFile::get_float(std::string_view key) const {
    const GgufValue* v = find(key);
    if (v == nullptr) return std::nullopt;
    if (const auto* d = std::get_if<double>(&v->value)) return *d;
    if (const auto* i = std::get_if<int64_t>(&v->value)) return static_cast<double>(*i);
    return std::nullopt;
}

std::optional<std::string_view> GgufFile::get_string(std::string_view key) const {
    const GgufValue* v = find(key);
    if (v == nullptr) return std::nullopt;
    if (const auto* s = std::get_if<std::string>(&v->value)) return std::string_view(*s);
    return std::nullopt;
}

std::optional<bool> GgufFile::get_bool(std::string_view key) const {
    const GgufValue* v = find(key);
    if (v == nullptr) return std::nullopt;
    if (const auto* b = std::get_if<bool>(&v->value)) return *b;
    return std::nullopt;
}

namespace {
template <typename T>
const std::vector<T>* array_of(const GgufValue* v) {
    if (v == nullptr) return nullptr;
    const auto* a = std::get_if<GgufValue::Array>(&v->value);
    return a == nullptr ? nullptr : std::get_if<std::vector<T>>(a);
}
}  // namespace

const std::vector<std::string>* GgufFile::get_string_array(std::string_view key) const {
    return array_of<std::string>(find(key));
}
const std::vector<double>* GgufFile::get_float_array(std::string_view key) const {
    return array_of<double>(find(key));
}
const std::vector<int64_t>* GgufFile::get_int_array(std::string_view key) const {
    return array_of<int64_t>(find(key));
}

const GgufTensor* GgufFile::tensor(std::string_view name) const {
    for (const auto& t : tensors_) {
        if (t.name == name) return &t;
    }
    return nullptr;
}

}  // namespace slipstream::agent::infer
