"""What can be said at a table without typing: the quick phrases and the emotes,
each with the key a client sends and what every reader sees. Fixed and documented
(docs/api.md, "Table talk"): a client may show them in its own language by key."""

from __future__ import annotations

from typing import Final

PHRASES: Final[dict[str, str]] = {
    "hello": "Hello!",
    "good_luck": "Good luck!",
    "good_game": "Good game",
    "well_played": "Well played",
    "nice_move": "Nice move!",
    "oops": "Oops",
    "uno": "UNO!",
    "your_turn": "Your turn",
    "hurry_up": "Take your time... but not too much",
    "thanks": "Thanks!",
    "sorry": "Sorry!",
    "rematch": "Rematch?",
    "bye": "Bye!",
}

EMOTES: Final[dict[str, str]] = {
    "smile": "🙂",
    "laugh": "😂",
    "wow": "😮",
    "cool": "😎",
    "think": "🤔",
    "sad": "😢",
    "angry": "😠",
    "clap": "👏",
    "thumbs_up": "👍",
    "heart": "❤️",
    "fire": "🔥",
    "party": "🎉",
}


def catalogue_json() -> dict[str, list[dict[str, str]]]:
    return {
        "phrases": [{"code": code, "text": text} for code, text in PHRASES.items()],
        "emotes": [{"code": code, "text": text} for code, text in EMOTES.items()],
    }
