// Tests of the tokenizers: SentencePiece merges by score and byte fallback, byte-level BPE by merge rank, the
// pre-tokenizer splits, special tokens, and llama2.c's tokenizer.bin.
#include "agent/infer/tokenizer.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "agent/infer/bpe_pretokenizer.h"
#include "agent/infer/gguf_test_writer.h"
#include "agent/infer/unicode_class.h"

namespace slipstream::agent::infer {
namespace {

using testing::GgufTestWriter;
using testing::TempFile;
using Ids = std::vector<int32_t>;

struct Loaded {
    std::unique_ptr<TempFile> file;
    std::unique_ptr<GgufFile> gguf;
    std::unique_ptr<Tokenizer> tok;
};

Loaded load(const GgufTestWriter& w) {
    Loaded l;
    l.file = std::make_unique<TempFile>(w.bytes());
    auto g = GgufFile::open(l.file->path());
    EXPECT_TRUE(g.is_ok()) << g.status().to_string();
    if (!g.is_ok()) return l;
    l.gguf = std::move(g).value();
    auto t = Tokenizer::from_gguf(*l.gguf);
    EXPECT_TRUE(t.is_ok()) << t.status().to_string();
    if (t.is_ok()) l.tok = std::move(t).value();
    return l;
}

// <unk> <s> </s>, 256 byte pieces (3..258), then pieces whose scores fix the merge order, then two specials.
GgufTestWriter spm_vocab() {
    std::vector<std::string> tokens = {"<unk>", "<s>", "</s>"};
    std::vector<float> scores = {0, 0, 0};
    std::vector<int32_t> types = {2, 3, 3};
    for (int b = 0; b < 256; ++b) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "<0x%02X>", b);
        tokens.push_back(buf);
        scores.push_back(0);
        types.push_back(6);
    }
    const std::vector<std::string> pieces = {"\u2581",      "h",       "e",  "l",         "o",    "w",
                                             "r",           "d",       "ll", "he",        "hell", "hello",
                                             "\u2581hello", "\u2581w", "or", "\u2581wor", "ld"};
    for (std::size_t i = 0; i < pieces.size(); ++i) {  // ids 259..275, scores -1..-17
        tokens.push_back(pieces[i]);
        scores.push_back(-1.0f - static_cast<float>(i));
        types.push_back(1);
    }
    tokens.push_back("<|user|>");  // 276
    scores.push_back(0);
    types.push_back(4);
    tokens.push_back("<|im_end|>");  // 277
    scores.push_back(0);
    types.push_back(3);
    GgufTestWriter w;
    w.kv_str("tokenizer.ggml.model", "llama");
    w.kv_str_array("tokenizer.ggml.tokens", tokens);
    w.kv_f32_array("tokenizer.ggml.scores", scores);
    w.kv_i32_array("tokenizer.ggml.token_type", types);
    w.kv_u32("tokenizer.ggml.bos_token_id", 1);
    w.kv_u32("tokenizer.ggml.eos_token_id", 2);
    return w;
}

TEST(SpmTokenizer, MergesHighestScoreFirst) {
    Loaded l = load(spm_vocab());
    ASSERT_NE(l.tok, nullptr);
    const Tokenizer& t = *l.tok;
    EXPECT_EQ(t.vocab_size(), 278);
    EXPECT_EQ(t.bos(), 1);
    EXPECT_EQ(t.eos(), 2);
    EXPECT_TRUE(t.add_bos_default());
    EXPECT_EQ(t.stop_tokens(), (Ids{2, 277}));
    // ll, he, hell, hello, ▁hello, ▁w, or, ▁wor, ld; "▁world" is not a piece.
    EXPECT_EQ(t.encode("hello world", true, false), (Ids{1, 271, 274, 275}));
    EXPECT_EQ(t.encode("", false, false), Ids{});
    EXPECT_EQ(t.decode(271), " hello");
    EXPECT_EQ(t.decode(275), "ld");
    EXPECT_EQ(t.decode(1), "");
    EXPECT_EQ(t.decode(1, true), "<s>");
    EXPECT_EQ(t.decode(9999), "");
}

TEST(SpmTokenizer, ByteFallbackAndSpecials) {
    Loaded l = load(spm_vocab());
    ASSERT_NE(l.tok, nullptr);
    const Tokenizer& t = *l.tok;
    // é is not a piece: its two UTF-8 bytes C3 A9 become <0xC3> <0xA9>.
    EXPECT_EQ(t.encode("h\xc3\xa9", false, false), (Ids{259, 260, 3 + 0xc3, 3 + 0xa9}));
    EXPECT_EQ(t.decode(3 + 0xc3), "\xc3");
    // User-defined pieces always split; each fragment after one gets the dummy-prefix space again.
    EXPECT_EQ(t.encode("he<|user|>he", false, false), (Ids{259, 268, 276, 259, 268}));
    EXPECT_EQ(t.decode(276), "<|user|>");
    // Control pieces only with parse_special.
    EXPECT_EQ(t.encode("he</s>", false, true), (Ids{259, 268, 2}));
    EXPECT_EQ(t.encode("</s>", false, false), (Ids{259, 3 + '<', 3 + '/', 3 + 's', 3 + '>'}));
}

TEST(SpmTokenizer, NoSpacePrefixWhenTheFileSaysSo) {
    GgufTestWriter w = spm_vocab();
    w.kv_bool("tokenizer.ggml.add_space_prefix", false);
    w.kv_bool("tokenizer.ggml.add_bos_token", false);
    Loaded l = load(w);
    ASSERT_NE(l.tok, nullptr);
    EXPECT_EQ(l.tok->encode("hello world", false, false), (Ids{270, 274, 275}));
    EXPECT_FALSE(l.tok->add_bos_default());
}

// 256 byte tokens (id = byte), merges in rank order, then three control tokens.
GgufTestWriter bpe_vocab(const std::string& pre) {
    uint32_t map[256];
    uint32_t next = 256;
    for (uint32_t b = 0; b < 256; ++b) {
        const bool printable = (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
        map[b] = printable ? b : next++;
    }
    std::vector<std::string> tokens;
    for (uint32_t b = 0; b < 256; ++b) {
        std::string s;
        detail::utf8_append(s, map[b]);
        tokens.push_back(s);
    }
    const std::vector<std::string> merges = {"h e", "l l",          "he ll",          "hell o", "\xc4\xa0 w",
                                             "o r", "\xc4\xa0w or", "\xc4\xa0 hello", "1 2"};
    for (const auto& m : merges)
        tokens.push_back(m.substr(0, m.find(' ')) + m.substr(m.find(' ') + 1));
    tokens.insert(tokens.end(), {"<|begin_of_text|>", "<|im_end|>", "<|eot_id|>"});  // 265, 266, 267
    std::vector<int32_t> types(tokens.size(), 1);
    types[265] = types[266] = types[267] = 3;
    GgufTestWriter w;
    w.kv_str("tokenizer.ggml.model", "gpt2");
    w.kv_str("tokenizer.ggml.pre", pre);
    w.kv_str_array("tokenizer.ggml.tokens", tokens);
    w.kv_i32_array("tokenizer.ggml.token_type", types);
    w.kv_str_array("tokenizer.ggml.merges", merges);
    w.kv_u32("tokenizer.ggml.bos_token_id", 265);
    w.kv_u32("tokenizer.ggml.eos_token_id", 266);
    return w;
}

TEST(BpeTokenizer, MergesByRank) {
    Loaded l = load(bpe_vocab("gpt2"));
    ASSERT_NE(l.tok, nullptr);
    const Tokenizer& t = *l.tok;
    EXPECT_EQ(t.vocab_size(), 268);
    EXPECT_FALSE(t.add_bos_default());
    EXPECT_EQ(t.stop_tokens(), (Ids{266, 267}));
    // "hello" | " world": Ġw (rank 4) before or (5), then Ġwor; l d stay bytes.
    EXPECT_EQ(t.encode("hello world", false, false), (Ids{259, 262, 'l', 'd'}));
    EXPECT_EQ(t.encode(" hello", true, false), (Ids{265, 263}));
    EXPECT_EQ(t.decode(262), " wor");
    EXPECT_EQ(t.decode(0xc3), "\xc3");
    EXPECT_EQ(t.encode("\xc3\xa9\n", false, false), (Ids{0xc3, 0xa9, '\n'}));
    EXPECT_EQ(t.decode('\n'), "\n");
    EXPECT_EQ(t.decode(267), "");
    EXPECT_EQ(t.decode(267, true), "<|eot_id|>");
    EXPECT_EQ(t.encode("hello<|im_end|>", false, true), (Ids{259, 266}));
    EXPECT_EQ(t.encode("<|im_end|>", false, false).size(), 10u);
}

TEST(BpeTokenizer, PreTokenizerDecidesDigitGroups) {
    Loaded gpt2 = load(bpe_vocab("gpt2"));
    Loaded qwen = load(bpe_vocab("qwen2"));
    ASSERT_NE(gpt2.tok, nullptr);
    ASSERT_NE(qwen.tok, nullptr);
    EXPECT_EQ(gpt2.tok->encode("123", false, false), (Ids{264, '3'}));
    EXPECT_EQ(qwen.tok->encode("123", false, false), (Ids{'1', '2', '3'}));  // one digit per piece: no "1 2" merge
}

TEST(BpeTokenizer, RejectsUnknownPreTokenizer) {
    TempFile f(bpe_vocab("falcon").bytes());
    auto g = GgufFile::open(f.path());
    ASSERT_TRUE(g.is_ok());
    auto t = Tokenizer::from_gguf(**g);
    ASSERT_FALSE(t.is_ok());
    EXPECT_EQ(t.status().message(), "tokenizer: pre-tokenizer 'falcon' is not supported (llama-bpe, qwen2, gpt2 are)");
}

using Pieces = std::vector<std::string_view>;

TEST(PreTokenizer, Gpt2) {
    EXPECT_EQ(
        detail::pre_tokenize("Hello world's  test\n\n123 \xc3\x84\xc3\x96\xc3\xbc!!", detail::PreTokenizer::kGpt2),
        (Pieces{"Hello", " world", "'s", " ", " test", "\n", "\n", "123", " \xc3\x84\xc3\x96\xc3\xbc", "!!"}));
    EXPECT_EQ(detail::pre_tokenize("I'M  ", detail::PreTokenizer::kGpt2), (Pieces{"I", "'", "M", "  "}));
}

TEST(PreTokenizer, Llama3AndQwen2) {
    const std::string_view text = "Hello world's  test\n\n12345 \xc3\x84\xc3\x96\xc3\xbc!!\n x\tI'M";
    EXPECT_EQ(detail::pre_tokenize(text, detail::PreTokenizer::kLlama3),
              (Pieces{"Hello", " world", "'s", " ", " test", "\n\n", "123", "45", " \xc3\x84\xc3\x96\xc3\xbc", "!!\n",
                      " x", "\tI", "'M"}));
    EXPECT_EQ(detail::pre_tokenize(text, detail::PreTokenizer::kQwen2),
              (Pieces{"Hello", " world", "'s", " ", " test", "\n\n", "1", "2", "3", "4", "5",
                      " \xc3\x84\xc3\x96\xc3\xbc", "!!\n", " x", "\tI", "'M"}));
    EXPECT_EQ(detail::pre_tokenize("a \n\n b", detail::PreTokenizer::kLlama3), (Pieces{"a", " \n\n", " b"}));
}

TEST(UnicodeClass, LettersNumbersSpaces) {
    EXPECT_TRUE(detail::is_letter(0xe9));     // é
    EXPECT_TRUE(detail::is_letter(0xdf));     // ß
    EXPECT_TRUE(detail::is_letter(0x4e2d));   // 中
    EXPECT_TRUE(detail::is_letter(0x3b1));    // α
    EXPECT_FALSE(detail::is_letter(0x2013));  // en dash
    EXPECT_FALSE(detail::is_letter(0x301));   // combining acute: a mark
    EXPECT_TRUE(detail::is_number(0x663));    // Arabic-Indic three
    EXPECT_TRUE(detail::is_number(0xb2));     // superscript two
    EXPECT_FALSE(detail::is_number('a'));
    EXPECT_TRUE(detail::is_whitespace(0xa0));
    EXPECT_TRUE(detail::is_whitespace(0x3000));
    EXPECT_FALSE(detail::is_whitespace(0x200b));  // zero-width space is not White_Space
    EXPECT_EQ(detail::utf8_next("\xe4\xb8\xad", 0).cp, 0x4e2du);
    EXPECT_EQ(detail::utf8_next("\xe4\xb8", 0).cp, 0xfffdu);  // truncated
    EXPECT_EQ(detail::utf8_next("\xc0\x80", 0).cp, 0xfffdu);  // overlong
}

// llama2.c tokenizer.bin: max length, then (score, length, bytes) per token.
std::string tokenizer_bin(const std::vector<std::pair<std::string, float>>& pieces) {
    std::string out;
    GgufTestWriter::put_u32(out, 16);
    for (const auto& [p, s] : pieces) {
        out.append(reinterpret_cast<const char*>(&s), 4);
        GgufTestWriter::put_u32(out, static_cast<uint32_t>(p.size()));
        out += p;
    }
    return out;
}

TEST(Llama2cTokenizer, SpacesArePlainAndBosIsOne) {
    std::vector<std::pair<std::string, float>> pieces = {{"<unk>", 0}, {"\n<s>\n", 0}, {"\n</s>\n", 0}};
    for (int b = 0; b < 256; ++b) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "<0x%02X>", b);
        pieces.push_back({buf, 0});
    }
    for (const char* p : {" ", "a", "b", " a", "ab"})
        pieces.push_back({p, -static_cast<float>(pieces.size())});
    // ids: " " 259, a 260, b 261, " a" 262 (score -262), ab 263 (-263)
    TempFile f(tokenizer_bin(pieces), ".bin");
    auto t = Tokenizer::from_llama2c(f.path(), 264);
    ASSERT_TRUE(t.is_ok()) << t.status().to_string();
    EXPECT_EQ((*t)->bos(), 1);
    EXPECT_EQ((*t)->eos(), 2);
    EXPECT_EQ((*t)->encode("ab", true, false), (Ids{1, 262, 261}));  // " a" outscores "ab"
    EXPECT_EQ((*t)->encode("a\x01", false, false), (Ids{262, 3 + 1}));
    EXPECT_EQ((*t)->decode(262), " a");
    EXPECT_EQ((*t)->decode(3 + 0x41), "A");
    EXPECT_EQ((*t)->decode(1), "");

    auto short_read = Tokenizer::from_llama2c(f.path(), 265);
    ASSERT_FALSE(short_read.is_ok());
    EXPECT_NE(short_read.status().message().find("truncated or malformed at token 264"), std::string::npos)
        << short_read.status().message();
}

TEST(Tokenizer, RejectsUnknownModelAndBadIds) {
    GgufTestWriter w;
    w.kv_str("tokenizer.ggml.model", "rwkv");
    TempFile f(w.bytes());
    auto g = GgufFile::open(f.path());
    ASSERT_TRUE(g.is_ok());
    EXPECT_EQ(Tokenizer::from_gguf(**g).status().message(),
              "tokenizer: model 'rwkv' is not supported (gpt2, llama are)");

    GgufTestWriter v = spm_vocab();
    v.kv_u32("tokenizer.ggml.eot_token_id", 5000);
    TempFile f2(v.bytes());
    auto g2 = GgufFile::open(f2.path());
    ASSERT_TRUE(g2.is_ok());
    EXPECT_EQ(Tokenizer::from_gguf(**g2).status().message(),
              "tokenizer: tokenizer.ggml.eot_token_id = 5000 is outside the vocabulary of 278");
}

}  // namespace
}  // namespace slipstream::agent::infer
