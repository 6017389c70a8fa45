"""Staff see the identities a player signs in with, and unlink them all."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from players.models import Identity, Player
from tests.factories import Persona, assert_error
from tests.players.accounts.conftest import Mailbox, ask_code

pytestmark = pytest.mark.django_db

ANN = "ann@example.com"


def test_staff_see_a_players_identities_and_unlink_them_with_a_reason(
    host: Persona, mailbox: Mailbox, admin_client: Any
):
    ask_code(host.client, ANN)
    host.post("/players/me/identities", {"email": ANN, "code": mailbox.last_code_to(ANN)})
    Player.objects.filter(pk=host.player.pk).update(password="argon2$argon2id$x")

    page = admin_client.get(reverse("admin:players_player_change", args=[host.player.pk]))
    assert ANN in page.content.decode()

    body = {
        "action": "unlink_identities",
        "_selected_action": [str(host.player.pk)],
        "apply": "1",
        "reason": "address taken over",
    }
    done = admin_client.post(reverse("admin:players_player_changelist"), body, follow=True)

    assert "Done for 1 of 1." in done.content.decode()
    assert not Identity.objects.filter(player=host.player).exists()
    assert Player.objects.get(pk=host.player.pk).password == ""
    # The device stays signed in; the address signs in no more.
    assert host.get("/players/me").json()["recoverable"] is False
    ask_code(host.client, ANN)
    code = mailbox.last_code_to(ANN)
    answer = host.client.post(
        "/api/v1/players/sign-in", {"email": ANN, "code": code}, format="json"
    )
    assert assert_error(answer, 403, "credentials_refused")["details"]["reason"] == "not_linked"
