"""Live: `GET /games/{game}/live`, what the public may see of a game as it happens, as
Server-Sent Events (filled in by the live stream's own module)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from fastapi import APIRouter

if TYPE_CHECKING:
    from pipelines.server.app import Server

router = APIRouter(tags=["live"])


@asynccontextmanager
async def broadcasting(server: Server) -> AsyncIterator[None]:
    yield
