// slipstream-gguf-dump: prints a GGUF file's metadata, tensors, model config and (optionally) token ids and a
// rendered chat prompt as JSON.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <variant>

#include "agent/infer/chat_template.h"
#include "agent/infer/gguf_file.h"
#include "agent/infer/model_loader.h"
#include "agent/infer/tokenizer.h"
#include "base/arena.h"
#include "json/parse.h"
#include "json/writer.h"

namespace {

using namespace slipstream::agent::infer;

std::string json_string(std::string_view s) {
    std::string out;
    slipstream::json::Writer(out).string(s);  // as json.dumps escapes; UTF-8 passes through
    return out;
}

std::string json_number(double d) {
    if (!std::isfinite(d)) return "null";
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.17g", d);
    return buf;
}

std::string json_value(const GgufValue& v) {
    struct Visitor {
        std::string operator()(int64_t i) const { return std::to_string(i); }
        std::string operator()(double d) const { return json_number(d); }
        std::string operator()(bool b) const { return b ? "true" : "false"; }
        std::string operator()(const std::string& s) const { return json_string(s); }
        std::string operator()(const GgufValue::Array& a) const {
            return std::visit(
                [](const auto& vec) {
                    std::string out = "[";
                    for (std::size_t i = 0; i < vec.size(); ++i) {
                        if (i != 0) out += ",";
                        using E = std::decay_t<decltype(vec[i])>;
                        if constexpr (std::is_same_v<E, std::string>) {
                            out += json_string(vec[i]);
                        } else if constexpr (std::is_same_v<E, double>) {
                            out += json_number(vec[i]);
                        } else if constexpr (std::is_same_v<E, int64_t>) {
                            out += std::to_string(vec[i]);
                        } else {
                            out += vec[i] ? "true" : "false";
                        }
                    }
                    return out + "]";
                },
                a);
        }
    };
    return std::visit(Visitor{}, v.value);
}

// FNV-1a 64 of a tensor's bytes, so a test can check each view points at the right data.
uint64_t fnv1a(const void* data, std::size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    const auto* p = static_cast<const uint8_t*>(data);
    for (std::size_t i = 0; i < n; ++i)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

std::string model_json(const ModelConfig& c) {
    std::string f = "[";
    for (std::size_t i = 0; i < c.rope_freq_factors.size(); ++i) {
        f += (i ? "," : "") + json_number(c.rope_freq_factors[i]);
    }
    return "{\"architecture\":" + json_string(c.architecture) + ",\"name\":" + json_string(c.name) +
           ",\"vocab_size\":" + std::to_string(c.vocab_size) + ",\"dim\":" + std::to_string(c.dim) +
           ",\"n_layers\":" + std::to_string(c.n_layers) + ",\"n_heads\":" + std::to_string(c.n_heads) +
           ",\"n_kv_heads\":" + std::to_string(c.n_kv_heads) + ",\"head_dim\":" + std::to_string(c.head_dim) +
           ",\"ffn_dim\":" + std::to_string(c.ffn_dim) + ",\"context_length\":" + std::to_string(c.context_length) +
           ",\"rms_eps\":" + json_number(c.rms_eps) + ",\"rope_theta\":" + json_number(c.rope_theta) +
           ",\"rope_neox\":" + (c.rope_neox ? "true" : "false") + ",\"rope_scaling\":" + json_string(c.rope_scaling) +
           ",\"rope_freq_factors\":" + f + "]}";
}

// [{"role": ..., "content": ...}, ...] -> messages; false when the text is not that shape.
bool parse_messages(std::string_view text, std::vector<ChatMessage>& out) {
    slipstream::base::Arena arena;
    auto doc = slipstream::json::parse(text, arena);
    if (!doc.is_ok() || !(*doc)->is_array()) return false;
    for (const auto& m : (*doc)->items()) {
        const auto* role = m.is_object() ? m.find("role") : nullptr;
        const auto* content = m.is_object() ? m.find("content") : nullptr;
        if (role == nullptr || content == nullptr || !role->is_string() || !content->is_string()) return false;
        out.push_back({std::string(role->as_string()), std::string(content->as_string())});
    }
    return true;
}

int usage() {
    std::fprintf(stderr,
                 "usage: slipstream-gguf-dump FILE.gguf [--tokenize TEXT] [--parse-special] [--no-bos]\n"
                 "       [--chat ROLE=CONTENT ...] [--chat-json MESSAGES_JSON] [--no-generation-prompt]\n"
                 "--chat-json takes a JSON array of {\"role\", \"content\"} objects; \"chat\" is the prompt\n"
                 "ChatTemplate::apply renders, \"chat_jinja_error\" says why the interpreter did not render it.\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage();
    std::string path = argv[1];
    const char* text = nullptr;
    bool parse_special = false;
    bool bos = true;
    std::vector<ChatMessage> chat;
    bool generation_prompt = true;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--tokenize") == 0 && i + 1 < argc) {
            text = argv[++i];
        } else if (std::strcmp(argv[i], "--parse-special") == 0) {
            parse_special = true;
        } else if (std::strcmp(argv[i], "--no-bos") == 0) {
            bos = false;
        } else if (std::strcmp(argv[i], "--chat") == 0 && i + 1 < argc) {
            const std::string m = argv[++i];
            const std::size_t eq = m.find('=');
            if (eq == std::string::npos) return usage();
            chat.push_back({m.substr(0, eq), m.substr(eq + 1)});
        } else if (std::strcmp(argv[i], "--chat-json") == 0 && i + 1 < argc) {
            if (!parse_messages(argv[++i], chat)) return usage();
        } else if (std::strcmp(argv[i], "--no-generation-prompt") == 0) {
            generation_prompt = false;
        } else {
            return usage();
        }
    }
    auto opened = GgufFile::open(path);
    if (!opened.is_ok()) {
        std::printf("{\"error\":%s}\n", json_string(opened.status().message()).c_str());
        return 1;
    }
    std::shared_ptr<const GgufFile> file(std::move(opened).value());

    std::string out = "{\"version\":" + std::to_string(file->version()) + ",\"metadata\":{";
    bool first = true;
    for (const auto& [k, v] : file->metadata()) {
        out += (first ? "" : ",") + json_string(k) + ":" + json_value(v);
        first = false;
    }
    out += "},\"tensors\":[";
    first = true;
    for (const auto& t : file->tensors()) {
        std::string dims;
        for (std::size_t i = 0; i < t.dims.size(); ++i)
            dims += (i ? "," : "") + std::to_string(t.dims[i]);
        out += std::string(first ? "" : ",") + "{\"name\":" + json_string(t.name) +
               ",\"type\":" + json_string(ggml_type_name(static_cast<uint32_t>(t.type))) + ",\"dims\":[" + dims +
               "],\"bytes\":" + std::to_string(t.bytes) + ",\"fnv1a\":" + std::to_string(fnv1a(t.data, t.bytes)) + "}";
        first = false;
    }
    out += "]";
    auto model = load_gguf_model(file);
    out += model.is_ok() ? ",\"model\":" + model_json(model->config)
                         : ",\"model_error\":" + json_string(model.status().message());
    const ChatTemplate tmpl = ChatTemplate::from_gguf(*file);
    out += ",\"chat_family\":" + json_string(tmpl.family()) +
           ",\"chat_fallback_family\":" + json_string(tmpl.fallback_family());
    if (!chat.empty()) {
        out += ",\"chat\":" + json_string(tmpl.apply(chat, generation_prompt));
        auto interpreted = tmpl.apply_jinja(chat, generation_prompt);
        if (!interpreted.is_ok()) out += ",\"chat_jinja_error\":" + json_string(interpreted.status().message());
    }
    if (text != nullptr) {
        auto tok = Tokenizer::from_gguf(*file);
        if (!tok.is_ok()) {
            out += ",\"tokenizer_error\":" + json_string(tok.status().message());
        } else {
            std::string ids;
            for (int32_t id : (*tok)->encode(text, bos && (*tok)->add_bos_default(), parse_special)) {
                ids += (ids.empty() ? "" : ",") + std::to_string(id);
            }
            std::string stops;
            for (int32_t id : (*tok)->stop_tokens())
                stops += (stops.empty() ? "" : ",") + std::to_string(id);
            out += ",\"tokens\":[" + ids + "],\"bos\":" + std::to_string((*tok)->bos()) +
                   ",\"eos\":" + std::to_string((*tok)->eos()) + ",\"stop_tokens\":[" + stops + "]";
        }
    }
    out += "}\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
