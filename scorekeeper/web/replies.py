"""The API's error reply: a status and one line of JSON."""

from __future__ import annotations

from flask import Response, jsonify


def error(status: int, message: str) -> Response:
    response = jsonify(error=" ".join(message.split()))  # one line, whatever the cause wrote
    response.status_code = status
    return response
