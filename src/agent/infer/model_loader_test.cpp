// Tests of load_gguf_model and load_llama2c_model: config from metadata, tensor views, and named shape errors.
#include "agent/infer/model_loader.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <numeric>

#include "agent/infer/gguf_test_writer.h"

namespace slipstream::agent::infer {
namespace {

using testing::GgufTestWriter;
using testing::TempFile;

// dim 8, 2 heads of 4, 1 kv head, ffn 16, vocab 10, 2 layers; f32 tensors filled with their index + offset.
struct TinyModel {
    std::string arch = "llama";
    std::map<std::string, std::vector<uint64_t>> shapes;  // overrides, by name
    std::vector<std::string> skip;
    std::function<void(GgufTestWriter&)> extra;
    bool output = true;
    uint32_t kv_heads = 1;

    std::string bytes() const {
        GgufTestWriter w;
        w.kv_str("general.architecture", arch);
        w.kv_str("general.name", "tiny");
        w.kv_u32(arch + ".embedding_length", 8);
        w.kv_u32(arch + ".block_count", 2);
        w.kv_u32(arch + ".attention.head_count", 2);
        w.kv_u32(arch + ".attention.head_count_kv", kv_heads);
        w.kv_u32(arch + ".feed_forward_length", 16);
        w.kv_u32(arch + ".context_length", 128);
        w.kv_f32(arch + ".attention.layer_norm_rms_epsilon", 1e-6f);
        w.kv_f32(arch + ".rope.freq_base", 500000.0f);
        if (extra) extra(w);
        float base = 0;
        auto add = [&](const std::string& name, std::vector<uint64_t> dims) {
            if (std::find(skip.begin(), skip.end(), name) != skip.end()) return;
            if (auto it = shapes.find(name); it != shapes.end()) dims = it->second;
            uint64_t n = 1;
            for (auto d : dims)
                n *= d;
            std::vector<float> v(n);
            std::iota(v.begin(), v.end(), base);
            base += 1000;
            w.f32_tensor(name, dims, v);
        };
        add("token_embd.weight", {8, 10});
        for (int l = 0; l < 2; ++l) {
            const std::string p = "blk." + std::to_string(l) + ".";
            add(p + "attn_norm.weight", {8});
            add(p + "attn_q.weight", {8, 8});
            add(p + "attn_k.weight", {8, 4});
            add(p + "attn_v.weight", {8, 4});
            add(p + "attn_output.weight", {8, 8});
            if (arch == "qwen2") {
                add(p + "attn_q.bias", {8});
                add(p + "attn_k.bias", {4});
                add(p + "attn_v.bias", {4});
            }
            add(p + "ffn_norm.weight", {8});
            add(p + "ffn_gate.weight", {8, 16});
            add(p + "ffn_up.weight", {8, 16});
            add(p + "ffn_down.weight", {16, 8});
        }
        add("output_norm.weight", {8});
        if (output) add("output.weight", {8, 10});
        return w.bytes();
    }
};

base::Result<ModelWeights> load(const std::string& bytes) {
    TempFile f(bytes);
    auto g = GgufFile::open(f.path());
    if (!g.is_ok()) return g.status();
    return load_gguf_model(std::shared_ptr<const GgufFile>(std::move(g).value()));
}

TEST(GgufModelLoader, LlamaConfigAndTensors) {
    auto w = load(TinyModel{}.bytes());
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    const ModelConfig& c = w->config;
    EXPECT_EQ(c.architecture, "llama");
    EXPECT_EQ(c.name, "tiny");
    EXPECT_EQ(c.vocab_size, 10);
    EXPECT_EQ(c.dim, 8);
    EXPECT_EQ(c.n_layers, 2);
    EXPECT_EQ(c.n_heads, 2);
    EXPECT_EQ(c.n_kv_heads, 1);
    EXPECT_EQ(c.head_dim, 4);
    EXPECT_EQ(c.ffn_dim, 16);
    EXPECT_EQ(c.context_length, 128);
    EXPECT_FLOAT_EQ(c.rms_eps, 1e-6f);
    EXPECT_EQ(c.rope_theta, 500000.0f);
    EXPECT_FALSE(c.rope_neox);
    EXPECT_EQ(c.rope_scaling, "none");
    EXPECT_TRUE(c.rope_freq_factors.empty());
    ASSERT_EQ(w->layers.size(), 2u);
    const LayerWeights& l1 = w->layers[1];
    EXPECT_EQ(l1.wk.rows, 4);
    EXPECT_EQ(l1.wk.cols, 8);
    EXPECT_EQ(l1.w_down.rows, 8);
    EXPECT_EQ(l1.w_down.cols, 16);
    EXPECT_EQ(l1.w_gate.rows, 16);
    // Tensor k of the file holds k*1000 + index: layer 1's attn_norm is the 11th tensor (embd, 9 of layer 0).
    EXPECT_EQ(l1.attn_norm[3], 10003.0f);
    EXPECT_EQ(static_cast<const float*>(l1.wq.data)[5], 11005.0f);
    EXPECT_EQ(reinterpret_cast<const float*>(l1.wq.row(1))[0], 11008.0f);
    EXPECT_TRUE(l1.bq.empty());
    EXPECT_EQ(w->output_norm[0], 19000.0f);
    EXPECT_NE(w->output.data, w->token_embedding.data);
    EXPECT_EQ(w->output.rows, 10);
    EXPECT_NE(w->backing, nullptr);
}

TEST(GgufModelLoader, TiedOutputIsTheEmbedding) {
    TinyModel m;
    m.output = false;
    auto w = load(m.bytes());
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    EXPECT_EQ(w->output.data, w->token_embedding.data);
    EXPECT_EQ(w->output.rows, 10);
}

TEST(GgufModelLoader, Qwen2HasBiasesAndNeoxRope) {
    TinyModel m;
    m.arch = "qwen2";
    auto w = load(m.bytes());
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    EXPECT_TRUE(w->config.rope_neox);
    EXPECT_EQ(w->layers[0].bq.size(), 8u);
    EXPECT_EQ(w->layers[0].bk.size(), 4u);
    EXPECT_EQ(w->layers[0].bv[3], 8003.0f);  // embd, attn_norm, q, k, v, o, bq, bk, bv: tensor 8

    m.skip = {"blk.1.attn_k.bias"};
    auto missing = load(m.bytes());
    ASSERT_FALSE(missing.is_ok());
    EXPECT_EQ(missing.status().message(), "gguf model: missing tensor blk.1.attn_k.bias");
}

TEST(GgufModelLoader, ConvertsHalfPrecisionNorms) {
    TinyModel m;
    m.skip = {"output_norm.weight"};
    m.extra = [](GgufTestWriter& w) {
        // f16: 1.0, -2.0, 0.5, 65504, smallest subnormal (2^-24), 0, -0, 3.0; bf16 via rope_freqs: 1.0, 8.0
        const uint16_t h[8] = {0x3c00, 0xc000, 0x3800, 0x7bff, 0x0001, 0x0000, 0x8000, 0x4200};
        w.tensor("output_norm.weight", 1, {8}, std::string(reinterpret_cast<const char*>(h), 16));
        const uint16_t b[2] = {0x3f80, 0x4100};
        w.tensor("rope_freqs.weight", 30, {2}, std::string(reinterpret_cast<const char*>(b), 4));
        w.kv_str("llama.rope.scaling.type", "linear");
        w.kv_f32("llama.rope.scaling.factor", 4.0f);
    };
    auto w = load(m.bytes());
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    EXPECT_EQ(w->output_norm,
              (std::vector<float>{1.0f, -2.0f, 0.5f, 65504.0f, 5.9604644775390625e-08f, 0.0f, -0.0f, 3.0f}));
    EXPECT_EQ(w->config.rope_freq_factors, (std::vector<float>{1.0f, 8.0f}));
    EXPECT_EQ(w->config.rope_scaling, "linear");
    EXPECT_EQ(w->config.rope_factor, 4.0f);
}

struct BadModelCase {
    const char* name;
    TinyModel model;
    const char* expected;
};

TEST(GgufModelLoader, NamesWhatIsWrong) {
    auto with = [](auto f) {
        TinyModel m;
        f(m);
        return m;
    };
    const std::vector<BadModelCase> cases = {
        {"arch", with([](TinyModel& m) { m.arch = "gemma"; }),
         "gguf model: architecture 'gemma' is not supported (llama, qwen2 are)"},
        {"missing", with([](TinyModel& m) { m.skip = {"blk.0.ffn_up.weight"}; }),
         "gguf model: missing tensor blk.0.ffn_up.weight"},
        {"shape", with([](TinyModel& m) {
             m.shapes["blk.1.attn_k.weight"] = {8, 8};
         }),
         "gguf model: tensor blk.1.attn_k.weight has shape [8 x 8], expected [4 x 8] (rows x cols)"},
        {"transposed", with([](TinyModel& m) {
             m.shapes["blk.0.ffn_down.weight"] = {8, 16};
         }),
         "gguf model: tensor blk.0.ffn_down.weight has shape [16 x 8], expected [8 x 16] (rows x cols)"},
        {"norm", with([](TinyModel& m) { m.shapes["blk.0.ffn_norm.weight"] = {7}; }),
         "gguf model: tensor blk.0.ffn_norm.weight has shape [7], expected [8]"},
        {"embd", with([](TinyModel& m) {
             m.shapes["token_embd.weight"] = {9, 10};
         }),
         "gguf model: tensor token_embd.weight has shape [10 x 9], expected [vocab x 8] (rows x cols)"},
        {"output rows", with([](TinyModel& m) {
             m.shapes["output.weight"] = {8, 11};
         }),
         "gguf model: tensor output.weight has shape [11 x 8], expected [10 x 8] (rows x cols)"},
        {"yarn",
         with([](TinyModel& m) { m.extra = [](GgufTestWriter& w) { w.kv_str("llama.rope.scaling.type", "yarn"); }; }),
         "gguf model: rope scaling 'yarn' is not supported"},
        {"gqa", with([](TinyModel& m) { m.kv_heads = 3; }),
         "gguf model: head_count 2 is not a multiple of head_count_kv 3"},
        {"zero heads", with([](TinyModel& m) { m.kv_heads = 0; }),
         "gguf model: llama.attention.head_count_kv = 0 is out of range"},
    };
    for (const auto& c : cases) {
        auto w = load(c.model.bytes());
        ASSERT_FALSE(w.is_ok()) << c.name;
        EXPECT_NE(w.status().message().find(c.expected), std::string::npos) << c.name << ": " << w.status().message();
    }
}

TEST(GgufModelLoader, MissingMetadataIsNamed) {
    GgufTestWriter w;
    w.kv_str("general.architecture", "llama");
    w.kv_u32("llama.embedding_length", 8);
    auto r = load(w.bytes());
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(r.status().message(), "gguf model: missing metadata key llama.block_count");
}

// A llama2.c checkpoint: header, then every float numbered by its position in the file.
std::string llama2c_bytes(int32_t vocab, int64_t truncate_floats = 0) {
    const int32_t h[7] = {8, 16, 2, 2, 1, vocab, 4};
    std::string out(reinterpret_cast<const char*>(h), 28);
    const int64_t dim = 8, hidden = 16, L = 2, kv = 4, seq = 4, head = 4, v = vocab < 0 ? -vocab : vocab;
    int64_t n = v * dim + L * (2 * dim + 2 * dim * dim + 2 * kv * dim + 3 * hidden * dim) + dim + seq * head;
    if (vocab < 0) n += v * dim;
    n -= truncate_floats;
    for (int64_t i = 0; i < n; ++i) {
        const float f = static_cast<float>(i);
        out.append(reinterpret_cast<const char*>(&f), 4);
    }
    return out;
}

TEST(Llama2cLoader, LayoutAndSharedClassifier) {
    TempFile f(llama2c_bytes(10), ".bin");
    auto w = load_llama2c_model(f.path());
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    const ModelConfig& c = w->config;
    EXPECT_EQ(c.dim, 8);
    EXPECT_EQ(c.ffn_dim, 16);
    EXPECT_EQ(c.n_layers, 2);
    EXPECT_EQ(c.n_heads, 2);
    EXPECT_EQ(c.n_kv_heads, 1);
    EXPECT_EQ(c.head_dim, 4);
    EXPECT_EQ(c.vocab_size, 10);
    EXPECT_EQ(c.context_length, 4);
    EXPECT_FALSE(c.rope_neox);
    auto first = [](const WeightMatrix& m) { return static_cast<const float*>(m.data)[0]; };
    // embedding 80 floats; rms_att 2x8; wq 2x64; wk 2x32; wv 2x32; wo 2x64; rms_ffn 2x8; w1, w2, w3 2x128 each.
    EXPECT_EQ(first(w->token_embedding), 0.0f);
    EXPECT_EQ(w->layers[1].attn_norm[0], 88.0f);
    EXPECT_EQ(first(w->layers[0].wq), 96.0f);
    EXPECT_EQ(first(w->layers[1].wq), 160.0f);
    EXPECT_EQ(first(w->layers[0].wk), 224.0f);
    EXPECT_EQ(w->layers[0].wk.rows, 4);
    EXPECT_EQ(first(w->layers[0].wv), 288.0f);
    EXPECT_EQ(first(w->layers[0].wo), 352.0f);
    EXPECT_EQ(w->layers[0].ffn_norm[0], 480.0f);
    EXPECT_EQ(first(w->layers[0].w_gate), 496.0f);
    EXPECT_EQ(first(w->layers[0].w_down), 752.0f);
    EXPECT_EQ(w->layers[0].w_down.cols, 16);
    EXPECT_EQ(first(w->layers[0].w_up), 1008.0f);
    EXPECT_EQ(w->output_norm[0], 1264.0f);
    EXPECT_EQ(w->output.data, w->token_embedding.data);
}

TEST(Llama2cLoader, UntiedClassifierFollowsTheRopeTables) {
    TempFile f(llama2c_bytes(-10), ".bin");
    auto w = load_llama2c_model(f.path());
    ASSERT_TRUE(w.is_ok()) << w.status().to_string();
    EXPECT_EQ(w->config.vocab_size, 10);
    EXPECT_EQ(static_cast<const float*>(w->output.data)[0], 1264.0f + 8 + 16);
}

TEST(Llama2cLoader, RejectsShortOrInconsistentFiles) {
    TempFile short_file(llama2c_bytes(10, 1), ".bin");
    auto w = load_llama2c_model(short_file.path());
    ASSERT_FALSE(w.is_ok());
    EXPECT_NE(w.status().message().find("bytes; the header describes 5180"), std::string::npos) << w.status().message();

    int32_t h[7] = {8, 16, 2, 3, 1, 10, 4};  // 8 is not a multiple of 3 heads
    TempFile bad_heads(std::string(reinterpret_cast<const char*>(h), 28) + std::string(8000, '\0'), ".bin");
    EXPECT_FALSE(load_llama2c_model(bad_heads.path()).is_ok());
    h[3] = 2;
    h[0] = -8;
    TempFile negative(std::string(reinterpret_cast<const char*>(h), 28), ".bin");
    auto n = load_llama2c_model(negative.path());
    ASSERT_FALSE(n.is_ok());
    EXPECT_EQ(n.status().message(), "llama2.c: header field 0 = -8 is out of range");
}

}  // namespace
}  // namespace slipstream::agent::infer
