// Server: the public face of ServerCore (registration, handle_message, stop).
#include "agent/mcp/http_transport.h"
#include "agent/mcp/server_core.h"
#include "slipstream/mcp.h"

namespace slipstream::mcp {

Server::Server(ServerConfig config) : core_(std::make_unique<detail::ServerCore>(std::move(config))) {}
Server::~Server() = default;

Server& Server::tool(Tool tool) {
    core_->registry().add_tool(std::move(tool));
    return *this;
}

Server& Server::resource(Resource resource) {
    core_->registry().add_resource(std::move(resource));
    return *this;
}

Server& Server::resource_template(ResourceTemplate resource_template) {
    core_->registry().add_template(std::move(resource_template));
    return *this;
}

Server& Server::prompt(Prompt prompt) {
    core_->registry().add_prompt(std::move(prompt));
    return *this;
}

Server& Server::completion(CompletionHandler handler) {
    core_->registry().set_completion(std::move(handler));
    return *this;
}

bool Server::remove_tool(std::string_view name) {
    return core_->registry().remove_tool(name);
}

bool Server::remove_resource(std::string_view uri) {
    return core_->registry().remove_resource(uri);
}

bool Server::remove_prompt(std::string_view name) {
    return core_->registry().remove_prompt(name);
}

void Server::resource_updated(std::string_view uri) {
    core_->resource_updated(uri);
}

void Server::mount(App& app, std::string_view path) {
    auto transport = std::make_shared<detail::HttpTransport>(*core_);
    transport->mount(app, path);
    core_->keep(std::move(transport));
}

void Server::stop() {
    core_->stop();
}

void Server::handle_message(std::string_view message, std::function<void(std::string)> send) {
    auto session = core_->embedded_session();
    session->set_sink(send);
    core_->handle_text(session, message, std::make_shared<detail::FunctionChannel>(std::move(send)));
}

const ServerConfig& Server::config() const {
    return core_->config();
}

}  // namespace slipstream::mcp
