"""Ratings: what a finished game counts for, and who stands where.

Reads and writes apart, so that what only reads ratings never loads what moves them:

- `rules`: what decides whether a game counts (the reasons it does not, who a seat
  is rated as) and a rating as the API shows it; pure, shared by both sides;
- `reads`: profiles, histories and the leaderboard, as the API and the admin read
  them (the players' part is `players.standings`); `groups`: the closed groups of
  players whose rated games are mostly among themselves, for the staff;
- `writes`: what a finished game leaves, and the ratings it moves, in the
  transaction that ends it; `annulment`: an operator's annulment of a game's rating;
- `admin`: the ratings' staff pages.

`tests/unoservice/test_layering.py` checks that the reads never import the writes.
"""
