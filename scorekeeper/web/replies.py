"""The API's error reply: a status and one line of JSON."""

from __future__ import annotations

from flask import Response, jsonify

from scorekeeper.web.messages import classify


def error(status: int, message: str) -> Response:
    """``{"error": "one line", "code": ..., "args": {...}}``: the code lets the page word it."""
    line = " ".join(message.split())  # one line, whatever the cause wrote
    code, args = classify(status, line)
    response = jsonify(error=line, code=code, args=args)
    response.status_code = status
    return response
