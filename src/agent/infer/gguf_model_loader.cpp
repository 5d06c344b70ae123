// load_gguf_model: a llama or qwen2 GGUF file's metadata and tensors to ModelWeights, every shape checked.
#include <cstring>
#include <string>

#include "agent/infer/model_loader.h"

namespace slipstream::agent::infer {

namespace {

using base::Result;
using base::Status;

constexpr int64_t kMaxDim = int64_t{1} << 20;  // bound on any size read from metadata, before multiplying

float fp16_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ff;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000 | (mant << 13);  // inf / nan
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (mant << 13);
    } else if (mant == 0) {
        bits = sign;
    } else {  // subnormal: normalize
        exp = 113;
        while ((mant & 0x400) == 0) {
            mant <<= 1;
            --exp;
        }
        bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

float bf16_to_float(uint16_t h) {
    const uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

std::string shape(int64_t rows, int64_t cols) {
    return "[" + std::to_string(rows) + " x " + std::to_string(cols) + "]";
}

std::string dims_string(const GgufTensor& t) {
    std::string s = "[";
    for (std::size_t i = t.dims.size(); i-- > 0;) {
        s += std::to_string(t.dims[i]);
        if (i != 0) s += " x ";
    }
    return s + "]";
}

class Reader {
  public:
    explicit Reader(const GgufFile& f) : f_(f), arch_(f.get_string("general.architecture").value_or("")) {}

    const std::string& arch() const { return arch_; }

    Result<int64_t> size(const std::string& suffix, std::optional<int64_t> fallback = std::nullopt) const {
        const std::string key = arch_ + "." + suffix;
        std::optional<int64_t> v = f_.get_int(key);
        if (!v) v = fallback;
        if (!v) return Status::invalid_argument("gguf model: missing metadata key " + key);
        if (*v <= 0 || *v > kMaxDim) {
            return Status::invalid_argument("gguf model: " + key + " = " + std::to_string(*v) + " is out of range");
        }
        return *v;
    }

    float real(const std::string& suffix, float fallback) const {
        return static_cast<float>(f_.get_float(arch_ + "." + suffix).value_or(fallback));
    }

    Result<WeightMatrix> matrix(const std::string& name, int64_t rows, int64_t cols) const {
        const GgufTensor* t = f_.tensor(name);
        if (t == nullptr) return Status::invalid_argument("gguf model: missing tensor " + name);
        if (t->dims.size() != 2 || t->dims[0] != cols || t->dims[1] != rows) {
            return Status::invalid_argument("gguf model: tensor " + name + " has shape " + dims_string(*t) +
                                            ", expected " + shape(rows, cols) + " (rows x cols)");
        }
        return t->matrix();
    }

    // A 1-D norm or bias of n floats; an absent optional tensor is an empty vector.
    Result<std::vector<float>> floats(const std::string& name, int64_t n, bool required) const {
        const GgufTensor* t = f_.tensor(name);
        if (t == nullptr) {
            if (!required) return std::vector<float>{};
            return Status::invalid_argument("gguf model: missing tensor " + name);
        }
        if (t->dims.size() != 1 || t->dims[0] != n) {
            return Status::invalid_argument("gguf model: tensor " + name + " has shape " + dims_string(*t) +
                                            ", expected [" + std::to_string(n) + "]");
        }
        std::vector<float> out(static_cast<std::size_t>(n));
        const auto* p = static_cast<const uint8_t*>(t->data);
        for (std::size_t i = 0; i < out.size(); ++i) {
            uint16_t h;
            switch (t->type) {
                case GgmlType::kF32:
                    std::memcpy(&out[i], p + 4 * i, 4);
                    break;
                case GgmlType::kF16:
                    std::memcpy(&h, p + 2 * i, 2);
                    out[i] = fp16_to_float(h);
                    break;
                case GgmlType::kBF16:
                    std::memcpy(&h, p + 2 * i, 2);
                    out[i] = bf16_to_float(h);
                    break;
                default:
                    return Status::invalid_argument("gguf model: tensor " + name + " has type " +
                                                    std::string(ggml_type_name(static_cast<uint32_t>(t->type))) +
                                                    "; norms and biases must be f32, f16 or bf16");
            }
        }
        return out;
    }

  private:
    const GgufFile& f_;
    std::string arch_;
};

Status read_config(const Reader& r, const GgufFile& f, ModelConfig& c) {
    c.architecture = r.arch();
    c.name = std::string(f.get_string("general.name").value_or(""));
    if (c.name.empty()) {
        const std::string& p = f.path();
        std::string base = p.substr(p.find_last_of('/') == std::string::npos ? 0 : p.find_last_of('/') + 1);
        c.name = base.substr(0, base.rfind('.'));
    }
    SLIPSTREAM_ASSIGN_OR_RETURN(c.dim, r.size("embedding_length"));
    SLIPSTREAM_ASSIGN_OR_RETURN(c.n_layers, r.size("block_count"));
    SLIPSTREAM_ASSIGN_OR_RETURN(c.n_heads, r.size("attention.head_count"));
    SLIPSTREAM_ASSIGN_OR_RETURN(c.n_kv_heads, r.size("attention.head_count_kv", c.n_heads));
    SLIPSTREAM_ASSIGN_OR_RETURN(c.ffn_dim, r.size("feed_forward_length"));
    SLIPSTREAM_ASSIGN_OR_RETURN(c.context_length, r.size("context_length", 2048));
    if (c.dim % c.n_heads != 0 && !f.get_int(c.architecture + ".attention.key_length")) {
        return Status::invalid_argument("gguf model: embedding_length " + std::to_string(c.dim) +
                                        " is not a multiple of head_count " + std::to_string(c.n_heads));
    }
    SLIPSTREAM_ASSIGN_OR_RETURN(c.head_dim, r.size("attention.key_length", c.dim / c.n_heads));
    SLIPSTREAM_ASSIGN_OR_RETURN(int64_t value_length, r.size("attention.value_length", c.head_dim));
    SLIPSTREAM_ASSIGN_OR_RETURN(int64_t rope_dims, r.size("rope.dimension_count", c.head_dim));
    if (c.n_heads % c.n_kv_heads != 0) {
        return Status::invalid_argument("gguf model: head_count " + std::to_string(c.n_heads) +
                                        " is not a multiple of head_count_kv " + std::to_string(c.n_kv_heads));
    }
    if (value_length != c.head_dim) {
        return Status::invalid_argument("gguf model: attention.value_length " + std::to_string(value_length) +
                                        " differs from key_length " + std::to_string(c.head_dim));
    }
    if (rope_dims != c.head_dim || c.head_dim % 2 != 0) {
        return Status::invalid_argument("gguf model: rope.dimension_count " + std::to_string(rope_dims) +
                                        " must equal an even head size (" + std::to_string(c.head_dim) + ")");
    }
    c.rms_eps = r.real("attention.layer_norm_rms_epsilon", 1e-5f);
    c.rope_theta = r.real("rope.freq_base", 10000.0f);
    c.rope_neox = c.architecture == "qwen2";
    if (!(c.rms_eps > 0.0f) || !(c.rope_theta > 0.0f)) {
        return Status::invalid_argument("gguf model: rms epsilon and rope.freq_base must be positive");
    }

    // RoPE scaling.
    const std::string scaling(f.get_string(c.architecture + ".rope.scaling.type").value_or("none"));
    if (scaling == "yarn") return Status::invalid_argument("gguf model: rope scaling 'yarn' is not supported");
    if (scaling != "none" && scaling != "linear" && scaling != "llama3") {
        return Status::invalid_argument("gguf model: unknown rope scaling type '" + scaling + "'");
    }
    c.rope_scaling = scaling;
    c.rope_factor = r.real("rope.scaling.factor", 1.0f);
    if (!(c.rope_factor > 0.0f)) return Status::invalid_argument("gguf model: rope.scaling.factor must be positive");
    if (auto orig = f.get_int(c.architecture + ".rope.scaling.original_context_length")) {
        c.rope_original_context = *orig;
    }
    SLIPSTREAM_ASSIGN_OR_RETURN(c.rope_freq_factors, r.floats("rope_freqs.weight", c.head_dim / 2, false));
    return Status::ok();
}

Status read_layer(const Reader& r, const ModelConfig& c, int64_t i, LayerWeights& l) {
    const std::string p = "blk." + std::to_string(i) + ".";
    const int64_t q_dim = c.n_heads * c.head_dim;
    const int64_t kv_dim = c.n_kv_heads * c.head_dim;
    const bool biases = c.architecture == "qwen2";
    SLIPSTREAM_ASSIGN_OR_RETURN(l.attn_norm, r.floats(p + "attn_norm.weight", c.dim, true));
    SLIPSTREAM_ASSIGN_OR_RETURN(l.wq, r.matrix(p + "attn_q.weight", q_dim, c.dim));
    SLIPSTREAM_ASSIGN_OR_RETURN(l.wk, r.matrix(p + "attn_k.weight", kv_dim, c.dim));
    SLIPSTREAM_ASSIGN_OR_RETURN(l.wv, r.matrix(p + "attn_v.weight", kv_dim, c.dim));
    SLIPSTREAM_ASSIGN_OR_RETURN(l.wo, r.matrix(p + "attn_output.weight", c.dim, q_dim));
    SLIPSTREAM_ASSIGN_OR_RETURN(l.bq, r.floats(p + "attn_q.bias", q_dim, biases));
    SLIPSTREAM_ASSIGN_OR_RETURN(l.bk, r.floats(p + "attn_k.bias", kv_dim, biases));
    SLIPSTREAM_ASSIGN_OR_RETURN(l.bv, r.floats(p + "attn_v.bias", kv_dim, biases));
    SLIPSTREAM_ASSIGN_OR_RETURN(l.ffn_norm, r.floats(p + "ffn_norm.weight", c.dim, true));
    SLIPSTREAM_ASSIGN_OR_RETURN(l.w_gate, r.matrix(p + "ffn_gate.weight", c.ffn_dim, c.dim));
    SLIPSTREAM_ASSIGN_OR_RETURN(l.w_up, r.matrix(p + "ffn_up.weight", c.ffn_dim, c.dim));
    SLIPSTREAM_ASSIGN_OR_RETURN(l.w_down, r.matrix(p + "ffn_down.weight", c.dim, c.ffn_dim));
    return Status::ok();
}

}  // namespace

Result<ModelWeights> load_gguf_model(std::shared_ptr<const GgufFile> file) {
    if (file == nullptr) return Status::invalid_argument("gguf model: no file");
    const Reader r(*file);
    if (r.arch() != "llama" && r.arch() != "qwen2") {
        return Status::invalid_argument("gguf model: architecture '" + r.arch() +
                                        "' is not supported (llama, qwen2 are)");
    }
    ModelWeights w;
    ModelConfig& c = w.config;
    SLIPSTREAM_RETURN_IF_ERROR(read_config(r, *file, c));

    // Embedding first: its rows give the vocabulary size the other checks use.
    const GgufTensor* embd = file->tensor("token_embd.weight");
    if (embd == nullptr) return Status::invalid_argument("gguf model: missing tensor token_embd.weight");
    if (embd->dims.size() != 2 || embd->dims[0] != c.dim) {
        return Status::invalid_argument("gguf model: tensor token_embd.weight has shape " + dims_string(*embd) +
                                        ", expected [vocab x " + std::to_string(c.dim) + "] (rows x cols)");
    }
    c.vocab_size = embd->dims[1];
    if (auto v = file->get_int(c.architecture + ".vocab_size"); v && *v != c.vocab_size) {
        return Status::invalid_argument("gguf model: " + c.architecture + ".vocab_size " + std::to_string(*v) +
                                        " differs from token_embd.weight's " + std::to_string(c.vocab_size) + " rows");
    }
    w.token_embedding = embd->matrix();

    for (int64_t i = 0; i < c.n_layers; ++i) {
        SLIPSTREAM_RETURN_IF_ERROR(read_layer(r, c, i, w.layers.emplace_back()));
    }
    SLIPSTREAM_ASSIGN_OR_RETURN(w.output_norm, r.floats("output_norm.weight", c.dim, true));
    if (file->tensor("output.weight") != nullptr) {
        SLIPSTREAM_ASSIGN_OR_RETURN(w.output, r.matrix("output.weight", c.vocab_size, c.dim));
    } else {
        w.output = w.token_embedding;
    }
    w.backing = std::move(file);
    return w;
}

}  // namespace slipstream::agent::infer
