"""`nlibuild serve`: the workbench's web server, and its invites (`invite`, `invites`,
`revoke`). starlette and uvicorn are imported inside the command bodies only, so that
`nlibuild --help` stays fast; torch only when `--model` names a model to serve."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from nlibuild.cli.common import err, format_option, open_store, out, state_of, user_errors
from nlibuild.errors import ConfigError
from nlibuild.models import Role, ServeConfig, TableFormat, parse_lifetime
from nlibuild.options import choice, default_text, store_settings
from nlibuild.render import render_table
from nlibuild.store import Store

if TYPE_CHECKING:
    from nlibuild.workbench.model_loop import Predictor

# The group's help is the callback's docstring (with its examples).
serve_app = typer.Typer(
    invoke_without_command=True,
    rich_markup_mode=None,
)


def exposure_warning(host: str) -> str | None:
    """The warning for a --host other than loopback: the server speaks plain HTTP, and the
    personal links and session cookies it carries need TLS from a reverse proxy."""
    if host == "localhost":
        return None
    try:
        if ipaddress.ip_address(host).is_loopback:
            return None
    except ValueError:
        pass  # a host name: not known to be loopback
    return (
        f"Warning: --host {host} is reachable from other machines, and nlibuild serve speaks "
        "plain HTTP: put it behind a reverse proxy that terminates TLS (links and session "
        "cookies are secrets), or keep --host 127.0.0.1"
    )


def load_predictor(folder: Path) -> Predictor:
    """The model `--model` names, loaded before anything listens (torch is imported here
    only): a missing or broken folder is one `Error:` line (a `ScoringError`)."""
    from nlibuild.scores.score_jobs import require_torch

    require_torch("serve --model")
    from nlibuild.scoring.served import load_served_model

    return load_served_model(folder)


def run_server(db: Path, config: ServeConfig, predictor: Predictor | None = None) -> None:
    """Serve the workbench until Ctrl-C (one process: the embedded store has one writer)."""
    import uvicorn

    from nlibuild.web.app import create_app
    from nlibuild.workbench.feedback import prepare_feedback

    app = create_app(db, config, predictor)
    with Store.open(db) as store:
        prepare_feedback(store)  # before listening: no writer waits for jieba's dictionary
    serving = f" with the model {predictor.identity}" if predictor is not None else ""
    out.print(
        f"Serving the workbench of {db}{serving} on http://{config.host}:{config.port}/ "
        "(Ctrl-C stops it)",
        markup=False,
    )
    # uvicorn's own X-Forwarded-For handling (on by default, trusting loopback) stays off:
    # the application takes the headers itself where `--proxy-headers` declares a proxy.
    uvicorn.run(
        app,
        host=config.host,
        port=config.port,
        log_level="warning",
        workers=1,
        proxy_headers=False,
    )


@serve_app.callback()
def serve(
    ctx: typer.Context,
    host: Annotated[
        str | None,
        typer.Option(help=f"Address to listen on (default {default_text(ServeConfig, 'host')})."),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(help=f"Port to listen on (default {default_text(ServeConfig, 'port')})."),
    ] = None,
    proxy_headers: Annotated[
        bool,
        typer.Option(
            "--proxy-headers",
            help="Behind a reverse proxy: trust its X-Forwarded-For and X-Forwarded-Proto "
            "(from the preset's serve.trusted_proxies, default loopback). Off, they are "
            "ignored.",
        ),
    ] = False,
    model: Annotated[
        Path | None,
        typer.Option(
            help="A model folder written by `score export-model`: loaded once, before the "
            "server listens, for the writers' page (needs the score extra)."
        ),
    ] = None,
) -> None:
    """The workbench: writers and validators do their batches in a web page.

    With no command, serve it: writers and validators open their personal links (made by
    `serve invite`) and see only their own batches; the lead sees everyone's progress.

    Examples:

    \b
      nlibuild --db zh.db serve invite --annotator w01 --role writer
      nlibuild --db zh.db serve invites
    """
    # A subcommand opens the store itself (after its own --help, which needs no store).
    # An absent --proxy-headers leaves the preset's setting (None: not given).
    ctx.meta["serve_flags"] = {"host": host, "port": port, "proxy_headers": proxy_headers or None}
    if ctx.invoked_subcommand is not None:
        return
    state = state_of(ctx)
    with user_errors():
        with open_store(state) as store:
            config = serve_config(ctx, store)
        predictor = load_predictor(model) if model is not None else None
        warning = exposure_warning(config.host)
        if warning:
            err.print(warning, markup=False)
        run_server(state.db, config, predictor)


def serve_config(ctx: typer.Context, store: Store) -> ServeConfig:
    """The settings: `serve`'s --host and --port, the store's `[serve]`, the defaults."""
    flags = ctx.meta.get("serve_flags", {})
    return store_settings(store, ServeConfig, "serve", **flags)


@serve_app.command("invite")
def invite(
    ctx: typer.Context,
    annotator: Annotated[str, typer.Option(help="Who the link is for: an annotator's ID.")],
    role: Annotated[
        str,
        typer.Option(
            help="writer, validator or lead (a lead need not be an annotator); "
            "writer,validator gives one link with both."
        ),
    ] = "writer",
    expires: Annotated[
        str | None,
        typer.Option(
            help="How long the link works: 14d, 12h, 90m "
            f"(default {default_text(ServeConfig, 'invite_lifetime')})."
        ),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(
            help="The address people open, e.g. behind a proxy https://nli.example.org "
            "(default http://HOST:PORT)."
        ),
    ] = None,
) -> None:
    """Print a personal link for one person. The token is shown once, here: the store keeps
    only its hash (and first characters, to name it in `serve invites`).

    Examples:

    \b
      nlibuild --db zh.db serve invite --annotator w01 --role writer
      nlibuild --db zh.db serve invite --annotator w01 --role writer,validator
      nlibuild --db zh.db serve invite --annotator lead01 --role lead --expires 2d
    """
    from nlibuild.workbench.access import create_invite

    with user_errors(), open_store(state_of(ctx)) as store:
        config = serve_config(ctx, store)
        chosen = [choice(Role, part.strip().lower(), "--role") for part in role.split(",")]
        try:
            lifetime = parse_lifetime(expires or config.invite_lifetime)
        except ValueError as exc:
            raise ConfigError(f"--expires: {exc}") from None
        made = create_invite(store, annotator, chosen, lifetime)
    base = (base_url or f"http://{config.host}:{config.port}").rstrip("/")
    out.print(f"{base}/t/{made.token}", markup=False)
    err.print(
        f"A {' and '.join(made.roles)}'s link for {made.person}, valid until {made.expires}; "
        "send it to them privately.",
        markup=False,
    )


@serve_app.command("invites")
def invites(
    ctx: typer.Context, format: Annotated[str, format_option()] = TableFormat.TABLE.value
) -> None:
    """List the invites (the first characters of each token, never the token).

    Examples:

    \b
      nlibuild --db zh.db serve invites
    """
    from nlibuild.workbench.access import list_invites

    with user_errors(), open_store(state_of(ctx)) as store:
        fmt = choice(TableFormat, format, "--format")
        rows = list_invites(store)
    columns = ["prefix", "person", "role", "status", "created", "expires", "revoked"]
    cells = [
        (r.prefix, r.person, r.role, r.status, *map(_minute, times))
        for r in rows
        for times in [(r.created, r.expires, r.revoked or "")]
    ]
    render_table(out, "Invites", columns, cells, fmt)


@serve_app.command("revoke")
def revoke(
    ctx: typer.Context,
    annotator: Annotated[
        str | None, typer.Option(help="Revoke all of this person's links.")
    ] = None,
    token_prefix: Annotated[
        str | None, typer.Option(help="Revoke the link whose token begins so (`serve invites`).")
    ] = None,
) -> None:
    """Revoke invites: their links stop working and their sessions end at once.

    Examples:

    \b
      nlibuild --db zh.db serve revoke --annotator w01
    """
    from nlibuild.workbench.access import revoke_invites

    with user_errors(), open_store(state_of(ctx)) as store:
        revoked = revoke_invites(store, annotator, token_prefix)
    out.print(f"Revoked {revoked} live {'invite' if revoked == 1 else 'invites'}.", markup=False)


def _minute(stamp: str) -> str:
    """`2026-12-09T11:13:31.685831Z` as people read it: `2026-12-09 11:13 UTC`."""
    return f"{stamp[:10]} {stamp[11:16]} UTC" if stamp else ""
