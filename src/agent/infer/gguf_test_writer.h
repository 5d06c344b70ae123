// GgufTestWriter: builds GGUF files byte by byte for tests, including deliberately broken ones.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "agent/infer/ggml_type.h"

namespace slipstream::agent::infer::testing {

class GgufTestWriter {
  public:
    // Raw little-endian appends, for hand-made (hostile) layouts.
    static void put_u32(std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }
    static void put_u64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }
    static void put_str(std::string& out, const std::string& s) {
        put_u64(out, s.size());
        out += s;
    }

    void kv_raw(const std::string& key, uint32_t type, const std::string& value_bytes) {
        put_str(kv_, key);
        put_u32(kv_, type);
        kv_ += value_bytes;
        ++n_kv_;
    }
    void kv_u32(const std::string& key, uint32_t v) {
        std::string b;
        put_u32(b, v);
        kv_raw(key, 4, b);
    }
    void kv_i32(const std::string& key, int32_t v) { kv_raw(key, 5, std::string(reinterpret_cast<char*>(&v), 4)); }
    void kv_f32(const std::string& key, float v) { kv_raw(key, 6, std::string(reinterpret_cast<char*>(&v), 4)); }
    void kv_bool(const std::string& key, bool v) { kv_raw(key, 7, std::string(1, v ? '\1' : '\0')); }
    void kv_str(const std::string& key, const std::string& v) {
        std::string b;
        put_str(b, v);
        kv_raw(key, 8, b);
    }
    void kv_str_array(const std::string& key, const std::vector<std::string>& v) {
        std::string b;
        put_u32(b, 8);
        put_u64(b, v.size());
        for (const auto& s : v)
            put_str(b, s);
        kv_raw(key, 9, b);
    }
    void kv_f32_array(const std::string& key, const std::vector<float>& v) {
        std::string b;
        put_u32(b, 6);
        put_u64(b, v.size());
        b.append(reinterpret_cast<const char*>(v.data()), v.size() * 4);
        kv_raw(key, 9, b);
    }
    void kv_i32_array(const std::string& key, const std::vector<int32_t>& v) {
        std::string b;
        put_u32(b, 5);
        put_u64(b, v.size());
        b.append(reinterpret_cast<const char*>(v.data()), v.size() * 4);
        kv_raw(key, 9, b);
    }

    /// A tensor of `type` with dims (ne0 first) and the given data bytes, placed at the next aligned offset.
    void tensor(const std::string& name, uint32_t type, const std::vector<uint64_t>& dims, const std::string& data) {
        while (data_.size() % alignment_ != 0)
            data_.push_back('\0');
        put_str(ti_, name);
        put_u32(ti_, static_cast<uint32_t>(dims.size()));
        for (uint64_t d : dims)
            put_u64(ti_, d);
        put_u32(ti_, type);
        put_u64(ti_, data_.size());
        data_ += data;
        ++n_tensors_;
    }
    void f32_tensor(const std::string& name, const std::vector<uint64_t>& dims, const std::vector<float>& v) {
        tensor(name, 0, dims, std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4));
    }

    void set_alignment(uint32_t a) { alignment_ = a; }
    void set_version(uint32_t v) { version_ = v; }

    std::string bytes() const {
        std::string out = "GGUF";
        put_u32(out, version_);
        put_u64(out, n_tensors_);
        put_u64(out, n_kv_);
        out += kv_;
        out += ti_;
        if (n_tensors_ > 0) {
            while (out.size() % alignment_ != 0)
                out.push_back('\0');
            out += data_;
        }
        return out;
    }

  private:
    std::string kv_, ti_, data_;
    uint64_t n_kv_ = 0;
    uint64_t n_tensors_ = 0;
    uint32_t version_ = 3;
    uint32_t alignment_ = 32;
};

/// Writes bytes to a fresh file under the test temp directory and returns its path; removed by the destructor.
class TempFile {
  public:
    explicit TempFile(const std::string& bytes, const std::string& suffix = ".gguf") {
        const char* dir = std::getenv("TEST_TMPDIR");
        std::string tmpl = std::string(dir != nullptr ? dir : "/tmp") + "/infer_files_XXXXXX" + suffix;
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        const int fd = ::mkstemps(buf.data(), static_cast<int>(suffix.size()));
        path_ = buf.data();
        if (fd >= 0) {
            std::size_t off = 0;
            while (off < bytes.size()) {
                const ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
                if (n <= 0) break;
                off += static_cast<std::size_t>(n);
            }
            ::close(fd);
        }
    }
    ~TempFile() { std::remove(path_.c_str()); }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

}  // namespace slipstream::agent::infer::testing
