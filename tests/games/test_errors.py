"""Engine rejections become service errors through one table (`games.errors`), each
with the API code the engine gives it and the engine's reason as the message."""

from __future__ import annotations

import pytest

from games.engine import EngineError, NotYourTurn
from games.errors import ENGINE_ERRORS, from_engine
from unoservice.errors import NotYourTurnError, ServiceError


def engine_errors(cls: type[EngineError] = EngineError) -> list[type[EngineError]]:
    subclasses = cls.__subclasses__()
    return subclasses + [grand for sub in subclasses for grand in engine_errors(sub)]


@pytest.mark.parametrize("error", engine_errors(), ids=lambda cls: cls.__name__)
def test_every_engine_error_becomes_the_service_error_of_its_code(error):
    converted = from_engine(error("why not"))
    assert isinstance(converted, ServiceError)
    assert (converted.code, converted.message) == (error.code, "why not")


def test_every_engine_error_has_an_entry_of_its_own():
    assert set(engine_errors()) <= set(ENGINE_ERRORS)


def test_an_engine_error_without_an_entry_takes_its_nearest_ancestors():
    class LateCall(NotYourTurn):
        pass

    converted = from_engine(LateCall("too late"))
    assert type(converted) is NotYourTurnError
    assert (converted.status, converted.message) == (409, "too late")


def test_the_base_engine_error_is_an_invalid_request():
    converted = from_engine(EngineError("odd"))
    assert (converted.status, converted.code) == (400, "invalid_request")
