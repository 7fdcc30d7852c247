"""Headers every answer carries: what the browser may load and who may frame the page.

The page's scripts come from ``/static`` plus one inline configuration script that carries a
per-response nonce (``{{ csp_nonce }}`` in the templates); styles may be inline (the score meter
sets widths); nothing may frame the page, so no other site can dress it up and harvest the PIN.
"""

from __future__ import annotations

import secrets

from flask import Flask, Response, g


def _policy(nonce: str) -> str:
    return "; ".join(
        (
            "default-src 'self'",
            f"script-src 'self' 'nonce-{nonce}'",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob:",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        )
    )


def csp_nonce() -> str:
    nonce = g.get("csp_nonce")
    if nonce is None:
        nonce = g.csp_nonce = secrets.token_urlsafe(16)
    return str(nonce)


def install_security_headers(app: Flask) -> None:
    app.jinja_env.globals["csp_nonce"] = csp_nonce

    @app.after_request
    def secure(response: Response) -> Response:
        response.headers["Content-Security-Policy"] = _policy(csp_nonce())
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response
