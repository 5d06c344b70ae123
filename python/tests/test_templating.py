"""slipstream.templating.Jinja2Templates: TemplateResponse (new and old call forms), url_for in templates,
context processors, get_template / env, and the errors Starlette gives."""

# No `from __future__ import annotations`: handlers annotate with each framework's Request, a local name.
import pathlib
from typing import Any

import pytest

jinja2 = pytest.importorskip("jinja2")

import slipstream
from slipstream.templating import Jinja2Templates


@pytest.fixture
def templates_dir(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "item.html").write_text(
        "<a href=\"{{ url_for('read_item', item_id=item.id) }}\">{{ item.name }}</a> {{ request.url.path }}"
        "{% if user %} for {{ user }}{% endif %}")
    (tmp_path / "plain.txt").write_text("{{ word }}")
    (tmp_path / "bad.html").write_text("{{ url_for('no_such_route') }}")
    return tmp_path


def _app(templates: Jinja2Templates) -> slipstream.App:
    app = slipstream.App()

    @app.get("/items/{item_id}", name="read_item")
    def read_item(request: slipstream.Request, item_id: int) -> Any:
        return templates.TemplateResponse(request, "item.html", {"item": {"id": item_id, "name": "<b>x</b>"}})

    @app.get("/old/{item_id}")
    def old_form(request: slipstream.Request, item_id: int) -> Any:
        return templates.TemplateResponse("item.html", {"request": request, "item": {"id": item_id, "name": "o"}},
                                          status_code=201, headers={"x-old": "1"})

    @app.get("/text")
    def text(request: slipstream.Request) -> Any:
        return templates.TemplateResponse(request=request, name="plain.txt", context={"word": "hi"},
                                          media_type="text/plain")

    @app.get("/bad")
    def bad(request: slipstream.Request) -> Any:
        return templates.TemplateResponse(request, "bad.html")

    @app.get("/missing")
    def missing(request: slipstream.Request) -> Any:
        return templates.TemplateResponse(request, "nope.html")

    return app


def test_template_response_renders_with_url_for_and_autoescape(templates_dir: pathlib.Path) -> None:
    with slipstream.TestClient(_app(Jinja2Templates(directory=templates_dir))) as client:
        r = client.get("/items/7")
        assert (r.status_code, r.headers["content-type"]) == (200, "text/html; charset=utf-8")
        assert r.text == '<a href="http://testserver/items/7">&lt;b&gt;x&lt;/b&gt;</a> /items/7'
        r = client.get("/text")
        assert (r.headers["content-type"], r.text) == ("text/plain; charset=utf-8", "hi")


def test_the_client_response_names_the_template_and_its_context(templates_dir: pathlib.Path) -> None:
    fastapi = pytest.importorskip("fastapi")
    from fastapi.templating import Jinja2Templates as FastAPITemplates
    from fastapi.testclient import TestClient as FastAPIClient

    def build(fw: Any, templates_class: Any) -> Any:
        app = fw.FastAPI() if fw is fastapi else fw.App()
        templates = templates_class(directory=templates_dir)

        @app.get("/page/{word}")
        def page(request: fw.Request, word: str) -> Any:
            return templates.TemplateResponse(request, "plain.txt", {"word": word})

        @app.get("/json")
        def json() -> Any:
            return {"no": "template"}

        return app

    seen = []
    for client in (slipstream.TestClient(build(slipstream, Jinja2Templates)),
                   FastAPIClient(build(fastapi, FastAPITemplates))):
        with client:
            r = client.get("/page/tea")
            plain = client.get("/json")
            seen.append((r.template.name, r.context["word"], r.context["request"].url.path,
                         getattr(plain, "template", None)))
    assert seen[0] == seen[1] == ("plain.txt", "tea", "/page/tea", None)


def test_the_old_call_form_warns_and_renders(templates_dir: pathlib.Path) -> None:
    with slipstream.TestClient(_app(Jinja2Templates(directory=str(templates_dir)))) as client:
        with pytest.warns(DeprecationWarning, match="first parameter should be the `Request`"):
            r = client.get("/old/3")
        assert (r.status_code, r.headers["x-old"], r.text) == (201, "1", '<a href="http://testserver/items/3">o</a> /old/3')


def test_errors_in_templates_reach_the_test(templates_dir: pathlib.Path) -> None:
    app = _app(Jinja2Templates(directory=templates_dir))
    with slipstream.TestClient(app) as client:
        with pytest.raises(jinja2.TemplateNotFound, match="nope.html"):
            client.get("/missing")
        with pytest.raises(slipstream.routing.NoMatchFound):
            client.get("/bad")
    with slipstream.TestClient(app, raise_server_exceptions=False) as client:
        assert client.get("/missing").status_code == 500


def test_context_processors_env_and_get_template(templates_dir: pathlib.Path) -> None:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(templates_dir), autoescape=True)
    templates = Jinja2Templates(env=env, context_processors=[lambda request: {"user": request.headers["x-user"]}])
    assert templates.env is env and env.globals["url_for"] is not None
    assert templates.get_template("plain.txt").render(word="direct") == "direct"
    with slipstream.TestClient(_app(templates)) as client:
        assert client.get("/items/1", headers={"x-user": "ann"}).text.endswith(" for ann")


def test_constructor_and_call_errors(templates_dir: pathlib.Path) -> None:
    with pytest.raises(AssertionError, match="either 'directory' or 'env'"):
        Jinja2Templates()
    with pytest.raises(AssertionError, match="either 'directory' or 'env'"):
        Jinja2Templates(directory=templates_dir, env=jinja2.Environment())
    templates = Jinja2Templates(directory=templates_dir)
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match='context must include a "request" key'):
        templates.TemplateResponse("plain.txt", {"word": "x"})
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        templates.TemplateResponse(object(), "plain.txt", colour="red")


def test_the_same_pages_as_fastapi(templates_dir: pathlib.Path) -> None:
    fastapi = pytest.importorskip("fastapi")
    from fastapi.templating import Jinja2Templates as FastAPITemplates
    from fastapi.testclient import TestClient as FastAPIClient

    def build(fw: Any, templates_class: Any) -> Any:
        app = fw.FastAPI() if fw is fastapi else fw.App()
        templates = templates_class(directory=templates_dir)

        @app.get("/items/{item_id}", name="read_item")
        def read_item(request: fw.Request, item_id: int) -> Any:
            return templates.TemplateResponse(request, "item.html", {"item": {"id": item_id, "name": "&"}},
                                              headers={"x-page": "item"})

        return app

    with slipstream.TestClient(build(slipstream, Jinja2Templates)) as ours, \
            FastAPIClient(build(fastapi, FastAPITemplates)) as theirs:
        for url in ("/items/5", "/items/x"):
            a, b = ours.get(url), theirs.get(url)
            assert (a.status_code, a.headers["content-type"], a.headers.get("x-page"), a.content) == \
                (b.status_code, b.headers["content-type"], b.headers.get("x-page"), b.content)
        assert ours.get("/items/5").text == '<a href="http://testserver/items/5">&amp;</a> /items/5'
