"""A whole game through a Python client generated from the served schema by
openapi-python-client (as the package `uno_api`): sign up, create a one-round game
against a bot, play it to the end by sending back moves of `you.legal_moves`, then
read its events, its log and its replay. Prints what it saw as one JSON object.

Run as `python play.py BASE_URL` with the generated package on the path; it uses
the generated models' own types throughout (mypy strict holds it to them).
"""

from __future__ import annotations

import json
import sys
from typing import TypeVar
from uuid import UUID

from uno_api import AuthenticatedClient, Client
from uno_api.api.games import (
    games_bots_create,
    games_create,
    games_events_retrieve,
    games_log_retrieve,
    games_moves_create,
    games_replay_retrieve,
    games_retrieve,
    games_start_create,
)
from uno_api.api.players import players_create
from uno_api.models import (
    BotIn,
    BotStrategy,
    Error409,
    EventsPageOut,
    GameCreateIn,
    GameViewOut,
    LogOut,
    MoveResultOut,
    PlayCardMoveIn,
    PlayerCreatedOut,
    PlayerCreateIn,
    PlaySevenMoveIn,
    PlayWildMoveIn,
    ReplayOut,
    StatusEnum,
)

T = TypeVar("T")
MAX_STEPS = 2_000  # far more requests than a one-round game against one bot takes


def expect(answer: object, kind: type[T]) -> T:
    """The answer as the model it should be; anything else ends the program."""
    if not isinstance(answer, kind):
        raise SystemExit(f"expected {kind.__name__}, got {answer!r}")
    return answer


def sign_up(base_url: str, name: str) -> AuthenticatedClient:
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)
    created = expect(
        players_create.sync(client=anonymous, body=PlayerCreateIn(name=name)), PlayerCreatedOut
    )
    return AuthenticatedClient(
        base_url=base_url, token=created.token, raise_on_unexpected_status=True
    )


def new_game(client: AuthenticatedClient) -> UUID:
    """A started one-round game of two seats: the caller and a greedy bot."""
    body = GameCreateIn(max_players=2, target_score=0)
    game = expect(games_create.sync(client=client, body=body), GameViewOut)
    bot = BotIn(strategy=BotStrategy.GREEDY)
    expect(games_bots_create.sync(game.id, client=client, body=bot), GameViewOut)
    expect(games_start_create.sync(game.id, client=client), GameViewOut)
    return game.id


def play(client: AuthenticatedClient, game_id: UUID) -> tuple[GameViewOut, int]:
    """Send the first legal move whenever there is one, else wait for the bot's
    events (a long poll): the finished game and the moves the server applied."""
    moves = 0
    for _ in range(MAX_STEPS):
        view = expect(games_retrieve.sync(game_id, client=client), GameViewOut)
        if view.status != StatusEnum.PLAYING:
            return view, moves
        legal = view.you.legal_moves if view.you is not None else []
        if not legal:
            page = games_events_retrieve.sync(game_id, client=client, after=view.last_seq, wait=5)
            expect(page, EventsPageOut)
            continue
        move = legal[0]
        hand = view.you.hand if view.you is not None else []
        if isinstance(move, PlayCardMoveIn | PlaySevenMoveIn | PlayWildMoveIn) and len(hand) == 2:
            move.uno = True
        answer = games_moves_create.sync(game_id, client=client, body=move)
        if isinstance(answer, Error409):  # the bot moved first: read the game again
            continue
        expect(answer, MoveResultOut)
        moves += 1
    raise SystemExit(f"the game did not end in {MAX_STEPS} steps")


def main(base_url: str) -> None:
    with sign_up(base_url, "Generated Python") as client:
        game_id = new_game(client)
        view, moves = play(client, game_id)
        events = expect(games_events_retrieve.sync(game_id, client=client), EventsPageOut)
        log = expect(games_log_retrieve.sync(game_id, client=client), LogOut)
        replay = expect(
            games_replay_retrieve.sync(game_id, client=client, seq=view.last_seq), ReplayOut
        )
    print(
        json.dumps(
            {
                "status": view.status.value,
                "winner": view.winner,
                "moves": moves,
                "last_seq": view.last_seq,
                "events": [event.type_.value for event in events.events],
                "log": [event.seq for event in log.events],
                "complete": log.complete,
                "replay_seq": replay.seq,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1])
