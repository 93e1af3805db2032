"""`nlibuild check`: the consistency checks of the stored labels."""

from __future__ import annotations

from pydantic import BaseModel, Field

from nlibuild.models.base import _Config


class CheckConfig(_Config):
    """`nlibuild check`: with `repair`, rewrite `pair_labels` counts from the votes."""

    repair: bool = False


class CheckFinding(BaseModel):
    """One check of `nlibuild check`: how many pairs it found, and the first few."""

    check: str = Field(
        description="counts, missing, extra, gold-stale, gold-differs or gold-missing"
    )
    description: str
    pairs: int
    first_pair_ids: list[str] = Field(description="public pair IDs, in key order")


class CheckResult(BaseModel):
    """What `nlibuild check` found (after the repair, with --repair)."""

    pairs_checked: int = Field(description="pairs with votes or a pair_labels row")
    findings: list[CheckFinding] = Field(description="every check, those that found none too")
    repaired: list[CheckFinding] | None = Field(
        default=None, description="with --repair: the pair_labels differences it rewrote"
    )
    advice: str | None = Field(
        default=None,
        description="what to do about the differences, one sentence (the CLI's `Error:` "
        "line); None when every check agrees",
    )
    store_lang: str | None = Field(
        default=None,
        description="the store's language when it is no language code (an older nlibuild "
        "wrote zh_CN); None when it is one",
    )
    lang_rewritten: str | None = Field(
        default=None, description="with --repair: the code the store's language became"
    )
    run_id: int | None = None
    signature: str | None = None

    @property
    def differences(self) -> int:
        return sum(f.pairs for f in self.findings)
