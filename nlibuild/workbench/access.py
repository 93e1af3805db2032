"""Who may open the workbench: invites (personal links), their sessions, and the batches
a person may see. No web code here: `nlibuild serve`'s subcommands and nlibuild/web/ both
call it, and it reads and writes through queries/workbench_access.py.

A token is `secrets.token_urlsafe(32)` (256 random bits). The store keeps its first
`SELECTOR_LENGTH` characters, to find it and to name it in `serve invites`, and the SHA-256
of the whole token, which a login compares with `hmac.compare_digest`; the rest, 35
characters (about 209 bits), exists only in the link. Session IDs are random and stored as
hashes the same way; a session's CSRF token is derived from its ID, so it needs no column.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from nlibuild.errors import ConfigError
from nlibuild.models import ANNOTATOR_ID_PATTERN, InviteRecord, Role
from nlibuild.queries import workbench_access as records
from nlibuild.queries.batches import (
    BatchRow,
    batch_of_annotator,
    batches_of_annotator,
    batches_of_kind,
)
from nlibuild.store import Store

SELECTOR_LENGTH = 8
"""Characters of a token kept in clear: enough to find it among thousands (48 bits)."""

ANNOTATOR_ROLES = (Role.WRITER, Role.VALIDATOR)
"""Roles whose person must be an annotator of the store (the work is theirs)."""

BATCH_KIND_OF_ROLE = {Role.WRITER: "elicit", Role.VALIDATOR: "relabel"}
"""Which batches each role works on."""

ROLE_ORDER = (Role.WRITER, Role.VALIDATOR, Role.LEAD)
"""The one order roles are written in (`writer,validator`), as the store's CHECK lists them."""


def roles_text(roles: Iterable[Role]) -> str:
    """Roles as the store and `serve invites` write them: `writer,validator`."""
    given = set(roles)
    return ",".join(role.value for role in ROLE_ORDER if role in given)


def roles_of(text: str) -> tuple[Role, ...]:
    """The roles of a stored `role` value."""
    return tuple(Role(part) for part in text.split(","))


def now_utc() -> datetime:
    return datetime.now(UTC)


def stamp(moment: datetime) -> str:
    """The one text form of a time in the access tables (compared as text in SQL)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def sha256_hex(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Invite:
    """A new invite: the token is shown once, here, and never stored."""

    token: str
    person: str
    roles: tuple[Role, ...]
    expires: str


@dataclass(frozen=True)
class Person:
    """Whoever holds a live session."""

    name: str
    roles: tuple[Role, ...]
    token_pk: int

    @property
    def roles_text(self) -> str:
        return roles_text(self.roles)


@dataclass(frozen=True)
class InviteCheck:
    """What a personal link's token is: the person of a live invite, or why not."""

    person: Person | None
    refusal: str | None


def create_invite(
    store: Store, person: str, roles: Role | Iterable[Role], lifetime: timedelta
) -> Invite:
    """A new invite for `person` with one role or several (writer and validator together:
    one link for a person who does both): an annotator of the store for writers and
    validators; any ID (letters, digits, `_.@-`) for a lead, who need not be an annotator,
    and whose link is a lead's alone."""
    chosen = tuple(
        r for r in ROLE_ORDER if r in ({roles} if isinstance(roles, Role) else set(roles))
    )
    if not chosen:
        raise ConfigError("--role: name at least one role: writer, validator or lead")
    if Role.LEAD in chosen and len(chosen) > 1:
        raise ConfigError(
            f"--role {roles_text(chosen)}: a lead's link is a lead's alone; "
            "invite the person twice for lead and annotation work"
        )
    if not re.match(ANNOTATOR_ID_PATTERN, person):
        raise ConfigError(
            f"--annotator {person!r}: an ID is letters, digits, '_', '.', '@' and '-', "
            "starting with a letter or digit"
        )
    annotator_pk = records.annotator_key(store, person)
    if any(role in ANNOTATOR_ROLES for role in chosen) and annotator_pk is None:
        raise ConfigError(
            f"--annotator {person}: no annotator with this ID in {store.path}; "
            f"a {' and '.join(chosen)} must be one (e.g. named by `elicit create --writers` or "
            "`relabel create --annotators`): check the ID"
        )
    token = secrets.token_urlsafe(32)
    created = now_utc()
    expires = stamp(created + lifetime)
    records.insert_token(
        store,
        token[:SELECTOR_LENGTH],
        sha256_hex(token),
        person,
        annotator_pk,
        roles_text(chosen),
        stamp(created),
        expires,
    )
    return Invite(token, person, chosen, expires)


def _status(row: records.TokenRow, now: str) -> str:
    if row.revoked is not None:
        return "revoked"
    return "expired" if row.expires <= now else "active"


def list_invites(store: Store) -> list[InviteRecord]:
    """Every invite with its status (active, expired, revoked), no secret."""
    now = stamp(now_utc())
    return [
        InviteRecord(
            prefix=row.selector,
            person=row.person,
            role=row.role,
            created=row.created,
            expires=row.expires,
            revoked=row.revoked,
            status=_status(row, now),
        )
        for row in records.all_tokens(store)
    ]


def revoke_invites(store: Store, person: str | None, token_prefix: str | None) -> int:
    """Revoke every invite of `person`, or those whose token begins with `token_prefix`
    (at least `SELECTOR_LENGTH` characters); how many were still live. Their sessions end
    at once. Naming nothing that was ever invited is an error (a mistyped ID)."""
    if (person is None) == (token_prefix is None):
        raise ConfigError("name what to revoke: --annotator ID or --token-prefix PREFIX")
    rows = records.all_tokens(store)
    if token_prefix is not None:
        if len(token_prefix) < SELECTOR_LENGTH:
            raise ConfigError(
                f"--token-prefix {token_prefix!r}: give at least {SELECTOR_LENGTH} characters "
                "(as `serve invites` shows them)"
            )
        matched = [r for r in rows if token_prefix.startswith(r.selector)]
        # Characters beyond the selector cannot be checked without the token: say so.
        what = f"--token-prefix {token_prefix}"
    else:
        matched = [r for r in rows if r.person == person]
        what = f"--annotator {person}"
    if not matched:
        raise ConfigError(f"{what}: no invite matches; `nlibuild serve invites` lists them")
    live = [r.pk for r in matched if r.revoked is None]
    records.revoke_tokens(store, live, stamp(now_utc()))
    return len(live)


def check_invite(store: Store, token: str) -> InviteCheck:
    """Whose live invite a token from a personal link is (a read: a login that only
    continues a session, or asks first, writes nothing)."""
    digest = sha256_hex(token)
    found = [
        row
        for row in records.tokens_with_selector(store, token[:SELECTOR_LENGTH])
        if hmac.compare_digest(row.token_sha256, digest)
    ]
    if not found:
        return InviteCheck(None, "unknown")
    row = found[0]
    if row.revoked is not None:
        return InviteCheck(None, "revoked")
    if row.expires <= stamp(now_utc()):
        return InviteCheck(None, "expired")
    return InviteCheck(Person(row.person, roles_of(row.role), row.pk), None)


def start_session(store: Store, person: Person, session_lifetime: timedelta) -> str:
    """A new session of `person` (whose invite `check_invite` found live); its ID, for
    the cookie."""
    now = now_utc()
    session_id = secrets.token_urlsafe(32)
    records.insert_session(
        store, sha256_hex(session_id), person.token_pk, stamp(now), stamp(now + session_lifetime)
    )
    return session_id


def session_person(store: Store, session_id: str) -> Person | None:
    """The person of a live session (None: unknown, expired, or its invite revoked)."""
    row = records.live_session(store, sha256_hex(session_id), stamp(now_utc()))
    return Person(row.person, roles_of(row.role), row.token_pk) if row else None


def close_session(store: Store, session_id: str) -> None:
    records.delete_session(store, sha256_hex(session_id))


def csrf_token(session_id: str) -> str:
    """The session's CSRF token: a keyed hash of its ID, which only the cookie holds, so a
    page of another site can neither read nor compute it."""
    return hmac.new(session_id.encode("utf-8"), b"nlibuild-csrf", hashlib.sha256).hexdigest()


def csrf_matches(session_id: str, given: str | None) -> bool:
    """Whether `given` is the session's token. Compared as bytes: `compare_digest` raises
    on a str that is not ASCII, and a form can send any text (a 500, found by fuzzing)."""
    if given is None:
        return False
    sent = given.encode("utf-8", errors="surrogatepass")
    return hmac.compare_digest(csrf_token(session_id).encode("ascii"), sent)


def _kinds(person: Person) -> list[str]:
    return [BATCH_KIND_OF_ROLE[r] for r in person.roles if r in BATCH_KIND_OF_ROLE]


def own_batches(store: Store, person: Person) -> list[BatchRow]:
    """The batches this person works on: a writer's elicitation batches, a validator's
    relabelling batches (both, for a link with both roles); none for a lead."""
    return [b for kind in _kinds(person) for b in batches_of_annotator(store, person.name, kind)]


def own_batch(store: Store, person: Person, batch_id: str) -> BatchRow | None:
    """The batch if it is this person's to work on; None for anything else."""
    found = (batch_of_annotator(store, person.name, k, batch_id) for k in _kinds(person))
    return next((batch for batch in found if batch is not None), None)


def progress_per_batch(store: Store) -> list[BatchRow]:
    """Every elicitation and relabelling batch with its open and answered items."""
    return [b for kind in BATCH_KIND_OF_ROLE.values() for b in batches_of_kind(store, kind)]


def violation_counts(store: Store) -> list[records.ViolationCount]:
    """The violations the import checks found, per rule and severity."""
    return records.violations_per_rule(store)
