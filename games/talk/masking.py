"""Masking free text before any reader sees it: glin-profanity's dictionaries of the
languages `TALK_PROFANITY_LANGUAGES`, plus the operator's own words, less the words
the operator lets through; every word found becomes `TALK_MASK`.

The filter loads its dictionaries once per process (tens of milliseconds): it is
built on first use and kept, and built again only when the settings it was built
from change (tests override them)."""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings

# glin-profanity ships no type hints; its filter is used through `masked` alone.
from glin_profanity import Filter  # type: ignore[import-untyped]

from games.talk.models import TableMessage

# The longest text a message stores, masked or typed.
MAX_TEXT_LENGTH = TableMessage._meta.get_field("text").max_length or 200

_lock = threading.Lock()
_built: dict[tuple[Any, ...], Any] = {}


def _settings_key() -> tuple[Any, ...]:
    return (
        tuple(settings.TALK_PROFANITY_LANGUAGES),
        tuple(settings.TALK_PROFANITY_EXTRA_WORDS),
        tuple(settings.TALK_PROFANITY_ALLOWED_WORDS),
        settings.TALK_MASK,
    )


def _filter() -> Any:
    key = _settings_key()
    found = _built.get(key)
    if found is not None:
        return found
    with _lock:
        found = _built.get(key)
        if found is None:
            languages, extra, allowed, mask = key
            found = Filter(
                {
                    "languages": list(languages),
                    "replace_with": mask,
                    "custom_words": list(extra),
                    "ignore_words": list(allowed),
                    "detect_leetspeak": True,
                }
            )
            # One filter at a time: settings change only in tests.
            _built.clear()
            _built[key] = found
    return found


def masked(text: str) -> str:
    """`text` with every profane word found replaced by `TALK_MASK` (cut to what a
    message stores, should the mask be longer than the words it hides)."""
    checked = _filter().check_profanity(text)
    processed = checked.get("processed_text") if isinstance(checked, dict) else None
    shown = processed if isinstance(processed, str) and checked.get("contains_profanity") else text
    return shown[:MAX_TEXT_LENGTH]
