// slipstream-serve: the engine with only its built-in services (--model, --decide, --sessions) and no app routes.
#include "app/serve_main.h"

int main(int argc, char** argv, char** envp) {
    return slipstream::app::serve_main(argc, argv, envp, "slipstream-serve", [](slipstream::App&, const auto&) {});
}
