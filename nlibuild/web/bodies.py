"""What the workbench's write and vote routes accept in a request body, and how it is read
(issue 26): one strict model per body, so that anything the pages or a script following
nlibuild/web/api_pages.py could not have sent is a 400 naming the field, before the store
is touched.

- JSON is parsed by orjson, which refuses nesting deeper than 1024 levels, a number that
  is not finite, and an integer beyond 64 bits (it reads that as a float, which no integer
  field takes). The models are flat: a field holding nesting is refused by its type.
- A form carries at most `MAX_FORM_FIELDS` fields (the largest page form has 12), each
  name once, and no file.
- A boolean is JSON's `true` or `false`, and in a form the checkbox's value or nothing (a
  browser sends an unchecked box not at all); any other text, "no" included, is refused
  rather than read as true. An integer is an integer in range: JSON's own integers, a
  form's ASCII digits.
- A field the route does not take is refused, not ignored.

`BadRequest` is Starlette's HTTPException with status 400, so a route needs no handler of
its own: the application's (nlibuild/web/pages.py `http_error`) answers it with the error
page, or with `{"error": ...}` for a JSON request (nlibuild/web/context.py).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Annotated, Any, Literal, TypeVar

import orjson
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    ValidationError,
)
from pydantic_core import ErrorDetails, PydanticCustomError
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.requests import Request

from nlibuild.models import Label

MAX_FORM_FIELDS = 64
"""Fields a form may carry: the writing form has one per hypothesis (at most 9), the
action, the unusable box and the CSRF token; the lead's forms fewer."""
MAX_ITEM = 1_000_000
"""The highest item number or position a vote may name: far above any batch, and far
below the 64-bit integers SQLite takes (2^63 reached it as an OverflowError, a 500)."""
MAX_LABEL_CHARS = 100
MAX_ID_CHARS = 200
MAX_HYPOTHESES_PER_LABEL = 20
"""Above any protocol's count (MULTI asks three), so that the store's own rule ("more
than asked") still speaks for a count between."""
_ASCII_NUMBER = re.compile(r"[0-9]{1,9}")

BodyT = TypeVar("BodyT", bound=BaseModel)


class BadRequest(HTTPException):
    """A body that is not what the route takes (400), with one sentence naming the field."""

    def __init__(self, message: str) -> None:
        super().__init__(400, message)


def _form_integer(value: object) -> object:
    """A form's number as ASCII digits only: `int()` alone would take "²" as a digit and
    fail on it, take " 1" and "1_0", and spend its time on 5,000 digits."""
    if isinstance(value, str) and _ASCII_NUMBER.fullmatch(value):
        return int(value)
    raise PydanticCustomError("form_integer", "must be an item number, in digits 0-9")


ItemNumber = Annotated[int, Field(ge=1, le=MAX_ITEM)]
FormItemNumber = Annotated[int, Field(ge=1, le=MAX_ITEM), BeforeValidator(_form_integer)]
LabelText = Annotated[str, Field(min_length=1, max_length=MAX_LABEL_CHARS)]
Seconds = Annotated[float | None, Field(allow_inf_nan=False)]
Checkbox = Literal["yes"] | None  # the value of templates/write.html's box, or unchecked
LooseLabel = Annotated[Label, Strict(False)]  # JSON gives the label's name as text
Hypotheses = Annotated[list[str], Field(max_length=MAX_HYPOTHESES_PER_LABEL)]


class RequestBody(BaseModel):
    """A request body: no field but the model's, no type converted into another."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class ApiVote(RequestBody):
    """`POST /api/label/<batch>`: the vote for the item at `position`."""

    position: ItemNumber
    label: LabelText
    seconds: Seconds = None


class ApiAnswer(RequestBody):
    """`POST /api/write/<batch>`: one premise's answer."""

    premise: Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS)]
    unusable: bool = False
    hypotheses: dict[LooseLabel, Hypotheses] = Field(default_factory=dict)


class DraftRequest(RequestBody):
    """`POST /write/<batch>/<premise>/feedback` (write.js): the fields as typed so far."""

    fields: Annotated[dict[str, str], Field(max_length=MAX_FORM_FIELDS)]
    unusable: bool = False
    save: bool = False


class ModelRequest(RequestBody):
    """`POST /write/<batch>/<premise>/feedback/model` (write.js): the fields the model is
    to predict (issue 29)."""

    fields: Annotated[dict[str, str], Field(max_length=MAX_FORM_FIELDS)]


class PageVote(RequestBody):
    """`POST /label/<batch>/vote` as label.js sends it (JSON, with the seconds)."""

    item: ItemNumber
    label: LabelText
    seconds: Seconds = None


class PageUndo(RequestBody):
    """`POST /label/<batch>/undo` as label.js sends it."""

    item: ItemNumber


class VoteForm(RequestBody):
    """The relabel page's label buttons without script: the item and the button pressed."""

    csrf_token: str = ""
    item: FormItemNumber
    label: LabelText


class UndoForm(RequestBody):
    """The relabel page's undo button without script."""

    csrf_token: str = ""
    item: FormItemNumber


class WriteForm(RequestBody):
    """The writing page's form: its button, the unusable box, and one text per field the
    page shows (`entailment_1`, ...), which the route checks against the batch's slots."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, str] = Field(init=False)

    csrf_token: str = ""
    action: Literal["check", "submit"] = "check"
    unusable: Checkbox = None

    @property
    def texts(self) -> dict[str, str]:
        return dict(self.__pydantic_extra__)


async def json_body(request: Request, model: type[BodyT]) -> BodyT:
    """The request's JSON object as `model`; `BadRequest` for anything else."""
    try:
        sent = orjson.loads(await request.body())
    except orjson.JSONDecodeError as exc:
        reason = str(exc).split(":", 1)[0]
        message = f"Send one JSON object; this body cannot be read as JSON ({reason})."
        raise BadRequest(message) from None
    if not isinstance(sent, dict):
        raise BadRequest("Send one JSON object (this JSON is not an object).")
    return validated(model, sent)


async def form_fields(request: Request) -> dict[str, str]:
    """The request's form, bounded (see the module's docstring); `BadRequest` otherwise."""
    content_type = request.headers.get("content-type", "")
    if not content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        raise BadRequest("Send the page's form.")
    try:
        form = await request.form(max_files=0, max_fields=MAX_FORM_FIELDS)
    except (HTTPException, MultiPartException) as exc:
        detail = exc.detail if isinstance(exc, HTTPException) else exc.message
        raise BadRequest(f"This form cannot be read: {detail}") from None
    items = form.multi_items()
    repeated = [name for name, count in Counter(name for name, _ in items).items() if count > 1]
    if repeated:
        raise BadRequest(f"{repeated[0]!r} is sent more than once; a form sends it once.")
    if any(isinstance(value, UploadFile) for _, value in items):
        raise BadRequest("This form takes no files.")
    return {name: str(value) for name, value in items}


async def form_body(request: Request, model: type[BodyT]) -> BodyT:
    """The request's form as `model`; `BadRequest` for anything else."""
    return validated(model, await form_fields(request))


def validated(model: type[BodyT], sent: dict[str, Any]) -> BodyT:
    try:
        return model.model_validate(sent)
    except ValidationError as exc:
        raise BadRequest(problem_of(exc.errors()[0])) from None


SAYINGS = {
    "bool_type": "must be true or false",
    "missing": "is missing",
    "extra_forbidden": "is not a field this request takes",
    "int_type": "must be a whole number",
    "float_type": "must be a number",
    "string_type": "must be a text",
    "finite_number": "must be a finite number",
}


def problem_of(error: ErrorDetails) -> str:
    """A validation error as one sentence naming the field: "'unusable' must be true or
    false (not 'no')". The value is shown only when short, and never a nested one."""
    where = ".".join(str(part) for part in error["loc"] if part != "[key]") or "the body"
    saying = SAYINGS.get(error["type"])
    if saying is None:
        text = error["msg"].removeprefix("Input ")
        saying = text[0].lower() + text[1:] if text else "is not accepted"
    given = error.get("input")
    shown = ""
    refused_value = error["type"] not in ("extra_forbidden", "missing")
    if refused_value and isinstance(given, str | int | float) and len(repr(given)) <= 40:
        shown = f" (not {given!r})"
    return f"{where!r} {saying}{shown}."
