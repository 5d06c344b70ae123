// Tests of ChatTemplate: interpreted Jinja with its fallback, family detection from markers, and the exact prompt
// each family renders.
#include "agent/infer/chat_template.h"

#include <gtest/gtest.h>

#include "agent/infer/gguf_test_writer.h"

namespace slipstream::agent::infer {
namespace {

const std::vector<ChatMessage> kChat = {
    {"system", "Be brief."}, {"user", " Hi "}, {"assistant", "Hello."}, {"user", "Bye"}};

TEST(ChatTemplate, DetectsFamiliesByMarkers) {
    EXPECT_EQ(ChatTemplate::from_source("{{'<|im_start|>' + message['role']}}").family(), "chatml");
    EXPECT_EQ(ChatTemplate::from_source("{{'<|start_header_id|>' + role + '<|end_header_id|>'}}").family(), "llama3");
    EXPECT_EQ(ChatTemplate::from_source("{{ bos_token + '[INST] ' + content + ' [/INST]' }}").family(), "llama2");
    EXPECT_EQ(ChatTemplate::from_source("{{ '<|user|>\\n' + message['content'] + eos_token }}").family(), "zephyr");
    EXPECT_EQ(ChatTemplate::from_source("{{'<start_of_turn>' + role}}").family(), "gemma");
    EXPECT_EQ(ChatTemplate::from_source("{{'<|user|>' + message['content'] + '<|end|>'}}").family(), "phi3");
    const ChatTemplate unknown = ChatTemplate::from_source("{{ message | tojson }}");
    EXPECT_EQ(unknown.family(), "chatml");
    EXPECT_FALSE(unknown.matched());
    const ChatTemplate broken = ChatTemplate::from_source("{% for messages %}");
    EXPECT_EQ(broken.family(), "chatml");
    EXPECT_FALSE(broken.matched());
    EXPECT_TRUE(ChatTemplate::from_name("gemma").matched());
    EXPECT_FALSE(ChatTemplate::from_name("alpaca").matched());
}

TEST(ChatTemplate, Chatml) {
    EXPECT_EQ(ChatTemplate::from_name("chatml").apply(kChat, true),
              "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\n Hi <|im_end|>\n"
              "<|im_start|>assistant\nHello.<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n<|im_start|>assistant\n");
    EXPECT_EQ(ChatTemplate::from_name("chatml").apply({{"user", "x"}}, false), "<|im_start|>user\nx<|im_end|>\n");
}

TEST(ChatTemplate, Llama3TrimsContent) {
    EXPECT_EQ(ChatTemplate::from_name("llama3").apply(kChat, true),
              "<|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
              "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
              "<|start_header_id|>assistant<|end_header_id|>\n\nHello.<|eot_id|>"
              "<|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|>"
              "<|start_header_id|>assistant<|end_header_id|>\n\n");
}

TEST(ChatTemplate, Llama2Variants) {
    EXPECT_EQ(ChatTemplate::from_name("llama2").apply(kChat, true),
              "[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi [/INST]Hello.</s><s>[INST] Bye [/INST]");
    // A source without <<SYS>>, bos inside history or strip: system text leads the user turn, content as given.
    const ChatTemplate plain = ChatTemplate::from_source("{{ '[INST] ' + message['content'] + ' [/INST]' }}");
    EXPECT_EQ(plain.apply(kChat, true), "[INST] Be brief.\n Hi  [/INST]Hello.</s>[INST] Bye [/INST]");
}

TEST(ChatTemplate, ZephyrPhi3Gemma) {
    EXPECT_EQ(ChatTemplate::from_name("zephyr").apply({{"system", "S"}, {"user", "U"}}, true),
              "<|system|>\nS</s>\n<|user|>\nU</s>\n<|assistant|>\n");
    EXPECT_EQ(ChatTemplate::from_source("'<|user|>' '<|endoftext|>'").apply({{"user", "U"}}, false),
              "<|user|>\nU<|endoftext|>\n");
    EXPECT_EQ(ChatTemplate::from_name("phi3").apply({{"system", "S"}, {"user", "U"}}, true),
              "<|system|>\nS<|end|>\n<|user|>\nU<|end|>\n<|assistant|>\n");
    EXPECT_EQ(ChatTemplate::from_name("gemma").apply(kChat, true),
              "<start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello.<end_of_turn>\n"
              "<start_of_turn>user\nBye<end_of_turn>\n<start_of_turn>model\n");
}

// A source that parses and reads `messages` is interpreted; the markers still name the fallback family.
TEST(ChatTemplate, InterpretsJinja) {
    const ChatTemplate t = ChatTemplate::from_source(
        "{{ bos_token }}{% for m in messages %}{% if m.role == 'system' %}{% set ns = m.content %}"
        "{% else %}[{{ m.role | upper }}] {{ m.content | trim }}{{ eos_token if m.role == 'assistant' }}\n"
        "{% endif %}{% endfor %}{% if add_generation_prompt %}[ASSISTANT]{% endif %}",
        "<s>", "</s>");
    EXPECT_EQ(t.family(), "jinja");
    EXPECT_EQ(t.fallback_family(), "chatml");
    EXPECT_TRUE(t.matched());
    // The tokenizer adds BOS, so the template's leading bos_token is dropped.
    EXPECT_EQ(t.apply(kChat, true), "[USER] Hi\n[ASSISTANT] Hello.</s>\n[USER] Bye\n[ASSISTANT]");
    EXPECT_EQ(t.apply({{"user", "x"}}, false), "[USER] x\n");
    const ChatTemplate keeps_bos = ChatTemplate::from_source("{{ bos_token }}{{ messages[0].content }}", "<s>", "</s>",
                                                             /*tokenizer_adds_bos=*/false);
    EXPECT_EQ(keeps_bos.apply({{"user", "x"}}, true), "<s>x");
}

// A request the template refuses (raise_exception) or cannot render is rendered by the fallback family.
TEST(ChatTemplate, FallsBackPerRequest) {
    const ChatTemplate t = ChatTemplate::from_source(
        "{% for m in messages %}{% if m.role == 'system' %}{{ raise_exception('no system role') }}{% endif %}"
        "<|im_start|>{{ m.role }}:{{ m.content }}<|im_end|>{% endfor %}");
    EXPECT_EQ(t.family(), "jinja");
    EXPECT_EQ(t.apply({{"user", "x"}}, false), "<|im_start|>user:x<|im_end|>");
    EXPECT_EQ(t.apply({{"system", "s"}}, false), "<|im_start|>system\ns<|im_end|>\n");
}

TEST(ChatTemplate, FromGgufReadsSpecialTokens) {
    testing::GgufTestWriter w;
    w.kv_str("general.architecture", "llama");
    w.kv_str("tokenizer.ggml.model", "llama");
    w.kv_str_array("tokenizer.ggml.tokens", {"<unk>", "<BOS>", "<EOS>"});
    w.kv_str("tokenizer.chat_template", "{{ bos_token }}{{ messages[0].content }}{{ eos_token }}");
    testing::TempFile f(w.bytes());
    auto g = GgufFile::open(f.path());
    ASSERT_TRUE(g.is_ok()) << g.status().to_string();
    // SentencePiece defaults: BOS 1 (added by the tokenizer, so dropped here), EOS 2.
    EXPECT_EQ(ChatTemplate::from_gguf(**g).apply({{"user", "x"}}, true), "x<EOS>");
    w.kv_u32("tokenizer.ggml.eos_token_id", 0);
    w.kv_bool("tokenizer.ggml.add_bos_token", false);
    testing::TempFile f2(w.bytes());
    auto g2 = GgufFile::open(f2.path());
    ASSERT_TRUE(g2.is_ok()) << g2.status().to_string();
    EXPECT_EQ(ChatTemplate::from_gguf(**g2).apply({{"user", "x"}}, true), "<BOS>x<unk>");
}

}  // namespace
}  // namespace slipstream::agent::infer
