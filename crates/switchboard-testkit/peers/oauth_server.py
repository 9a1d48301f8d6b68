"""An OAuth-protected MCP server on the PyPI `mcp` 1.x line: FastMCP with the SDK's own
authorization server (`auth_server_provider`: discovery metadata, dynamic registration,
PKCE, tokens, refresh), in one process, over Streamable HTTP at /mcp.

Run with the py1 venv:  python oauth_server.py http --port 0   (prints `LISTENING <port>`)

The sign-in page (/login) shows the request and an Approve button, for a browser;
`OAUTH_AUTO_APPROVE=1` skips it (the authorization endpoint redirects straight back).
`OAUTH_METADATA_PATH=/some/path` serves the protected resource metadata only there (where
the `WWW-Authenticate` challenge points), not at its well-known path, and counts its reads; the
server then offers no `GET` stream (405, as a server without one answers, before any challenge),
so only a client that kept the challenge of a refused request finds the metadata.
`OAUTH_TOKEN_TTL` (seconds, default 3600) sets how long access tokens last. Refresh tokens
rotate: each can be used once, so two clients refreshing with the same token are seen
(the second is refused with invalid_grant). /stats (JSON) counts what happened.
"""

from __future__ import annotations

import os
import secrets
import time

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    OAuthAuthorizationServerProvider,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.fastmcp import FastMCP
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

import peer_common

TTL = int(os.environ.get("OAUTH_TOKEN_TTL", "3600"))
AUTO = os.environ.get("OAUTH_AUTO_APPROVE") == "1"
SCOPE = "notes"

STATS = {
    "registrations": 0,
    "authorizations": 0,
    "refreshes": 0,
    "refused_refreshes": 0,
    "calls": 0,
    "metadata_reads": 0,
}
METADATA_PATH = os.environ.get("OAUTH_METADATA_PATH")
WELL_KNOWN = "/.well-known/oauth-protected-resource"


class Provider(OAuthAuthorizationServerProvider[AuthorizationCode, RefreshToken, AccessToken]):
    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.pending: dict[str, tuple[OAuthClientInformationFull, AuthorizationParams]] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        STATS["registrations"] += 1
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        key = secrets.token_urlsafe(16)
        self.pending[key] = (client, params)
        if AUTO:
            return self.approve(key)
        return f"{BASE}/login?request={key}"

    def approve(self, key: str) -> str:
        client, params = self.pending.pop(key)
        STATS["authorizations"] += 1
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code: str) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access = "at_" + secrets.token_urlsafe(24)
        refresh = "rt_" + secrets.token_urlsafe(24)
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=int(time.time()) + TTL, resource=resource
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(
            access_token=access, token_type="Bearer", expires_in=TTL, refresh_token=refresh, scope=" ".join(scopes)
        )

    async def exchange_authorization_code(self, client, authorization_code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self.issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client, refresh_token: str) -> RefreshToken | None:
        token = self.refresh.get(refresh_token)
        if token is None:
            STATS["refused_refreshes"] += 1
        return token

    async def exchange_refresh_token(self, client, refresh_token: RefreshToken, scopes: list[str]) -> OAuthToken:
        if self.refresh.pop(refresh_token.token, None) is None:
            STATS["refused_refreshes"] += 1
            raise TokenError("invalid_grant", "refresh token already used")
        STATS["refreshes"] += 1
        return self.issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        access = self.access.get(token)
        if access is None or (access.expires_at is not None and access.expires_at < time.time()):
            return None
        return access

    async def revoke_token(self, token) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


args = peer_common.parse_args("an OAuth-protected MCP server (mcp 1.x)")
listener = peer_common.bind_listener(args.port)
PORT = listener.getsockname()[1]
BASE = f"http://127.0.0.1:{PORT}"
provider = Provider()
mcp = FastMCP(
    "oauth-notes",
    host="127.0.0.1",
    port=PORT,
    auth_server_provider=provider,
    auth=AuthSettings(
        issuer_url=AnyHttpUrl(BASE),
        resource_server_url=AnyHttpUrl(f"{BASE}/mcp"),
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
        ),
        required_scopes=[SCOPE],
        validate_token_resource=True,
    ),
)


@mcp.tool()
def whoami() -> str:
    """Says the call was authorized."""
    STATS["calls"] += 1
    return "signed in"


@mcp.tool()
def echo_authorization() -> str:
    """Echoes the Authorization header the call came with, as a careless debugging tool does."""
    token = get_access_token()
    return f"Authorization: Bearer {token.token if token else ''}"


@mcp.custom_route("/login", methods=["GET"])
async def login(request: Request) -> Response:
    key = request.query_params.get("request", "")
    if key not in provider.pending:
        return HTMLResponse("<p>Unknown sign-in request.</p>", status_code=400)
    client, params = provider.pending[key]
    return HTMLResponse(
        f"""<!doctype html><title>Sign in to oauth-notes</title>
<h1>Sign in to oauth-notes</h1>
<p id="client">{client.client_name or client.client_id} asks for: {" ".join(params.scopes or [SCOPE])}</p>
<form method="post" action="/login"><input type="hidden" name="request" value="{key}">
<button id="approve" type="submit">Approve</button></form>"""
    )


@mcp.custom_route("/login", methods=["POST"])
async def login_approved(request: Request) -> Response:
    form = await request.form()
    key = str(form.get("request", ""))
    if key not in provider.pending:
        return HTMLResponse("<p>Unknown sign-in request.</p>", status_code=400)
    return RedirectResponse(provider.approve(key), status_code=302)


@mcp.custom_route("/stats", methods=["GET"])
async def stats(request: Request) -> Response:
    return JSONResponse(STATS)


@mcp.custom_route("/expire", methods=["POST"])
async def expire(request: Request) -> Response:
    """Every access token expires now (as if its time were up)."""
    for token in provider.access.values():
        token.expires_at = 0
    return JSONResponse({"expired": len(provider.access)})


def metadata_only_at(app, path: str):
    """`app` with its protected resource metadata moved from the well-known path to `path`,
    its challenges pointing there, and no `GET` stream on /mcp."""
    known = f"{WELL_KNOWN}/mcp"
    old_url, new_url = f"{BASE}{known}".encode(), f"{BASE}{path}".encode()

    async def moved(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        if scope["path"].startswith(WELL_KNOWN):
            return await JSONResponse({"error": "not_found"}, status_code=404)(scope, receive, send)
        if scope["path"] == "/mcp" and scope["method"] == "GET":
            return await Response(status_code=405, headers={"allow": "POST, DELETE"})(scope, receive, send)
        if scope["path"] == path:
            STATS["metadata_reads"] += 1
            scope = dict(scope, path=known, raw_path=known.encode())
            return await app(scope, receive, send)

        async def pointing(message):
            if message["type"] == "http.response.start":
                message = dict(
                    message,
                    headers=[
                        (k, v.replace(old_url, new_url) if k.lower() == b"www-authenticate" else v)
                        for k, v in message["headers"]
                    ],
                )
            await send(message)

        return await app(scope, receive, pointing)

    return moved


async def serve() -> None:
    """As peer_common.serve_http, on the socket bound above (the issuer URL needs its port)."""
    import uvicorn

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets=None) -> None:
            await super().startup(sockets=sockets)
            print(f"LISTENING {PORT}", flush=True)

    app = mcp.streamable_http_app()
    if METADATA_PATH:
        app = metadata_only_at(app, METADATA_PATH)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    await AnnouncingServer(config).serve(sockets=[listener])


if __name__ == "__main__":
    import anyio

    anyio.run(serve)
