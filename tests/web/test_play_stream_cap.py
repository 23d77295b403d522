"""A play seat's live stream counts against the view's per-client stream cap, as run and game
streams do: a page cannot open seat feeds without bound."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import httpx

from accord.testing.webserver import serving
from accord.web.app import create_app
from accord.web.play import PlayHub


def test_seat_streams_share_the_cap_with_the_other_streams(tmp_path: Path) -> None:
    hub = PlayHub(tmp_path / "play")
    table = hub.create("negotiation", ["human", "human"])
    first, second = (table.channels[i].token for i in (0, 1))
    app = create_app([], play=hub, max_streams=2)
    with serving(app) as url, httpx.Client(base_url=url, timeout=30) as http:
        with (
            http.stream("GET", f"/api/play/seat/{first}/stream") as a,
            http.stream("GET", f"/api/play/seat/{second}/stream") as b,
        ):
            assert (a.status_code, b.status_code) == (200, 200)
            with http.stream("GET", f"/api/play/seat/{first}/stream") as again:
                assert again.status_code == 429
                assert "too many live streams" in json.loads(again.read())["detail"]
            with http.stream("GET", "/api/runs/play/live") as live:
                assert live.status_code == 429, "seat streams count for the run stream too"
            assert http.get(f"/api/play/seat/{first}").status_code == 200  # API still answers
        # Both closed: the server notices within a keep-alive or two and frees the slots.
        for _ in range(200):
            with http.stream("GET", "/api/runs/play/live") as later:
                if later.status_code == 200:
                    break
            threading.Event().wait(0.1)
        assert later.status_code == 200
