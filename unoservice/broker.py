"""The file-system broker of the development defaults, with messages that appear whole.

kombu's file-system transport writes a message in place, under its final name, and
a worker lists the folder and reads whatever file it finds there, with no lock: a
worker that polls while the API is still writing reads half a message and fails on
it as on bad JSON. Here a message is written under a draft name that no queue
matches, then renamed into place, which is atomic within a folder: a reader sees
no file or the whole file.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    # kombu's stubs name the message differently in its two base classes: no name
    # matches both.
    def _put(self, queue: str, payload: dict[str, Any], **kwargs: Any) -> None:  # type: ignore[override]
        # kombu's own naming: the queue is what follows the first dot, and names
        # sort in the order the messages were sent.
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        # A leading dot puts the whole name after the first dot: it matches no queue.
        draft = os.path.join(self.data_folder_out, f".{name}.draft")
        try:
            with open(draft, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(draft, final)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(draft)
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
