"""Which response headers are versions (`accord.models.versions`)."""

from __future__ import annotations

import httpx

from accord.models.versions import MAX_CHARS, MAX_HEADERS, is_version_header, version_headers


def test_version_headers_are_kept_and_request_ids_are_not() -> None:
    headers = httpx.Headers(
        {
            "OpenAI-Version": "2020-10-01",
            "x-request-id": "req_123",
            "request-id": "req_456",
            "llm_provider-anthropic-version": "2023-06-01",
            "x-model-version": "  v7 ",
            "content-type": "application/json",
        }
    )
    assert version_headers(headers) == {
        "anthropic-version": "2023-06-01",
        "openai-version": "2020-10-01",
        "x-model-version": "v7",
    }
    assert not is_version_header("x-request-id") and is_version_header("api-version")
    assert version_headers(None) == {} and version_headers({}) == {}


def test_a_hostile_server_cannot_grow_the_record() -> None:
    many = {f"x-{i}-version": "v" * 500 for i in range(50)}
    many["x-bool-version"] = True  # type: ignore[assignment]
    got = version_headers(many)
    assert len(got) == MAX_HEADERS
    assert all(len(v) == MAX_CHARS for v in got.values())
    assert version_headers({"x-version": ""}) == {}
