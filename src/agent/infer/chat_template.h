// ChatTemplate: renders chat messages into a prompt in one of the known families (chatml, llama3, llama2, zephyr,
// gemma, phi3), recognized by markers in the model's Jinja template; the Jinja itself is not interpreted.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "agent/infer/gguf_file.h"

namespace slipstream::agent::infer {

struct ChatMessage {
    std::string role;  // "system", "user", "assistant" (others are written as given)
    std::string content;
};

/// Each family renders as llama.cpp's built-in templates do (llama_chat_apply_template); BOS is not written (the
/// tokenizer adds it). A template whose markers match no family falls back to chatml with matched() false.
class ChatTemplate {
  public:
    /// From tokenizer.chat_template; chatml when the key is absent.
    static ChatTemplate from_gguf(const GgufFile& file);
    /// From a Jinja source (the markers decide the family).
    static ChatTemplate from_source(std::string_view jinja);
    /// "chatml", "llama3", "llama2", "zephyr", "gemma", "phi3"; others give chatml with matched() false.
    static ChatTemplate from_name(std::string_view name);

    /// The prompt for messages; with add_generation_prompt, ends with the opening of an assistant turn (llama2 has
    /// none: its prompt ends with " [/INST]" after a user message).
    std::string apply(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const;
    std::string_view family() const { return family_; }
    /// False when the family is chatml only because the source or name was not recognized.
    bool matched() const { return matched_; }

  private:
    enum class Family { kChatml, kLlama3, kLlama2, kZephyr, kGemma, kPhi3 };
    ChatTemplate(Family f, std::string_view name, bool matched) : kind_(f), family_(name), matched_(matched) {}

    std::string apply_llama2(const std::vector<ChatMessage>& messages) const;
    std::string apply_gemma(const std::vector<ChatMessage>& messages, bool add_generation_prompt) const;

    Family kind_;
    std::string_view family_;
    bool matched_;
    // llama2 variants, as the source shows them.
    bool llama2_system_ = true;      // "<<SYS>>" blocks
    bool llama2_bos_inside_ = true;  // "<s>[INST]" between turns
    bool llama2_strip_ = true;       // content.strip()
    std::string zephyr_end_ = "</s>";
};

}  // namespace slipstream::agent::infer
