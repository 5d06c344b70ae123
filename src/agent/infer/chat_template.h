// ChatTemplate: renders chat messages into a prompt by interpreting the model's Jinja template, or, when that fails,
// in one of the known families (chatml, llama3, llama2, zephyr, gemma, phi3) recognized by markers in the template.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/infer/gguf_file.h"
#include "agent/infer/jinja/template.h"

namespace slipstream::agent::infer {

struct ChatMessage {
    std::string role;  // "system", "user", "assistant" (others are written as given)
    std::string content;
};

/// A source that parses (jinja/: the subset chat templates use) and reads `messages` is interpreted as HF
/// transformers does (trim_blocks, lstrip_blocks; variables messages, add_generation_prompt, bos_token, eos_token);
/// when it fails for a request (an unsupported construct, raise_exception, a limit) that request is rendered by the
/// family the markers name. Each family renders as llama.cpp's built-in templates do (llama_chat_apply_template).
/// BOS is not written when the tokenizer adds it: a leading bos_token in the interpreted output is dropped. A template
/// whose markers match no family falls back to chatml with matched() false. Copies share the parsed template; apply()
/// may be called from any thread.
class ChatTemplate {
  public:
    /// From tokenizer.chat_template, with bos_token/eos_token from tokenizer.ggml.tokens and the bos/eos ids;
    /// chatml when the key is absent.
    static ChatTemplate from_gguf(const GgufFile& file);
    /// From a Jinja source (interpreted when it parses; the markers decide the fallback family). A leading
    /// `bos_token` in the output is dropped when `tokenizer_adds_bos`.
    static ChatTemplate from_source(std::string_view jinja, std::string bos_token = {}, std::string eos_token = {},
                                    bool tokenizer_adds_bos = true);
    /// "chatml", "llama3", "llama2", "zephyr", "gemma", "phi3"; others give chatml with matched() false.
    static ChatTemplate from_name(std::string_view name);

    /// The prompt for messages; with add_generation_prompt, ends with the opening of an assistant turn (llama2 has
    /// none: its prompt ends with " [/INST]" after a user message).
    std::string apply(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const;
    /// What apply() renders by interpreting the template, or why it cannot (not interpreted; the template's error),
    /// without the fallback.
    base::Result<std::string> apply_jinja(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const;
    /// "jinja" when the source is interpreted, else the family's name.
    std::string_view family() const { return jinja_ ? std::string_view("jinja") : family_; }
    /// The family used when interpreting fails (or the only one, for a template that is not interpreted).
    std::string_view fallback_family() const { return family_; }
    /// False when the family is chatml only because the source or name was not recognized (and it is not interpreted).
    bool matched() const { return matched_ || jinja_.has_value(); }

  private:
    enum class Family { kChatml, kLlama3, kLlama2, kZephyr, kGemma, kPhi3 };
    ChatTemplate(Family f, std::string_view name, bool matched) : kind_(f), family_(name), matched_(matched) {}
    static ChatTemplate from_markers(std::string_view source);

    std::string apply_llama2(const std::vector<ChatMessage>& messages) const;
    std::string apply_gemma(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const;
    std::string apply_family(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const;

    Family kind_;
    std::string_view family_;
    bool matched_;
    // llama2 variants, as the source shows them.
    bool llama2_system_ = true;      // "<<SYS>>" blocks
    bool llama2_bos_inside_ = true;  // "<s>[INST]" between turns
    bool llama2_strip_ = true;       // content.strip()
    std::string zephyr_end_ = "</s>";
    // The interpreted source, when it parses and reads `messages`.
    std::optional<jinja::Template> jinja_;
    std::string bos_token_;
    std::string eos_token_;
    bool strip_bos_ = true;
};

}  // namespace slipstream::agent::infer
