// Tests: differential round trips against nghttp2's public HPACK API (our encoder -> its inflater, its deflater
// -> our decoder), comparing the fields, the never-indexed flag and the whole dynamic tables after each block.
#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "http/h2/hpack/hpack_decoder.h"
#include "http/h2/hpack/hpack_encoder.h"

namespace slipstream::http::h2 {
namespace {

struct Field {
    std::string name;
    std::string value;
    bool never = false;
    bool operator==(const Field&) const = default;
};
using Fields = std::vector<Field>;

std::ostream& operator<<(std::ostream& os, const Field& f) {
    return os << f.name << ": " << f.value << (f.never ? " (never)" : "");
}

std::string random_value(std::mt19937& rng) {
    std::string v(rng() % 12 == 0 ? rng() % 600 : rng() % 24, '\0');
    bool binary = rng() % 4 == 0;
    for (char& c : v)
        c = static_cast<char>(binary ? rng() % 256 : 'a' + rng() % 6);
    return v;
}

constexpr std::string_view kNames[] = {"content-type",  "date",     "server",  "x-request-id",    "set-cookie", "etag",
                                       "cache-control", "x-custom", "x-other", "accept-encoding", "age",        ""};

Fields random_fields(std::mt19937& rng) {
    Fields f;
    for (int i = 0, n = static_cast<int>(rng() % 10); i < n; ++i) {
        std::string name(kNames[rng() % std::size(kNames)]);
        if (name.empty()) name = "x-" + std::to_string(rng() % 40);
        std::string value = rng() % 3 == 0 && name == "accept-encoding" ? "gzip, deflate" : random_value(rng);
        f.push_back({name, value, rng() % 5 == 0});
    }
    return f;
}

std::vector<std::tuple<std::string, std::string>> nghttp2_table(const nghttp2_nv* (*get)(void*, std::size_t), void* hd,
                                                                std::size_t entries) {
    std::vector<std::tuple<std::string, std::string>> t;
    for (std::size_t i = 62; i <= entries; ++i) {
        const nghttp2_nv* nv = get(hd, i);
        t.emplace_back(std::string(reinterpret_cast<const char*>(nv->name), nv->namelen),
                       std::string(reinterpret_cast<const char*>(nv->value), nv->valuelen));
    }
    return t;
}

std::vector<std::tuple<std::string, std::string>> our_table(const HpackDynamicTable& t) {
    std::vector<std::tuple<std::string, std::string>> out;
    for (std::size_t i = 0; i < t.count(); ++i)
        out.emplace_back(std::string(t.name(i)), std::string(t.value(i)));
    return out;
}

TEST(HpackNghttp2, OurEncoderToNghttp2Inflater) {
    std::mt19937 rng(7541);
    for (std::uint32_t cap : {4096u, 256u, 0u, 16384u}) {
        nghttp2_hd_inflater* inflater = nullptr;
        ASSERT_EQ(nghttp2_hd_inflate_new(&inflater), 0);
        HpackEncoder encoder(cap);
        for (int block = 0; block < 1500; ++block) {
            if (rng() % 40 == 0) {
                std::uint32_t setting = std::vector<std::uint32_t>{0, 100, 256, 1000, 4096, 65536}[rng() % 6];
                encoder.set_peer_table_size(setting);
                ASSERT_EQ(nghttp2_hd_inflate_change_table_size(inflater, setting), 0);
            }
            std::string out;
            encoder.begin_block(out);
            int code = rng() % 2 ? 200 : 100 + static_cast<int>(rng() % 500);
            encoder.status(out, code);
            Fields sent = {{":status", std::to_string(code)}};
            for (Field& f : random_fields(rng)) {
                HpackIndexing how = f.never ? HpackIndexing::kNever
                                            : (rng() % 2 ? HpackIndexing::kIncremental : HpackIndexing::kWithout);
                encoder.field(out, f.name, f.value, how);
                sent.push_back(f);
            }
            Fields got;
            const auto* in = reinterpret_cast<const std::uint8_t*>(out.data());
            std::size_t left = out.size();
            for (;;) {
                nghttp2_nv nv;
                int flags = 0;
                ssize_t n = nghttp2_hd_inflate_hd2(inflater, &nv, &flags, in, left, 1);
                ASSERT_GE(n, 0) << "block " << block;
                in += n;
                left -= static_cast<std::size_t>(n);
                if (flags & NGHTTP2_HD_INFLATE_EMIT) {
                    got.push_back({std::string(reinterpret_cast<const char*>(nv.name), nv.namelen),
                                   std::string(reinterpret_cast<const char*>(nv.value), nv.valuelen),
                                   (nv.flags & NGHTTP2_NV_FLAG_NO_INDEX) != 0});
                }
                if (flags & NGHTTP2_HD_INFLATE_FINAL) break;
            }
            nghttp2_hd_inflate_end_headers(inflater);
            ASSERT_EQ(got, sent) << "cap " << cap << " block " << block;
            ASSERT_EQ(nghttp2_hd_inflate_get_dynamic_table_size(inflater), encoder.table().size());
            ASSERT_EQ(nghttp2_hd_inflate_get_max_dynamic_table_size(inflater), encoder.table().capacity());
            auto get = [](void* hd, std::size_t i) {
                return nghttp2_hd_inflate_get_table_entry(static_cast<nghttp2_hd_inflater*>(hd), i);
            };
            ASSERT_EQ(nghttp2_table(get, inflater, nghttp2_hd_inflate_get_num_table_entries(inflater)),
                      our_table(encoder.table()));
        }
        nghttp2_hd_inflate_del(inflater);
    }
}

TEST(HpackNghttp2, Nghttp2DeflaterToOurDecoder) {
    std::mt19937 rng(9113);
    for (std::size_t deflate_max : {4096u, 256u, 0u, 1024u}) {
        nghttp2_hd_deflater* deflater = nullptr;
        ASSERT_EQ(nghttp2_hd_deflate_new(&deflater, deflate_max), 0);
        HpackDecoder decoder(4096);
        std::vector<std::uint8_t> buf;
        for (int block = 0; block < 1500; ++block) {
            if (rng() % 40 == 0) {
                ASSERT_EQ(
                    nghttp2_hd_deflate_change_table_size(deflater, std::vector<std::size_t>{0, 100, 4096}[rng() % 3]),
                    0);
            }
            Fields sent = random_fields(rng);
            std::vector<nghttp2_nv> nva;
            for (Field& f : sent) {
                nva.push_back({reinterpret_cast<std::uint8_t*>(f.name.data()),
                               reinterpret_cast<std::uint8_t*>(f.value.data()), f.name.size(), f.value.size(),
                               static_cast<std::uint8_t>(f.never ? NGHTTP2_NV_FLAG_NO_INDEX : NGHTTP2_NV_FLAG_NONE)});
            }
            buf.resize(nghttp2_hd_deflate_bound(deflater, nva.data(), nva.size()));
            ssize_t n = nghttp2_hd_deflate_hd(deflater, buf.data(), buf.size(), nva.data(), nva.size());
            ASSERT_GE(n, 0);
            struct Sink final : HpackFieldSink {
                bool on_field(std::string_view name, std::string_view value) override {
                    got.push_back({std::string(name), std::string(value)});
                    return true;
                }
                Fields got;
            } sink;
            std::string_view block_bytes(reinterpret_cast<const char*>(buf.data()), static_cast<std::size_t>(n));
            ASSERT_EQ(decoder.decode(block_bytes, sink), HpackStatus::kOk) << "block " << block;
            for (Field& f : sent)
                f.never = false;  // the sink does not see the representation
            ASSERT_EQ(sink.got, sent) << "max " << deflate_max << " block " << block;
            ASSERT_EQ(nghttp2_hd_deflate_get_dynamic_table_size(deflater), decoder.table().size());
            auto get = [](void* hd, std::size_t i) {
                return nghttp2_hd_deflate_get_table_entry(static_cast<nghttp2_hd_deflater*>(hd), i);
            };
            ASSERT_EQ(nghttp2_table(get, deflater, nghttp2_hd_deflate_get_num_table_entries(deflater)),
                      our_table(decoder.table()));
        }
        nghttp2_hd_deflate_del(deflater);
    }
}

}  // namespace
}  // namespace slipstream::http::h2
