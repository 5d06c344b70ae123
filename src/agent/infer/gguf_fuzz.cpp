// Fuzz target: any bytes as a GGUF file; when it opens, the model loader, tokenizer and chat template run on it.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <string>

#include "agent/infer/chat_template.h"
#include "agent/infer/gguf_file.h"
#include "agent/infer/model_loader.h"
#include "agent/infer/tokenizer.h"

using namespace slipstream::agent::infer;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const int fd = ::memfd_create("gguf_fuzz", MFD_CLOEXEC);
    if (fd < 0) return 0;
    if (size > 0 && ::write(fd, data, size) != static_cast<ssize_t>(size)) {
        ::close(fd);
        return 0;
    }
    GgufLimits limits;
    limits.max_array_elements = 1 << 16;
    auto file = GgufFile::open("/proc/self/fd/" + std::to_string(fd), limits);
    ::close(fd);
    if (!file.is_ok()) return 0;
    std::shared_ptr<const GgufFile> shared(std::move(file).value());
    auto weights = load_gguf_model(shared);
    if (weights.is_ok() && weights->layers.size() != static_cast<std::size_t>(weights->config.n_layers)) {
        __builtin_trap();
    }
    auto tok = Tokenizer::from_gguf(*shared);
    if (tok.is_ok()) {
        for (int32_t id : (*tok)->encode("Hello world's 123 <|im_end|> \xc3\xa9\xff", true, true)) {
            if (id < 0 || id >= (*tok)->vocab_size()) __builtin_trap();
            (*tok)->decode(id, true);
        }
    }
    ChatTemplate::from_gguf(*shared).apply({{"user", "hi"}}, true);
    return 0;
}
