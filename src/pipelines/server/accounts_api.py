"""The accounts' routes, for admins and each account itself."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(tags=["accounts"])
