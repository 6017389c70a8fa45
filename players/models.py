"""Players: guest accounts for mobile clients, each device signed in with a bearer
token of its own (`PlayerSession`)."""

from __future__ import annotations

import hashlib
import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone


def hash_token(token: str) -> str:
    """Only this hash is stored: a leaked table does not let anyone play as anyone."""
    return hashlib.sha256(token.encode()).hexdigest()


# Crockford's base32: no I, L, O or U to misread.
TAG_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
TAG_LENGTH = 4


def player_tag(player_id: uuid.UUID | str) -> str:
    """The short tag shown with a player's name where others read it (``Ann#K7MQ``),
    so that two players of one name can be told apart: the first 20 bits of their
    id, which are random, in `TAG_ALPHABET`. Stable, and shared by two players in a
    million."""
    bits = uuid.UUID(str(player_id)).int >> (128 - 5 * TAG_LENGTH)
    return "".join(TAG_ALPHABET[(bits >> 5 * shift) & 31] for shift in reversed(range(TAG_LENGTH)))


class Player(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=32)
    # A staff member's player is linked to their Django user; staff see complete logs.
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="player",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    games_played = models.PositiveIntegerField(default=0)
    games_won = models.PositiveIntegerField(default=0)
    rounds_won = models.PositiveIntegerField(default=0)
    points = models.PositiveIntegerField(default=0)
    # Partners games are counted apart: `games_played` and `games_won` are the classic
    # games; a partners game is won by both partners.
    partners_games_played = models.PositiveIntegerField(default=0)
    partners_games_won = models.PositiveIntegerField(default=0)
    # Set by an operator (`services.player_disable`): every token of the player is
    # refused, their streams end. Who did it and why are kept with it.
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_by = models.CharField(max_length=150, blank=True, default="")
    disabled_reason = models.CharField(max_length=200, blank=True, default="")
    # Left off the leaderboard by an operator (`players.services.leaderboard_hide`);
    # their rating still moves. `LeaderboardHiding` records who did it, when and why.
    leaderboard_hidden = models.BooleanField(default=False)
    # Django's hash of the player's password (Argon2id), or "" for none; a password
    # signs in together with a verified email (`players.accounts`).
    password = models.CharField(max_length=128, blank=True, default="")
    # The player deleted their account (`players.accounts.erasure`): what was theirs
    # is gone, the row stays under a placeholder name for the games they played.
    deleted_at = models.DateTimeField(null=True, blank=True)
    # What others type or follow as a link to send a friend request
    # (`players.social.friends`): drawn when first asked for, replaced on request.
    friend_code = models.CharField(max_length=8, null=True, blank=True, unique=True)
    # Table talk: the player hides spectators' emotes; staff muted them until then
    # (`games.talk.moderation`), with the reason they were told.
    hide_spectator_emotes = models.BooleanField(default=False)
    talk_muted_until = models.DateTimeField(null=True, blank=True)
    talk_muted_reason = models.CharField(max_length=200, blank=True, default="")

    # The session a request signed in with (set by `players.auth`; None elsewhere).
    session: PlayerSession | None = None

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.id})"

    @property
    def tag(self) -> str:
        return player_tag(self.pk)

    # DRF treats the authenticated principal as a user: these make a Player one.
    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def is_anonymous(self) -> bool:
        return False

    @property
    def is_staff(self) -> bool:
        return self.user is not None and self.user.is_staff and self.user.is_active


class PlayerSession(models.Model):
    """One device's sign-in: a token of its own, kept only as its hash. Signing one
    out ends its token, its tickets and its streams, and no other device's."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="sessions")
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    # What the client calls the device ("Ann's phone"), for the player's list.
    name = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    # Moved on at most every `players.sessions.TOUCH_SECONDS`; a session unused for
    # SESSION_IDLE_DAYS is expired.
    last_used_at = models.DateTimeField(default=timezone.now)
    # The network (`unoservice.client_address.address_group`) it was last used from.
    network = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["-last_used_at", "id"]

    def __str__(self) -> str:
        return f"session {self.name or self.pk} of {self.player_id}"


class IdentityKind(models.TextChoices):
    EMAIL = "email", "Email"
    GOOGLE = "google", "Google"
    APPLE = "apple", "Apple"


class Identity(models.Model):
    """A way a player proves who they are on a new device: a verified email address,
    or a Google or Apple account. One identity belongs to one player."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="identities")
    kind = models.CharField(max_length=8, choices=IdentityKind.choices)
    # The email address as matched (`players.accounts.email_codes.normalized_email`),
    # or the provider's subject (`sub`), which never changes for an account.
    subject = models.CharField(max_length=255)
    # The address shown to the player: the email itself, or the provider's verified
    # email when its token carried one.
    email = models.CharField(max_length=254, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "subject"], name="identity_once"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} identity of {self.player_id}"


class EmailCode(models.Model):
    """The one live code sent to an email address (a new one replaces it): kept as
    a keyed hash, good until `expires_at` and for `players.accounts.email_codes.
    MAX_TRIES` wrong tries."""

    email = models.CharField(max_length=254, unique=True)
    code_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    tries = models.PositiveSmallIntegerField(default=0)

    def __str__(self) -> str:
        return f"code for {self.email}"


# The rating key of a bot strategy, a player of its own on the leaderboard.
BOT_KEY_PREFIX = "bot:"


def bot_key(strategy: str) -> str:
    return BOT_KEY_PREFIX + strategy


class Rating(models.Model):
    """The skill rating of a player, or of a bot strategy as a player of its own
    (`players.rating`). `key` is the player's id, or ``bot:<strategy>``: ratings are
    locked in its order, so that two games ending at once cannot deadlock."""

    key = models.CharField(max_length=64, unique=True)
    player = models.OneToOneField(
        Player, null=True, blank=True, on_delete=models.CASCADE, related_name="rating"
    )
    bot = models.CharField(max_length=16, null=True, blank=True)  # noqa: DJ001
    mu = models.FloatField()
    sigma = models.FloatField()
    # mu - 3 sigma, kept for the leaderboard to sort by.
    ordinal = models.FloatField(db_index=True)
    games = models.PositiveIntegerField(default=0)  # rated games
    # The first `players.standings.MIN_OPPONENTS_TO_RANK` different established human
    # players met in rated games (their keys, space separated), and how many: the
    # leaderboard needs a record against several people, not a few accounts of one.
    opponents = models.TextField(default="", blank=True)
    opponents_met = models.PositiveSmallIntegerField(default=0)
    # The first few different humans met in rated games, established or not (their
    # keys, space separated): whether this player counts as an opponent for someone is
    # judged on the others they met (`players.standings.MET_KEPT`).
    met = models.TextField(default="", blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(player__isnull=True) ^ models.Q(bot__isnull=True),
                name="rating_of_a_player_or_a_bot",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key}: {self.ordinal:.2f}"


class LeaderboardHiding(models.Model):
    """An operator hid a player from the leaderboard, or showed them again: who, when
    and why. The player's `leaderboard_hidden` is the current state; these rows are
    its history."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="hidings")
    hidden = models.BooleanField()  # False: shown again
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Kept as it was, should the staff user be deleted.
    by_username = models.CharField(max_length=150)
    at = models.DateTimeField()
    reason = models.CharField(max_length=200)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        what = "hidden" if self.hidden else "shown"
        return f"{self.player_id} {what} by {self.by_username} at {self.at:%Y-%m-%d %H:%M}"


# -- push notifications (players.push) ----------------------------------------------


class DeviceKind(models.TextChoices):
    WEBPUSH = "webpush", "Web Push"
    FCM = "fcm", "Firebase Cloud Messaging"
    # Apple's service straight, for an iOS app without Firebase: kept in the design,
    # not registered through the API yet (`players.push.devices`).
    APNS = "apns", "Apple Push Notification service"


class Device(models.Model):
    """Where a player is reached while away: a browser's Web Push subscription, or
    a phone's token. An address (endpoint or token) belongs to one player at a time:
    whoever registered it last."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="devices")
    kind = models.CharField(max_length=8, choices=DeviceKind.choices)
    # The Web Push endpoint (an https URL of the browser's push service), or the token.
    address = models.CharField(max_length=2048)
    # Web Push only: the browser's P-256 public key and auth secret (base64url), which
    # the payload is encrypted to. Secrets: never answered back.
    p256dh = models.CharField(max_length=100, blank=True, default="")
    auth = models.CharField(max_length=50, blank=True, default="")
    label = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    # Registered again (the browser renews a subscription; an app its token).
    updated_at = models.DateTimeField(auto_now=True)
    # The last time a push service accepted a notification for it.
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "address"], name="device_address_once"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} device of {self.player_id}"


class NotificationSettings(models.Model):
    """What a player wants to be told while away: a switch per kind of
    `players.push.KINDS`, its default here. A player without a row has the
    defaults."""

    player = models.OneToOneField(
        Player, primary_key=True, on_delete=models.CASCADE, related_name="notification_settings"
    )
    your_turn = models.BooleanField(default=True)
    match_found = models.BooleanField(default=True)
    rematch_offered = models.BooleanField(default=True)
    game_finished = models.BooleanField(default=False)
    seat_taken_over = models.BooleanField(default=True)
    game_invite = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"notifications of {self.player_id}"


# Friends, blocks and muted table talk: models of their own module, registered here.
from players.social.models import Block, FriendRequest, Friendship, TalkMute  # noqa: E402, F401
