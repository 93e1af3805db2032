"""What pages ask of the session: who is signed in, with which role, and whether a batch
is theirs. Anything not the person's own is 404, never 403, so guessing another batch's ID
tells nothing about whether it exists; a route meant for another role is 403 (that the
route exists is no secret: it is in the documentation)."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request

from nlibuild.models import Role
from nlibuild.queries.batches import BatchRow
from nlibuild.web.context import WebContext
from nlibuild.workbench.access import Person, own_batch
from nlibuild.workbench.messages import Text


def current_person(request: Request) -> Person:
    """The signed-in person (the session gate let no request without one through)."""
    person = request.scope.get("state", {}).get("person")
    if not isinstance(person, Person):
        raise HTTPException(401, Text("Open your personal link to sign in."))
    return person


def require_role(request: Request, *roles: Role) -> Person:
    """The signed-in person if one of their link's roles is one of `roles`; 403 otherwise."""
    person = current_person(request)
    if not set(person.roles) & set(roles):
        names = " or ".join(role.value for role in roles)
        mine = " and ".join(role.value for role in person.roles)
        message = Text("This page is for a {roles}; your link is a {own}'s.", roles=names, own=mine)
        raise HTTPException(403, message)
    return person


def own_batch_or_404(context: WebContext, request: Request, batch_id: str) -> BatchRow:
    """The batch if it is the signed-in person's to work on; 404 for anything else (no
    such batch, another kind, someone else's) alike."""
    person = current_person(request)
    batch = context.with_store(lambda store: own_batch(store, person, batch_id))
    if batch is None:
        raise HTTPException(404, Text("There is no batch {batch} of yours.", batch=batch_id))
    return batch
