"""What the game endpoints say to client developers in the OpenAPI schema: each
operation's summary and description, and the meaning of its error answers where it
says more than `unoservice.schema` does. The views in this package read these names."""

from __future__ import annotations

from unoservice.schema import Described

# -- errors shared by several operations ----------------------------------------------

# A private game is, to a reader who may not see it, a game that does not exist.
HIDDEN = (
    "not_found: no such game, or a private game you are not among the players of, "
    "without its invite code as `code`"
)
WRONG_CODES = (
    "rate_limited: too many requests, or too many wrong invite codes from you or your address"
)
TOO_MANY_STREAMS = (
    f"{WRONG_CODES}; too_many_streams: the player or the address holds as many open "
    "streams and waiting long polls as its cap"
)
# An action on a private game the caller may not see: 404, where a public game says 403.
HIDDEN_TO_ACTIONS = "not_found: no such game, or a private game you are not among the players of"
NOT_SEATED = "forbidden: you hold no seat in this game"
JOIN_CONFLICTS = (
    "wrong_phase (the game has started), game_full, too_many_games (you already sit in "
    "10 waiting or running games) or idempotency_key_in_use"
)

# -- lobby ------------------------------------------------------------------------------

LIST_GAMES = Described(
    summary="List games",
    description="The lobby and the history: every game, newest first, 50 a page, as "
    "summaries without cards. Private games are listed only to their players. "
    "`status=waiting` lists the games that still take "
    "players; `mine=true` only those in which you hold a seat (a seat a bot took over "
    "from you does not count); `your_turn=true` only the running games that wait for "
    "your move (over days, the games a player comes back to answer). "
    "Each running game says whose turn it is (`to_act`), whether it is yours "
    "(`your_turn`) and when it times out (`turn_deadline`), and, as the view does, "
    "whether it counts for ratings (`rated`, `unrated_reason`). Any player may list. An "
    "empty parameter counts as absent; an unknown status or a `mine` or `your_turn` "
    "other than true, false, 1 or 0 is a 400.",
)
LIST_GAMES_ERRORS = {404: "not_found: no such page"}

CREATE_GAME = Described(
    summary="Create a game",
    description="Creates a waiting game with you as its host at seat 0 and answers "
    "with your view of it. Every field is optional: 2-10 seats (4), the target score "
    "(500; 0 plays a single round), a turn timer in seconds (none) and the house "
    "rules (all off). `visibility: private` makes a game that the lobby lists only "
    "to its players and that only they and holders of its `invite_code` (in your "
    "view) may watch; `rated` (true) says whether it counts for ratings; `free_text` "
    "whether its players may type free text at the table (left out: true for a "
    "private game, false for a public one). `seed` "
    "fixes every deal, so whoever picks it knows every hand: "
    "only staff may send it (403), unless the service runs in development. A key "
    "the body does not take is a 400. You may host or sit in at most 10 waiting or "
    "running games; an eleventh is 409 too_many_games.",
)
CREATE_GAME_ERRORS = {
    403: "forbidden: only staff may choose a game's seed",
    409: "too_many_games, or idempotency_key_in_use",
    422: "settings_conflict (a partners table of other than four seats, or "
    "partners_see_hands without partners) or idempotency_key_reused",
}

JOIN_GAME = Described(
    summary="Take the next free seat",
    description="Seats you at the next free seat of a waiting game and answers with your "
    "view. Joining a game you already sit in changes nothing. A private game is joined "
    "with its invite code (`POST /games/join`), or by id by a friend one of its players "
    "invited (`POST /games/{id}/invites`): by id it is 404 to anyone else not among its "
    "players. A game where a human seated blocks you, or is blocked by you, is 404 "
    "too, word for word as an unknown id. The body is optional: your `client_seed` for "
    "the deal, sent after reading the game's `deal_commitment` (see Fair deals); "
    "without one the service makes one for you.",
)
JOIN_GAME_ERRORS = {
    404: f"{HIDDEN}; or a game where a human seated blocks you or is blocked by you",
    409: JOIN_CONFLICTS,
}

JOIN_BY_CODE = Described(
    summary="Join a game by its invite code",
    description="Seats you at the next free seat of the waiting or running game whose "
    "invite code you send, with the same rules and errors as joining by id, and "
    "answers with your view (`invite_code` included, to pass on). The code is read "
    "without regard to case, spaces or hyphens. An unknown code is 404, and so is the "
    "code of a game where a human seated blocks you or is blocked by you (word for "
    "word, and not counted as a wrong code); after 10 "
    "wrong codes in a minute from you, or 30 from your address whatever the "
    "accounts, every code sent is 429 until the minute is over, which puts "
    "guessing among the 31^8 codes out of reach.",
)
JOIN_BY_CODE_ERRORS = {
    400: "invalid_request: `code` missing, not a string, longer than 32 "
    "characters, or not 8 characters of the code alphabet once spaces "
    "and hyphens are left out",
    404: "not_found: no waiting or running game has this code (or a human seated in "
    "it blocks you, or is blocked by you)",
    409: JOIN_CONFLICTS,
    429: WRONG_CODES,
}

INVITATION = Described(
    summary="Whose game an invite code leads to",
    description="Before joining, even before signing up: the host of the waiting or "
    "running game whose invite code you send as `code`, how many seats are taken and "
    "how many it has, and whether it has started; nothing else of the game. A token "
    "is optional; with one, a game where a human seated blocks you, or is blocked by "
    "you, is 404 as an unknown code. Wrong codes count as those sent to join do, per "
    "player and per address, and the right one does not.",
)

INVITATION_ERRORS = {
    400: "invalid_request: `code` missing, longer than 32 characters, or not 8 "
    "characters of the code alphabet once spaces and hyphens are left out",
    404: "not_found: no waiting or running game has this code (or, with a token, a "
    "human seated in it blocks you, or is blocked by you)",
    429: "rate_limited: as for joining by code",
}

START_GAME = Described(
    summary="Deal round 1 (host only)",
    description="The host starts the game with the seats taken, humans or bots (at least "
    "2): round 1 is dealt and the game is playing. Answers with your view. The body is "
    "optional: the host's `client_seed` for the deal, sent here, after the game's "
    "`deal_commitment` was published (see Fair deals).",
)
START_GAME_ERRORS = {
    403: "forbidden: only the host may start the game",
    404: HIDDEN_TO_ACTIONS,
    409: "wrong_phase (already started, or fewer than 2 seats) or idempotency_key_in_use",
}

LEAVE_GAME = Described(
    summary="Leave; a bot takes a running seat",
    description="Before the start your seat is freed and the seats after it move up; a "
    "leaving host hands the game to the next human, and a game left without humans is "
    "abandoned. Once the game runs, a greedy bot takes your seat for good and the game "
    "goes on. A seat a bot took over after your timeouts may be left too, giving up the "
    "right to resume it. When the last human leaves a running game, it pauses if a "
    "timed-out player may still resume, and is abandoned otherwise. Answers with your "
    "view, usually a spectator's. No body.",
)
LEAVE_GAME_ERRORS = {
    403: NOT_SEATED,
    404: HIDDEN_TO_ACTIONS,
    409: "wrong_phase (the game is over) or idempotency_key_in_use",
}

REMATCH = Described(
    summary="Play again: the next game with the same settings",
    description="Once a game is over (finished, or abandoned after its start), any of its "
    "players asks for the next game with the same settings (seats, target score, turn "
    "timer, house rules) and a new deal. The first to ask creates it, hosts it at seat 0 "
    "and gets back the bots the game was created with; the game then shows the new "
    "game's id as `rematch`, and its log gains `rematch_offered`. Whoever asks later "
    "takes the next free seat of that same game, as a join does; asking again once "
    "seated there changes nothing (a private game's rematch is joined so without its "
    "code). Every success answers 201 with your view of the new game. A player who left "
    "the game cannot ask; a player whose seat a bot took over after their timeouts can. "
    "The expert bots brought back count towards the 9 you may have in your waiting and "
    "running games. The body is optional: `invite` lists up to 10 friends to invite to "
    "the rematch, as `POST /games/{id}/invites` does (friends already seated there are "
    "left out, and everyone once it is full or has started); one who is not your "
    "friend is 403 not_friends, and nothing changes.",
)
REMATCH_ERRORS = {
    400: "invalid_request: `invite` not a list of at most 10 player ids, or a key the "
    "body does not take",
    403: "forbidden: you held no seat in this game, or you left it; not_friends: one of "
    "`invite` is not your friend",
    404: HIDDEN_TO_ACTIONS,
    409: "wrong_phase (the game is not over, it was abandoned before its start, or the "
    "rematch has already started), game_full (every seat of the rematch is taken), "
    "too_many_games, too_many_bots (you would get back more expert bots than you may "
    "have), too_many_invites (the rematch has sent 50 invites) or idempotency_key_in_use",
}

ADD_BOT = Described(
    summary="Add a bot (host only)",
    description="The host seats a bot of the strategy named at the next free seat, "
    "while the game waits. Answers with your view. The expert bots of the waiting "
    "and running games you play in may be at most 9 (an operator's setting): one "
    "more is 409 too_many_bots.",
)
ADD_BOT_ERRORS = {
    403: "forbidden: only the host may add bots",
    404: HIDDEN_TO_ACTIONS,
    409: "wrong_phase (the game has started), game_full, too_many_bots (an "
    "expert beyond the ones you may have) or idempotency_key_in_use",
}

ARRANGE_SEATS = Described(
    summary="Arrange the seats (host only)",
    description="The host seats again whoever holds the seats of the waiting game: "
    "`order` lists, for each seat from 0 up, the seat whose holder moves there. In "
    "partners this is how the host seats players in teams: seats 0 and 2 play against "
    "1 and 3. Logged as `seats_arranged`; the order the seats already have changes "
    "nothing. Answers with your view.",
)
ARRANGE_SEATS_ERRORS = {
    422: "settings_conflict (`order` does not list each seat taken once) or idempotency_key_reused",
    403: "forbidden: only the host may arrange the seats",
    404: HIDDEN_TO_ACTIONS,
    409: "wrong_phase (the game has started) or idempotency_key_in_use",
}

QUICK_MATCH = Described(
    summary="Quick match: a seat in a game with these settings",
    description="Seats you in the oldest public quick-match game that waits with "
    "exactly these settings and has a free seat, or creates one that you host at "
    "seat 0, and answers with your view. Every field is optional, with the defaults "
    "of creating a game: 2-10 seats (4), the target score (500; 0 plays one round) "
    "and the house rules (all off); quick-match games have no turn timer, are public "
    "and rated. The game starts by itself as soon as its last seat is taken. "
    "`bots_after` (5-600 seconds, default 30; null for never) applies when your "
    "request creates the game: that long after its first seat was taken, its empty "
    "seats go to greedy bots and it starts (`bots_at` in the view; a game you join "
    "keeps the time its creator chose). Requests that arrive together fill one game "
    "before another is opened. Asking again while you wait in a quick-match game "
    "with the same settings answers that game and changes nothing. Two players with a "
    "block between them (either way) are never seated in one game. Only games made "
    "by quick match are matched, never games created with `POST /games`. A key the "
    "body does not take is a 400. Quick-match seats count towards the 10 waiting or "
    "running games you may sit in. `mode: partners` is the partners queue (four "
    "seats); there two friends who each name the other as `partner` sit on one team, "
    "the first to come holding a seat for the other.",
)
QUICK_MATCH_ERRORS = {
    400: "invalid_request: a field out of its range or of the wrong type, "
    "an unknown rule, or a key the body does not take (`details.fields` "
    "names each)",
    403: "forbidden: the `partner` named is not your friend",
    409: "too_many_games (you already sit in 10 waiting or running "
    "games) or idempotency_key_in_use",
    422: "settings_conflict (the partners queue with other than four seats, or a "
    "`partner` outside it) or idempotency_key_reused",
}

INVITE = Described(
    summary="Invite a friend to this game",
    description="A player seated in a waiting game with a free seat invites one of "
    "their friends to it: the friend's lobby stream gets `game_invite` and their "
    "devices a `game_invite` push (unless they turned "
    "that kind off). The invite lets the friend see the game and join it by id "
    "(`POST /games/{id}/join`) without its code, private or not. Answers 201 with the "
    "invite; inviting the same friend again answers 200 with it, told again at most once "
    "a minute. A game may send at most 50 invites. Rate limited per player "
    "(THROTTLE_RATE_GAME_INVITE, 60 an hour), every attempt counted.",
)
INVITE_ERRORS = {
    400: "invalid_request: `player` missing or not a player id, a key the body does not "
    "take, or yourself",
    403: f"{NOT_SEATED}; not_friends: the player is not your friend (or no such player)",
    404: HIDDEN_TO_ACTIONS,
    409: "wrong_phase (the game has started), game_full, already_seated (the friend sits "
    "in it), too_many_invites (the game sent 50) or idempotency_key_in_use",
    429: "rate_limited: too many requests, or too many invites sent",
}

CANCEL_QUICK_MATCH = Described(
    summary="Stop waiting for a quick match",
    description="Leaves every quick-match game you wait in (as `POST "
    "/games/{id}/leave` does before a start: later seats move up, the host role "
    "passes on, a game left without humans is abandoned) and answers with their ids "
    "as `left`. A quick-match game that has started is left with `POST "
    "/games/{id}/leave` instead. No body.",
)
CANCEL_QUICK_MATCH_ERRORS = {
    409: "wrong_phase (you wait in no quick-match game) or idempotency_key_in_use",
}

# -- play -------------------------------------------------------------------------------

GET_GAME = Described(
    summary="Get a game",
    description="Your view of the game: the settings, the seats with their card "
    "counts and scores, the table, whose turn it is and what decision is pending. "
    "When you hold a seat, `you` has your hand and every move you may make now "
    "(`legal_moves`); for a spectator it is null. Any player may look at any public "
    "game; a private one only its players, staff, and spectators who send its "
    "invite code as `code` (anyone else gets 404, as for a game that does not "
    "exist). Send the `version` with your next move. `rated` says whether the game "
    "counts for ratings as far as can be told now and `unrated_reason` why not "
    "(`unrated_game`, `too_few_humans`, `same_network`, `abandoned`); once it is "
    "finished, both say what it counted for, as its players' histories do "
    "(`repeat_opponents` and `annulled` included).",
)
GET_GAME_ERRORS = {404: HIDDEN, 429: WRONG_CODES}

RESUME_SEAT = Described(
    summary="Take back the seat a bot took over after your timeouts",
    description="Three timeouts in a row hand your seat to a bot; this gives it back to "
    "you, at any time while the game runs. Your run of timeouts starts again from zero, "
    "and a game paused for want of humans goes on. Answers with your view. No body.",
)
RESUME_SEAT_ERRORS = {
    403: NOT_SEATED,
    404: HIDDEN_TO_ACTIONS,
    409: "wrong_phase (the game is not running, or no seat of yours is held by a bot "
    "after timeouts: a seat you left cannot be resumed) or idempotency_key_in_use",
}

MAKE_MOVE = Described(
    summary="Make a move",
    description="Sends one move, with the game's `version` you decided it on. The "
    "simplest correct client sends one of `you.legal_moves` from the game view, plus "
    "`version` (and `uno: true` when playing its second-to-last card). Answers with "
    "your new view and the events the move caused, as you may see them: a skip, the "
    "draw a Draw Two forces, the end of the round, the next deal. Checked in this "
    "order: the body's shape (400), your seat (403, or 409 seat_taken_over in a "
    "running game where a bot holds it after your timeouts: resume it first), the "
    "game's phase (409 wrong_phase), the version (409 stale_version: read the game "
    "again and decide afresh), the turn (409 not_your_turn) and the rules (422 illegal_move).",
)
DECIDE_CHALLENGE = Described(
    summary="Challenge or accept a Wild Draw Four",
    description="Decides a Wild Draw Four played on you: `challenge: true` "
    "challenges it, `false` accepts it. The same as sending the action `challenge` "
    "or `accept` to the moves, with the same answer and errors.",
)
# The answers a move (or a challenge decision) may get.
MOVE_ERRORS = {
    400: "invalid_request: `version` missing or not a non-negative integer, an unknown "
    "action, a field the action does not take, a missing card, colour or target, an "
    "unknown card id",
    403: NOT_SEATED,
    404: "not_found: no such game, or a private game you are not among the players of",
    409: "wrong_phase (the game is not playing, or a pending decision is not this one), "
    "seat_taken_over (a bot holds your seat after your timeouts: `details.resume` is the "
    "path to POST to take it back, `details.seat` the seat), stale_version "
    "(`details.version` is the current one), not_your_turn, or idempotency_key_in_use",
    422: "illegal_move (the rules forbid it, the message says why) or idempotency_key_reused",
}

# -- log and replay ---------------------------------------------------------------------

READ_EVENTS = Described(
    summary="Read the events after a seq (long poll)",
    description="The game's events after `after`, at most 500 a call, redacted for "
    "you while the game runs, with the game's `last_seq`: when it is beyond the last "
    "event you got, ask again from there. With `wait` and no event yet, the request "
    "is held until one comes or `wait` seconds pass (then the list is empty). Who may "
    "see the game may read its events (a private game's spectator sends its `code`); "
    "the live stream is cheaper still.",
)
READ_EVENTS_ERRORS = {404: HIDDEN, 429: TOO_MANY_STREAMS}

READ_LOG = Described(
    summary="Read a game's whole log",
    description="Every event from seq 1 with the game's summary. While the game runs "
    "the log is redacted for you as the events are (staff read it complete), and every "
    "seed is null, for every reader. Once it is finished or abandoned it is complete: "
    "every card and, in `deal`, the server seed the `deal_commitment` hashes, every "
    "seat's client seed and each round's seed, from which anyone can redo every shuffle "
    "and the rules replay the game exactly (see Fair deals). A game dealt by "
    "`mt19937` gives its integer seeds as numbers and as decimal text (`seed_text`, "
    "`seeds_text`), the numbers null where they exceed 2^53 - 1. A private game's "
    "spectator sends its `code`.",
)
READ_LOG_ERRORS = {404: HIDDEN, 429: WRONG_CODES}

REPLAY_TABLE = Described(
    summary="The whole table after an event",
    description="Every hand and both piles as they stood after event `seq`, rebuilt "
    "from the log and the seeds. For games that are finished or abandoned, and for "
    "staff at any time. A private game's spectator sends its `code`.",
)
REPLAY_TABLE_ERRORS = {
    403: "forbidden: the game still runs and you are not staff",
    404: f"{HIDDEN}; or `seq` is past the end of the log",
    429: WRONG_CODES,
}

# -- streams ----------------------------------------------------------------------------

GAME_STREAM = Described(
    summary="Follow a game live (Server-Sent Events)",
    description="A stream of the game for you, seated or spectator: your view, "
    "then after every change its events (as the events endpoint shows them to you) "
    "and your new view, so a client never polls. Send a bearer token, or a stream "
    "ticket as `ticket` from a browser's EventSource. Reconnect with "
    "`Last-Event-ID` (or `after`) to get what you missed first; more than 500 events "
    "behind, you get a fresh view instead. A private game's spectator sends its "
    "`code` (with a ticket too). Errors come as JSON before the stream "
    "begins; opening a stream counts as one request against your rate limit.",
)
GAME_STREAM_MESSAGES = (
    "`retry: 2000`, then `event: game` (the caller's view), then each "
    "event as `id: <seq>`, `event: <type>`, `data: <the event>` and a new `game` "
    "after each change; `: ping` at least every 15 s; `event: end` when the game "
    "is over"
)
GAME_STREAM_ERRORS = {404: HIDDEN, 429: TOO_MANY_STREAMS}

GAME_STREAM_TICKET = Described(
    summary="A one-time ticket for a browser's EventSource",
    description="A browser's EventSource cannot send a token: this ticket opens the "
    "game's stream (as `?ticket=`) once, for you, within 60 seconds. Any player may "
    "get one for any game they may see. A ticket is a credential, so its answer is "
    "never kept for an Idempotency-Key: the same key gets a new ticket. No body. A "
    "private game's spectator sends its `code` here and again on the stream's URL.",
)
GAME_STREAM_TICKET_ERRORS = {404: HIDDEN, 429: WRONG_CODES}

LOBBY_STREAM = Described(
    summary="Follow all your games from the lobby (Server-Sent Events)",
    description="One stream for a client's lobby: what happens to you across every "
    "game you sit in, as `match_found`, `game_started`, `your_turn`, `game_finished` "
    "and `rematch_offered`, each naming the game (read its view to act). It opens "
    "with `hello` (the games it follows) and a `your_turn` for each game whose turn "
    "is yours now. Send a bearer token, or a lobby ticket as `ticket` from a "
    "browser's EventSource. Events have no ids and are not replayed: on reconnection "
    "the opening says again what you must act on. Errors come as JSON before the "
    "stream begins; opening a stream counts as one request against your rate limit.",
)
LOBBY_STREAM_MESSAGES = (
    '`retry: 2000`, `event: hello` (`{"games": [ids]}`), then '
    "`event: <type>` with `data: <json>` for `match_found` `{game}`, "
    "`game_started` `{game}`, `your_turn` `{game, turn_deadline}`, "
    "`game_finished` `{game, winner, rating}` and `rematch_offered` "
    "`{game, by}`; `: ping` at least every 15 s"
)
LOBBY_STREAM_ERRORS = {429: TOO_MANY_STREAMS}

LOBBY_STREAM_TICKET = Described(
    summary="A one-time ticket for the lobby stream from a browser",
    description="A browser's EventSource cannot send a token: this ticket opens your "
    "lobby stream (`/players/me/stream?ticket=`) once, within 60 seconds; a game's "
    "stream does not take it. A ticket is a credential, so its answer is never kept "
    "for an Idempotency-Key: the same key gets a new ticket. No body.",
)
LOBBY_STREAM_TICKET_ERRORS = {
    400: "invalid_request: an Idempotency-Key that is not 1-255 characters",
}

# -- players' profiles ------------------------------------------------------------------

PLAYER_ID = (
    "a player's id, `me` for your own, or `bot:<strategy>` (`bot:random`, "
    "`bot:greedy`, `bot:expert`) for a bot strategy, rated as a player of its own"
)

PLAYER_PROFILE = Described(
    summary="A player's profile",
    description="Any player's (or bot strategy's) name, rating, rank and statistics. "
    f"The id is {PLAYER_ID}. A malformed or unknown id is a 404.",
)

PLAYER_GAMES = Described(
    summary="A player's finished games",
    description="The games a player (or bot strategy) finished, newest first, 50 a "
    "page, from their seat: their place (equal final scores share one; the winner "
    "is first), their final score, every seat's, and for a rated game their rating "
    "after it and what it changed (null for an unrated game). A private game is "
    "listed only to its players. "
    f"The id is {PLAYER_ID}.",
)
PLAYER_GAMES_ERRORS = {404: "not_found: no such player or page"}
