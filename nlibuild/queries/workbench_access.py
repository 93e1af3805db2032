"""The workbench's access records (invites and sessions) and the reads its pages need.

Unlike the other modules of queries/, this one also writes: invites and sessions are not
corpus data and no stage makes them, so they are not recorded runs; each write here is one
statement or one `store.atomic()` block, and the library that calls it
(nlibuild/workbench/access.py) decides what is written. Times are UTC ISO strings of one
fixed format, so SQL compares them as text.
"""

from __future__ import annotations

from typing import NamedTuple

from nlibuild.store import Store


class TokenRow(NamedTuple):
    """An invite as stored: never the token, only its selector and hash."""

    pk: int
    selector: str
    token_sha256: str
    person: str
    role: str
    created: str
    expires: str
    revoked: str | None


class SessionRow(NamedTuple):
    """A live session with the invite it came from."""

    token_pk: int
    person: str
    role: str
    expires: str


_TOKEN_COLUMNS = "pk, selector, token_sha256, person, role, created, expires, revoked"


def insert_token(
    store: Store,
    selector: str,
    token_sha256: str,
    person: str,
    annotator_pk: int | None,
    role: str,
    created: str,
    expires: str,
) -> int:
    """Store a new invite; its key."""
    with store.atomic():
        cursor = store.conn.execute(
            "INSERT INTO workbench_tokens(selector, token_sha256, person, annotator_pk, role, "
            "created, expires) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (selector, token_sha256, person, annotator_pk, role, created, expires),
        )
    return int(cursor.lastrowid or 0)


def tokens_with_selector(store: Store, selector: str) -> list[TokenRow]:
    """The invites whose token begins with `selector` (a login compares their hashes)."""
    rows = store.conn.execute(
        f"SELECT {_TOKEN_COLUMNS} FROM workbench_tokens WHERE selector = ?", (selector,)
    ).fetchall()
    return [TokenRow(*row) for row in rows]


def all_tokens(store: Store) -> list[TokenRow]:
    """Every invite, oldest first."""
    rows = store.conn.execute(f"SELECT {_TOKEN_COLUMNS} FROM workbench_tokens ORDER BY pk")
    return [TokenRow(*row) for row in rows.fetchall()]


def revoke_tokens(store: Store, pks: list[int], when: str) -> None:
    """Mark these invites revoked (their sessions end with them: see `live_session`)."""
    with store.atomic():
        store.conn.executemany(
            "UPDATE workbench_tokens SET revoked = ? WHERE pk = ? AND revoked IS NULL",
            [(when, pk) for pk in pks],
        )


def insert_session(
    store: Store, session_sha256: str, token_pk: int, created: str, expires: str
) -> None:
    """Store a new session, and drop the sessions that have expired (a login is rare
    enough to carry that clean-up, and no other write needs to)."""
    with store.atomic():
        store.conn.execute("DELETE FROM workbench_sessions WHERE expires <= ?", (created,))
        store.conn.execute(
            "INSERT INTO workbench_sessions(session_sha256, token_pk, created, expires) "
            "VALUES (?, ?, ?, ?)",
            (session_sha256, token_pk, created, expires),
        )


def live_session(store: Store, session_sha256: str, now: str) -> SessionRow | None:
    """The session with this hash if neither it nor its invite has expired and the invite
    is not revoked; None otherwise."""
    row = store.conn.execute(
        "SELECT t.pk, t.person, t.role, min(s.expires, t.expires) FROM workbench_sessions s "
        "JOIN workbench_tokens t ON t.pk = s.token_pk "
        "WHERE s.session_sha256 = ?1 AND s.expires > ?2 AND t.expires > ?2 "
        "AND t.revoked IS NULL",
        (session_sha256, now),
    ).fetchone()
    return SessionRow(*row) if row else None


def delete_session(store: Store, session_sha256: str) -> None:
    with store.atomic():
        store.conn.execute(
            "DELETE FROM workbench_sessions WHERE session_sha256 = ?", (session_sha256,)
        )


def annotator_key(store: Store, annotator_id: str) -> int | None:
    row = store.conn.execute("SELECT pk FROM annotators WHERE id = ?", (annotator_id,))
    found = row.fetchone()
    return int(found[0]) if found else None


class ViolationCount(NamedTuple):
    rule: str
    severity: str
    kept: int
    rejected: int


def violations_per_rule(store: Store) -> list[ViolationCount]:
    """How many violations each rule found, with the pairs kept despite them and those
    rejected, most frequent first."""
    rows = store.conn.execute(
        "SELECT rule, severity, sum(kept != 0), sum(kept = 0) FROM violations "
        "GROUP BY rule, severity ORDER BY count(*) DESC, rule"
    ).fetchall()
    return [ViolationCount(*row) for row in rows]
