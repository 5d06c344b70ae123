// Fuzz target: any bytes as a chat template; when it parses, it renders with a small conversation (errors are fine,
// crashes, hangs and unbounded memory are not).
#include <cstdint>
#include <string_view>

#include "agent/infer/jinja/template.h"

using namespace slipstream::agent::infer::jinja;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto t = Template::parse(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!t.is_ok()) return 0;
    Object user, assistant, vars;
    user.set("role", Value::string("user"));
    user.set("content", Value::string(" Hi {{ x }} \xc3\xa9 "));
    assistant.set("role", Value::string("assistant"));
    assistant.set("content", Value::string("Hello."));
    vars.set("messages", Value::array({Value::object(user), Value::object(assistant), Value::object(user)}));
    vars.set("add_generation_prompt", Value::boolean(true));
    vars.set("bos_token", Value::string("<s>"));
    vars.set("eos_token", Value::string("</s>"));
    t->render(vars).status().ignore_error();
    return 0;
}
