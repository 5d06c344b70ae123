// Tests of ChatTemplate: family detection from Jinja markers and the exact prompt each family renders.
#include "agent/infer/chat_template.h"

#include <gtest/gtest.h>

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
    const ChatTemplate unknown = ChatTemplate::from_source("{{ messages | tojson }}");
    EXPECT_EQ(unknown.family(), "chatml");
    EXPECT_FALSE(unknown.matched());
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

}  // namespace
}  // namespace slipstream::agent::infer
