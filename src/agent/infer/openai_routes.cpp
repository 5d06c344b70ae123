// The OpenAI-compatible routes: schema-checked bodies handed to CompletionJob, the model list.
#include "agent/infer/openai_routes.h"

#include "agent/infer/completion_job.h"
#include "agent/infer/infer_metrics.h"
#include "json/writer.h"

namespace slipstream::agent::infer {

namespace {

RouteSpec body_spec(const char* schema) {
    RouteSpec r;
    BodySpec b;
    b.schema_json = schema;
    r.body.push_back(std::move(b));
    r.forward_errors = true;  // answered in OpenAI's error shape
    return r;
}

void write_model(json::Writer& w, const InferenceEngine& engine) {
    w.begin_object();
    w.key("id"), w.string(engine.model_id());
    w.key("object"), w.string("model");
    w.key("created"), w.int64(engine.created());
    w.key("owned_by"), w.string("slipstream");
    w.key("max_model_len"), w.int64(engine.max_context());
    w.end_object();
}

OpenAIError model_not_found(std::string_view model) {
    return OpenAIError{404, "The model `" + std::string(model) + "` does not exist.", "invalid_request_error", "model",
                       "model_not_found"};
}

}  // namespace

void mount_openai_routes(App& app, std::shared_ptr<InferenceEngine> engine, OpenAIRoutesOptions options) {
    const std::string& p = options.prefix;
    std::shared_ptr<const InferMetrics> metrics = register_infer_metrics(app, engine);
    for (bool chat : {true, false}) {
        app.route_async(
            "POST", p + (chat ? "/chat/completions" : "/completions"),
            [engine, chat, metrics, limits = options.limits](Request& req, Responder responder) {
                JsonView forwarded = req.arguments().get(kForwardedErrorsKey);
                if (!forwarded.is_null()) {
                    responder.send(validation_error(forwarded.as_string()).response());
                    return;
                }
                auto parsed =
                    parse_completion_request(req.arguments().get("body"), chat, limits, engine->config().vocab_size);
                if (auto* error = std::get_if<OpenAIError>(&parsed)) {
                    responder.send(error->response());
                    return;
                }
                CompletionRequest& r = std::get<CompletionRequest>(parsed);
                if (!r.model.empty() && r.model != engine->model_id()) {
                    responder.send(model_not_found(r.model).response());
                    return;
                }
                CompletionJob::start(*engine, std::move(r), std::move(responder), metrics);
            },
            body_spec(chat ? chat_request_schema() : completion_request_schema()));
    }
    app.get(p + "/models", [engine](Request&) {
        std::string out;
        json::Writer w(out);
        w.begin_object();
        w.key("object"), w.string("list");
        w.key("data");
        w.begin_array();
        write_model(w, *engine);
        w.end_array();
        w.end_object();
        return Response::json(std::move(out));
    });
    app.get(p + "/models/{model:path}", [engine](Request& req) {
        const std::string_view model = req.path_param("model").value_or("");
        if (model != engine->model_id()) return model_not_found(model).response();
        std::string out;
        json::Writer w(out);
        write_model(w, *engine);
        return Response::json(std::move(out));
    });
}

}  // namespace slipstream::agent::infer
