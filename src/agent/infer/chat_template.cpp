// ChatTemplate: the interpreted Jinja template, family detection by marker strings and the per-family layouts.
#include "agent/infer/chat_template.h"

namespace slipstream::agent::infer {

namespace {

bool has(std::string_view s, std::string_view needle) {
    return s.find(needle) != std::string_view::npos;
}

std::string trim(std::string_view s) {
    const char* ws = " \t\n\r\f\v";
    const std::size_t b = s.find_first_not_of(ws);
    if (b == std::string_view::npos) return {};
    return std::string(s.substr(b, s.find_last_not_of(ws) - b + 1));
}

}  // namespace

ChatTemplate ChatTemplate::from_gguf(const GgufFile& file) {
    const std::optional<std::string_view> src = file.get_string("tokenizer.chat_template");
    if (!src) return ChatTemplate(Family::kChatml, "chatml", true);
    // The special tokens' text, with the tokenizers' defaults (SentencePiece: BOS 1, EOS 2, BOS added).
    const bool spm = file.get_string("tokenizer.ggml.model").value_or("") == "llama";
    const auto* tokens = file.get_string_array("tokenizer.ggml.tokens");
    auto token = [&](std::string_view key, int64_t fallback) {
        const int64_t id = file.get_int(key).value_or(fallback);
        return tokens != nullptr && id >= 0 && static_cast<std::size_t>(id) < tokens->size() ? (*tokens)[id]
                                                                                             : std::string();
    };
    std::string bos = token("tokenizer.ggml.bos_token_id", spm ? 1 : -1);
    std::string eos = token("tokenizer.ggml.eos_token_id", spm ? 2 : -1);
    const bool adds_bos = file.get_bool("tokenizer.ggml.add_bos_token").value_or(spm) && !bos.empty();
    return from_source(*src, std::move(bos), std::move(eos), adds_bos);
}

ChatTemplate ChatTemplate::from_source(std::string_view s, std::string bos_token, std::string eos_token,
                                       bool tokenizer_adds_bos) {
    ChatTemplate t = from_markers(s);
    auto parsed = jinja::Template::parse(s);
    if (parsed.is_ok() && parsed->uses("messages")) t.jinja_ = std::move(parsed).value();
    t.bos_token_ = std::move(bos_token);
    t.eos_token_ = std::move(eos_token);
    t.strip_bos_ = tokenizer_adds_bos;
    return t;
}

ChatTemplate ChatTemplate::from_markers(std::string_view s) {
    if (has(s, "<|im_start|>")) return ChatTemplate(Family::kChatml, "chatml", true);
    if (has(s, "<|start_header_id|>")) return ChatTemplate(Family::kLlama3, "llama3", true);
    if (has(s, "<start_of_turn>")) return ChatTemplate(Family::kGemma, "gemma", true);
    if ((has(s, "<|user|>") || has(s, "<|assistant|>")) && has(s, "<|end|>")) {
        return ChatTemplate(Family::kPhi3, "phi3", true);
    }
    if (has(s, "<|user|>")) {
        ChatTemplate t(Family::kZephyr, "zephyr", true);
        if (has(s, "<|endoftext|>")) t.zephyr_end_ = "<|endoftext|>";
        return t;
    }
    if (has(s, "[INST]")) {
        ChatTemplate t(Family::kLlama2, "llama2", true);
        t.llama2_system_ = has(s, "<<SYS>>");
        t.llama2_bos_inside_ = has(s, "bos_token + '[INST]") || has(s, "<s>[INST]");
        t.llama2_strip_ = has(s, "content.strip()") || has(s, "content | trim");
        return t;
    }
    return ChatTemplate(Family::kChatml, "chatml", s.empty());
}

ChatTemplate ChatTemplate::from_name(std::string_view name) {
    if (name == "chatml") return ChatTemplate(Family::kChatml, "chatml", true);
    if (name == "llama3") return ChatTemplate(Family::kLlama3, "llama3", true);
    if (name == "llama2") return ChatTemplate(Family::kLlama2, "llama2", true);
    if (name == "zephyr") return ChatTemplate(Family::kZephyr, "zephyr", true);
    if (name == "gemma") return ChatTemplate(Family::kGemma, "gemma", true);
    if (name == "phi3") return ChatTemplate(Family::kPhi3, "phi3", true);
    return ChatTemplate(Family::kChatml, "chatml", false);
}

std::string ChatTemplate::apply(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const {
    if (jinja_) {
        base::Result<std::string> out = apply_jinja(messages, add_generation_prompt);
        if (out.is_ok()) return std::move(out).value();
    }
    return apply_family(messages, add_generation_prompt);
}

base::Result<std::string> ChatTemplate::apply_jinja(const std::vector<ChatMessage>& messages,
                                                    bool add_generation_prompt) const {
    if (!jinja_) return base::Status::invalid_argument("the chat template is not interpreted");
    jinja::Array list;
    for (const auto& m : messages) {
        jinja::Object o;
        o.set("role", jinja::Value::string(m.role));
        o.set("content", jinja::Value::string(m.content));
        list.push_back(jinja::Value::object(std::move(o)));
    }
    jinja::Object vars;
    vars.set("messages", jinja::Value::array(std::move(list)));
    vars.set("add_generation_prompt", jinja::Value::boolean(add_generation_prompt));
    vars.set("bos_token", jinja::Value::string(bos_token_));
    vars.set("eos_token", jinja::Value::string(eos_token_));
    SLIPSTREAM_ASSIGN_OR_RETURN(std::string text, jinja_->render(vars));
    if (strip_bos_ && !bos_token_.empty() && text.starts_with(bos_token_)) text.erase(0, bos_token_.size());
    return text;
}

std::string ChatTemplate::apply_family(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const {
    std::string out;
    switch (kind_) {
        case Family::kChatml:
            for (const auto& m : messages)
                out += "<|im_start|>" + m.role + "\n" + m.content + "<|im_end|>\n";
            if (add_generation_prompt) out += "<|im_start|>assistant\n";
            return out;
        case Family::kLlama3:
            for (const auto& m : messages) {
                out += "<|start_header_id|>" + m.role + "<|end_header_id|>\n\n" + trim(m.content) + "<|eot_id|>";
            }
            if (add_generation_prompt) out += "<|start_header_id|>assistant<|end_header_id|>\n\n";
            return out;
        case Family::kZephyr:
            for (const auto& m : messages)
                out += "<|" + m.role + "|>\n" + m.content + zephyr_end_ + "\n";
            if (add_generation_prompt) out += "<|assistant|>\n";
            return out;
        case Family::kPhi3:
            for (const auto& m : messages)
                out += "<|" + m.role + "|>\n" + m.content + "<|end|>\n";
            if (add_generation_prompt) out += "<|assistant|>\n";
            return out;
        case Family::kGemma:
            return apply_gemma(messages, add_generation_prompt);
        case Family::kLlama2:
            return apply_llama2(messages);
    }
    return out;
}

// [INST] <<SYS>>\nsystem\n<</SYS>>\n\nuser [/INST] assistant</s><s>[INST] user2 [/INST]
std::string ChatTemplate::apply_llama2(const std::vector<ChatMessage>& messages) const {
    std::string out = "[INST] ";
    bool inside_turn = true;
    for (const auto& m : messages) {
        const std::string content = llama2_strip_ ? trim(m.content) : m.content;
        if (!inside_turn) {
            inside_turn = true;
            out += llama2_bos_inside_ ? "<s>[INST] " : "[INST] ";
        }
        if (m.role == "system") {
            // Without <<SYS>> support the system text still leads the first user message.
            out += llama2_system_ ? "<<SYS>>\n" + content + "\n<</SYS>>\n\n" : content + "\n";
        } else if (m.role == "user") {
            out += content + " [/INST]";
        } else {
            out += content + "</s>";
            inside_turn = false;
        }
    }
    return out;
}

// Gemma has no system role: system text joins the next user turn; "assistant" is "model".
std::string ChatTemplate::apply_gemma(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const {
    std::string out;
    std::string system;
    for (const auto& m : messages) {
        if (m.role == "system") {
            system += trim(m.content);
            continue;
        }
        const std::string role = m.role == "assistant" ? "model" : m.role;
        out += "<start_of_turn>" + role + "\n";
        if (!system.empty() && role != "model") {
            out += system + "\n\n";
            system.clear();
        }
        out += trim(m.content) + "<end_of_turn>\n";
    }
    if (add_generation_prompt) out += "<start_of_turn>model\n";
    return out;
}

}  // namespace slipstream::agent::infer
