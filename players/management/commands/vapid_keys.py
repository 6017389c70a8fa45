"""Make a VAPID key pair for Web Push, printed as the two settings that hold it:

    python manage.py vapid_keys >> .env

Keep the private key secret. Changing the pair later makes every browser's
subscription useless (push services check the key a subscription was made with):
browsers subscribe again with the new public key when they next open the page.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from players.push.webpush import new_key_pair


class Command(BaseCommand):
    help = "Make a VAPID key pair for Web Push; print it as VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY."

    def handle(self, *args: Any, **options: Any) -> None:
        public, private = new_key_pair()
        self.stdout.write(f"VAPID_PUBLIC_KEY={public}")
        self.stdout.write(f"VAPID_PRIVATE_KEY={private}")
