"""Table-talk preferences: hiding spectators' emotes, and muting players' talk, capped
and idempotent."""

from __future__ import annotations

import pytest
from django.utils import timezone

from players.models import Player
from players.social import mutes
from players.social.models import TalkMute
from tests.factories import TalkMuteFactory, assert_error

pytestmark = pytest.mark.django_db


def test_a_new_player_reads_all_table_talk(host):
    assert host.get("/players/me/table-talk").json() == {
        "hide_spectator_emotes": False,
        "muted": [],
    }


def test_a_player_hides_spectators_emotes_and_shows_them_again(host):
    hidden = host.patch("/players/me/table-talk", {"hide_spectator_emotes": True})

    assert hidden.status_code == 200
    assert hidden.json() == {"hide_spectator_emotes": True, "muted": []}
    assert host.get("/players/me/table-talk").json()["hide_spectator_emotes"] is True
    assert Player.objects.get(pk=host.player.pk).hide_spectator_emotes is True

    shown = host.patch("/players/me/table-talk", {"hide_spectator_emotes": False})
    assert shown.json()["hide_spectator_emotes"] is False


def test_an_empty_change_changes_nothing(host):
    host.patch("/players/me/table-talk", {"hide_spectator_emotes": True})

    assert host.patch("/players/me/table-talk", {}).json()["hide_spectator_emotes"] is True


@pytest.mark.parametrize(
    "body", [{"hide_spectator_emotes": "yes"}, {"hide_spectator_emotes": 1}, {"hide": True}, []]
)
def test_a_malformed_change_is_refused(host, body):
    assert_error(host.patch("/players/me/table-talk", body), 400, "invalid_request")
    assert Player.objects.get(pk=host.player.pk).hide_spectator_emotes is False


def test_muting_a_player_lists_them_and_muting_again_changes_nothing(host, guest):
    first = host.client.put(f"/api/v1/players/me/table-talk/muted/{guest.player.pk}")
    again = host.client.put(f"/api/v1/players/me/table-talk/muted/{guest.player.pk}")

    assert (first.status_code, again.status_code) == (204, 204)
    (entry,) = host.get("/players/me/table-talk").json()["muted"]
    assert entry["player"] == {
        "id": str(guest.player.pk),
        "name": guest.player.name,
        "tag": guest.player.tag,
    }
    assert entry["at"]


def test_unmuting_is_idempotent(host, guest):
    host.client.put(f"/api/v1/players/me/table-talk/muted/{guest.player.pk}")

    assert host.delete(f"/players/me/table-talk/muted/{guest.player.pk}").status_code == 204
    assert host.delete(f"/players/me/table-talk/muted/{guest.player.pk}").status_code == 204
    assert host.get("/players/me/table-talk").json()["muted"] == []


def test_muting_yourself_or_nobody_is_refused(host, guest):
    Player.objects.filter(pk=guest.player.pk).update(deleted_at=timezone.now())

    own = host.client.put(f"/api/v1/players/me/table-talk/muted/{host.player.pk}")
    unknown = host.client.put(
        "/api/v1/players/me/table-talk/muted/6f1c2b7e-0d3a-4c59-9b1e-2a7d5c3e8f10"
    )
    deleted = host.client.put(f"/api/v1/players/me/table-talk/muted/{guest.player.pk}")

    assert_error(own, 400, "invalid_request")
    assert_error(unknown, 404, "not_found")
    assert_error(deleted, 404, "not_found")
    assert not TalkMute.objects.exists()


def test_a_player_mutes_at_most_so_many(host, guest, monkeypatch):
    monkeypatch.setattr(mutes, "MAX_MUTES", 3)
    TalkMuteFactory.create_batch(3, player=host.player)

    refused = host.client.put(f"/api/v1/players/me/table-talk/muted/{guest.player.pk}")

    assert assert_error(refused, 409, "too_many_mutes")["details"] == {"limit": 3}
