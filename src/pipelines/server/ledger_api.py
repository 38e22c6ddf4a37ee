"""The ledger's routes, for auditors: head, checkpoints, events, proofs."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(tags=["ledger"])
