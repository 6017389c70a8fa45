"""Push notifications to players away from the table: their devices (browsers by Web
Push, apps by Firebase Cloud Messaging), what they want to be told, and delivery.

The game side decides what to send and when, and calls only these names (it is
the players app's; nothing here knows a game but by its id).
"""

from players.push.delivery import deliver, deliver_on_commit, enabled
from players.push.notification import KINDS, Notification

__all__ = ["KINDS", "Notification", "deliver", "deliver_on_commit", "enabled"]
