"""The server's HTML pages, outside `/api/v1` and its OpenAPI document: what players, arbiters,
the room and the public read and fill in with a browser. Each page is made on the server from
a Jinja2 template (`rendering`), works without a script where it can (signing in, sending a
slip, reading results: plain forms and links), and updates itself live with a small script of
ours where it must (`static/`), through the same API and live stream as any program.

`install(app)` adds the pages, their static files and their error pages to the app.
"""

from __future__ import annotations

from fastapi import APIRouter, FastAPI


def install(app: FastAPI) -> None:
    """The pages' routes, `/static/`, and problems answered as pages outside the API."""
    from starlette.staticfiles import StaticFiles

    from pipelines.server.pages import console, display, home, play, replay, results, signin

    router = APIRouter(include_in_schema=False)
    for room in (home, signin, replay, play, console, display, results):
        router.include_router(room.router)
    app.include_router(router)
    app.mount(
        "/static",
        StaticFiles(packages=[("pipelines.server.pages", "static")]),
        name="static",
    )
