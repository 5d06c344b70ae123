// load_llama2c_model: karpathy's llama2.c legacy checkpoint (a 7-int header, then float32 tensors) to ModelWeights.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "agent/infer/model_loader.h"

namespace slipstream::agent::infer {

namespace {

using base::Result;
using base::Status;

constexpr int64_t kMaxSize = int64_t{1} << 20;  // bound on each header field before sizes are multiplied

struct Mapping {
    void* data = nullptr;
    std::size_t bytes = 0;
    ~Mapping() {
        if (data != nullptr) ::munmap(data, bytes);
    }
};

Result<std::shared_ptr<Mapping>> map_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::from_errno("llama2.c: open " + path, errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return Status::from_errno("llama2.c: stat " + path, err);
    }
    auto m = std::make_shared<Mapping>();
    m->bytes = static_cast<std::size_t>(st.st_size);
    if (m->bytes < 28) {
        ::close(fd);
        return Status::invalid_argument("llama2.c: " + path + " is shorter than the 28-byte header");
    }
    void* p = ::mmap(nullptr, m->bytes, PROT_READ, MAP_PRIVATE, fd, 0);
    const int err = errno;
    ::close(fd);
    if (p == MAP_FAILED) return Status::from_errno("llama2.c: mmap " + path, err);
    m->data = p;
    return m;
}

// Hands out consecutive float32 tensors from the mapping; sizes were checked against the file beforehand.
class Cursor {
  public:
    explicit Cursor(const float* p) : p_(p) {}
    const float* take(int64_t n) {
        const float* r = p_;
        p_ += n;
        return r;
    }
    WeightMatrix matrix(int64_t rows, int64_t cols) {
        return WeightMatrix{GgmlType::kF32, take(rows * cols), rows, cols};
    }
    std::vector<float> floats(int64_t n) {
        const float* p = take(n);
        return std::vector<float>(p, p + n);
    }

  private:
    const float* p_;
};

}  // namespace

Result<ModelWeights> load_llama2c_model(const std::string& path) {
    SLIPSTREAM_ASSIGN_OR_RETURN(std::shared_ptr<Mapping> map, map_file(path));
    int32_t h[7];
    std::memcpy(h, map->data, sizeof(h));
    for (int i = 0; i < 7; ++i) {
        const int64_t v = i == 5 ? (h[i] < 0 ? -int64_t{h[i]} : h[i]) : h[i];
        if (v <= 0 || v > kMaxSize) {
            return Status::invalid_argument("llama2.c: header field " + std::to_string(i) + " = " +
                                            std::to_string(h[i]) + " is out of range");
        }
    }
    ModelWeights w;
    ModelConfig& c = w.config;
    c.architecture = "llama";
    const std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    c.name = base.substr(0, base.rfind('.'));
    c.dim = h[0];
    c.ffn_dim = h[1];
    c.n_layers = h[2];
    c.n_heads = h[3];
    c.n_kv_heads = h[4];
    const bool shared = h[5] > 0;
    c.vocab_size = shared ? h[5] : -int64_t{h[5]};
    c.context_length = h[6];
    if (c.dim % c.n_heads != 0 || c.n_heads % c.n_kv_heads != 0 || (c.dim / c.n_heads) % 2 != 0) {
        return Status::invalid_argument("llama2.c: dim " + std::to_string(c.dim) + ", n_heads " +
                                        std::to_string(c.n_heads) + ", n_kv_heads " + std::to_string(c.n_kv_heads) +
                                        " do not divide into even heads");
    }
    c.head_dim = c.dim / c.n_heads;
    c.rope_neox = false;
    const int64_t kv_dim = c.n_kv_heads * c.head_dim;
    const int64_t L = c.n_layers;

    // Sizes in floats, in file order. Each factor is at most 2^20: the total fits in 128 bits.
    using Wide = __int128;
    const Wide per_layer =
        Wide{2} * c.dim + Wide{2} * c.dim * c.dim + Wide{2} * kv_dim * c.dim + Wide{3} * c.ffn_dim * c.dim;
    const int64_t rope_tables = c.context_length * c.head_dim;  // freq_cis_real + freq_cis_imag
    Wide floats = Wide{c.vocab_size} * c.dim * (shared ? 1 : 2) + per_layer * L + c.dim + rope_tables;
    const Wide need = floats * 4 + 28;
    if (need > static_cast<Wide>(map->bytes)) {
        return Status::invalid_argument(
            "llama2.c: " + path + " has " + std::to_string(map->bytes) + " bytes; the header describes " +
            (need > static_cast<Wide>(UINT64_MAX) ? std::string("over 2^64")
                                                  : std::to_string(static_cast<uint64_t>(need))));
    }

    Cursor cur(reinterpret_cast<const float*>(static_cast<const uint8_t*>(map->data) + 28));
    w.token_embedding = cur.matrix(c.vocab_size, c.dim);
    w.layers.resize(static_cast<std::size_t>(L));
    for (auto& l : w.layers)
        l.attn_norm = cur.floats(c.dim);
    for (auto& l : w.layers)
        l.wq = cur.matrix(c.dim, c.dim);
    for (auto& l : w.layers)
        l.wk = cur.matrix(kv_dim, c.dim);
    for (auto& l : w.layers)
        l.wv = cur.matrix(kv_dim, c.dim);
    for (auto& l : w.layers)
        l.wo = cur.matrix(c.dim, c.dim);
    for (auto& l : w.layers)
        l.ffn_norm = cur.floats(c.dim);
    for (auto& l : w.layers)
        l.w_gate = cur.matrix(c.ffn_dim, c.dim);
    for (auto& l : w.layers)
        l.w_down = cur.matrix(c.dim, c.ffn_dim);
    for (auto& l : w.layers)
        l.w_up = cur.matrix(c.ffn_dim, c.dim);
    w.output_norm = cur.floats(c.dim);
    cur.take(rope_tables);
    w.output = shared ? w.token_embedding : cur.matrix(c.vocab_size, c.dim);
    w.backing = std::move(map);
    return w;
}

}  // namespace slipstream::agent::infer
