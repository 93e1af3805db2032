"""`nlibuild serve`: the workbench's settings, and the invites it lists."""

from __future__ import annotations

import re
from datetime import timedelta
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field

from nlibuild.models.base import IN_PRESET, _Config

_LIFETIME = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([dhm])\s*$")
_UNIT_SECONDS = {"d": 86400, "h": 3600, "m": 60}


def parse_lifetime(text: str) -> timedelta:
    """`14d`, `12h`, `90m` -> a positive time span; a `ValueError` saying the form otherwise."""
    match = _LIFETIME.match(text)
    seconds = float(match[1]) * _UNIT_SECONDS[match[2]] if match else 0.0
    if seconds <= 0:
        raise ValueError(f"{text!r} is not a time span: give days, hours or minutes, e.g. 14d")
    return timedelta(seconds=seconds)


def _checked_lifetime(text: str) -> str:
    parse_lifetime(text)
    return text.strip()


Lifetime = Annotated[str, AfterValidator(_checked_lifetime)]
"""A time span as people write it: `14d`, `12h`, `90m`."""

DEFAULT_MAX_SECONDS_PER_ITEM = 600.0
"""`ServeConfig.max_seconds_per_item` unless a preset says otherwise; also the cap of a vote
recorded through the library without the server's settings (`record_vote`)."""


class Role(StrEnum):
    """Who an invite is for: a writer (elicitation batches), a validator (relabelling
    batches) or the lead (the progress page; need not be an annotator)."""

    WRITER = "writer"
    VALIDATOR = "validator"
    LEAD = "lead"


class ServeConfig(_Config):
    """`nlibuild serve` and its invites: where it listens and what it allows."""

    preset_section = "serve"

    host: Annotated[str, IN_PRESET] = Field(default="127.0.0.1", min_length=1)
    port: Annotated[int, IN_PRESET] = Field(default=8765, ge=1, le=65535)
    body_limit: Annotated[int, IN_PRESET] = Field(
        default=64 * 1024, ge=1024, description="bytes a request body may have (413 beyond)"
    )
    token_attempts_per_minute: Annotated[int, IN_PRESET] = Field(
        default=10,
        ge=1,
        description="failed logins a minute against one token prefix (from one client "
        "address, where no proxy is declared) before that prefix waits",
    )
    proxy_headers: Annotated[bool, IN_PRESET] = Field(
        default=False,
        description="behind a reverse proxy: take the client's address and scheme from "
        "X-Forwarded-For and X-Forwarded-Proto sent by `trusted_proxies`; off, those headers "
        "are ignored (anyone could send them)",
    )
    trusted_proxies: Annotated[str, IN_PRESET] = Field(
        default="127.0.0.1,::1",
        min_length=1,
        description="with proxy_headers: the proxies' addresses or networks, comma-separated",
    )
    session_lifetime: Annotated[Lifetime, IN_PRESET] = "12h"
    invite_lifetime: Annotated[Lifetime, IN_PRESET] = "14d"
    max_seconds_per_item: Annotated[float, IN_PRESET] = Field(
        default=DEFAULT_MAX_SECONDS_PER_ITEM,
        gt=0,
        description="the most seconds the relabel page records for one item: a page left "
        "open over a break would otherwise weigh on an annotator's median time",
    )


class InviteRecord(BaseModel):
    """An invite as `serve invites` lists it: no secret, only the token's first characters."""

    prefix: str
    person: str
    role: str = Field(description="the link's roles, comma-separated: writer,validator")
    created: str
    expires: str
    revoked: str | None
    status: str
