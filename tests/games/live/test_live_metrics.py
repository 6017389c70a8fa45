"""The live families of ``/metrics`` over a real server: open streams by kind, waiting
long polls, how long a change takes to reach the streams, and the requests the
server itself serves (streams and long polls never reach Django's middleware)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from tests.factories import Persona
from tests.games.live.conftest import LiveServer, auth
from tests.games.live.test_lobby_stream import Lobby
from tests.games.live.test_long_poll import draw, in_background, poll
from tests.games.live.test_stream import Reader
from tests.support import wait_until
from unoservice import metrics

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = "live-scrape"


@pytest.fixture
def scrape(live: LiveServer, settings: Any) -> Callable[..., float]:
    """`scrape(name, **labels)`: the sum of those samples in a scrape of the server."""
    settings.METRICS_TOKEN = TOKEN

    def read(name: str, **labels: str) -> float:
        answer = requests.get(
            f"{live.url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10
        )
        assert answer.status_code == 200, answer.text
        wanted = set(labels.items())
        return sum(
            sample.value
            for family in text_string_to_metric_families(answer.text)
            for sample in family.samples
            if sample.name == name and wanted <= set(sample.labels.items())
        )

    return read


def eventually(name: str, expected: float, **labels: str) -> None:
    """Wait for `name{labels}` to reach `expected`, reading the counts the server (in
    this process) writes, not its page: a page every 50 ms would keep the database
    busy (games by status) under the very move the test waits for."""
    wait_until(
        lambda: metrics.current(name, **labels) == expected,
        f"{name} {labels} to reach {expected}",
        10,
        every=0.05,
    )


def test_an_open_game_stream_is_counted_while_it_stays_open(
    live: LiveServer, scrape, host, two_players
):
    def open_now() -> float:
        return scrape("uno_streams_open", kind="game")

    before = open_now()
    reader = Reader(live.stream_url(two_players), auth(host))
    reader.until_view()
    assert open_now() == before + 1
    reader.close()
    eventually("uno_streams_open", before, kind="game")
    assert open_now() == before


def test_an_open_lobby_stream_is_counted_as_a_lobby_stream(live: LiveServer, scrape, host):
    before = scrape("uno_streams_open", kind="lobby")
    lobby = Lobby(live, auth(host))
    assert scrape("uno_streams_open", kind="lobby") == before + 1
    lobby.close()
    eventually("uno_streams_open", before, kind="lobby")


def test_a_change_times_its_way_to_the_game_streams_once(
    live: LiveServer, scrape, host, guest, two_players
):
    name = "uno_stream_delivery_seconds_count"
    before = scrape(name, kind="game")
    readers = [Reader(live.stream_url(two_players), auth(who)) for who in (host, guest, host)]
    for reader in readers:
        reader.until_view()
    draw(host, guest, two_players)
    for reader in readers:
        reader.until_view()
    # One change, three streams of this process: timed once, at the first of them.
    assert scrape(name, kind="game") == before + 1
    assert scrape("uno_stream_delivery_seconds_sum", kind="game") > 0
    for reader in readers:
        reader.close()


def test_a_change_times_its_way_to_the_lobby_streams(
    live: LiveServer, scrape, host, guest, two_players
):
    name = "uno_stream_delivery_seconds_count"
    before = scrape(name, kind="lobby")
    lobby = Lobby(live, auth(guest))
    draw(host, guest, two_players)
    eventually(name, before + 1, kind="lobby")
    assert scrape(name, kind="lobby") == before + 1
    lobby.close()


def test_a_waiting_long_poll_is_counted_until_it_answers(
    live: LiveServer, scrape, host, guest, two_players
):
    last_seq = host.get(f"/games/{two_players}").json()["last_seq"]
    thread, result = in_background(lambda: poll(live, guest, two_players, after=last_seq, wait=20))
    eventually("uno_long_polls_waiting", 1, resource="events")
    assert scrape("uno_long_polls_waiting", resource="events") == 1
    draw(host, guest, two_players)
    thread.join(timeout=10)
    assert result["response"].status_code == 200
    eventually("uno_long_polls_waiting", 0, resource="events")


def test_a_long_poll_is_one_request_of_its_route_however_often_it_asked_the_api(
    live: LiveServer, scrape, host, guest, two_players
):
    # Its own route: its time is mostly its wait, not the events' latency.
    labels = {"route": "api/v1/games/<str:game_id>/events?wait", "method": "GET", "status": "200"}
    before = scrape("uno_http_requests_total", **labels)
    last_seq = host.get(f"/games/{two_players}").json()["last_seq"]
    thread, result = in_background(lambda: poll(live, guest, two_players, after=last_seq, wait=20))
    eventually("uno_long_polls_waiting", 1)
    draw(host, guest, two_players)
    thread.join(timeout=10)
    assert result["response"].headers["X-Request-ID"]
    assert scrape("uno_http_requests_total", **labels) == before + 1


def test_a_stream_is_a_request_of_its_route_timed_to_its_opening(
    live: LiveServer, scrape, host, two_players
):
    route = "api/v1/games/<str:game_id>/stream"
    before = scrape("uno_http_request_duration_seconds_count", route=route)
    reader = Reader(live.stream_url(two_players), auth(host))
    reader.until_view()
    reader.close()
    # Counted when it ends: its line then says how long it stayed open.
    eventually("uno_http_request_duration_seconds_count", before + 1, route=route)
    # Its client left it: 499, as nginx says of a client that went before the end.
    assert scrape("uno_http_requests_total", route=route, status="499") >= 1


def test_the_server_answers_with_the_clients_request_id_or_a_new_one(
    live: LiveServer, host: Persona, two_players: str
):
    url = f"{live.url}/api/v1/games/{two_players}"
    given = requests.get(url, headers={**auth(host), "X-Request-ID": "client-7f3a"}, timeout=10)
    assert given.headers["X-Request-ID"] == "client-7f3a"
    made = [requests.get(url, headers=auth(host), timeout=10).headers["X-Request-ID"] for _ in "ab"]
    assert len(set(made)) == 2
    assert all(len(made_id) == 32 for made_id in made)
    unfit = requests.get(url, headers={**auth(host), "X-Request-ID": "a b\tc"}, timeout=10)
    assert unfit.headers["X-Request-ID"] != "a b\tc"
