"""What the account endpoints say to client developers in the OpenAPI schema."""

from __future__ import annotations

from players.accounts import email_codes
from unoservice.schema import Described

PROOF = (
    "A proof is one of: `email` and `code` (the code mailed by POST "
    "/players/email-codes); `email` and `password`; or `provider` (`google` or "
    "`apple`) and `id_token`, the OpenID Connect ID token the app got from the "
    "provider's sign-in, with `nonce` when the app gave the provider one (the raw "
    "nonce; a token carrying its SHA-256 in hex, as Apple's do, matches too). A "
    "nonce is taken once."
)

PROVIDER_OFF = "provider_off: the service has no client ids for that provider"

EMAIL_CODE = Described(
    summary="Mail me a code",
    description=f"Mails a {email_codes.CODE_DIGITS}-digit code to `email`, good for "
    f"{email_codes.CODE_MINUTES} minutes and {email_codes.MAX_TRIES} wrong tries; a new "
    "code replaces the last. With it, the address's account signs in (POST "
    "/players/sign-in), the caller (with a token) links the address (POST "
    "/players/me/identities), or the account confirms a new password or its "
    "deletion. The answer is the same whether or not an account has the address; a "
    "code is mailed only to an address an account has, or when a signed-in player "
    "asks (to link it). One code a minute to an address, and a few an hour from one "
    "network.",
)
EMAIL_CODE_ERRORS = {
    400: "invalid_request: not an email address, or a malformed Idempotency-Key",
    409: "idempotency_key_in_use",
    422: "idempotency_key_reused",
    429: "rate_limited: a code went to this address less than a minute ago (as the "
    "operator sets it), or too many were asked for from this network",
}

SIGN_IN = Described(
    summary="Sign in on this device",
    description="Signs this device in as the player who linked the identity the proof "
    "shows, and answers with a new token of its own (a new session, named `device`), "
    "once. " + PROOF + " Wrong codes and passwords are limited per email address and "
    "per network, counted before each is judged; past the limit even the right one "
    "is refused until the window ends. A wrong address and a wrong password are "
    "refused alike. The answer holds a credential: it is never kept for an "
    "Idempotency-Key (the same key signs in afresh).",
)
SIGN_IN_ERRORS = {
    400: "invalid_request: not one proof, or a malformed Idempotency-Key",
    409: "idempotency_key_in_use",
    422: "idempotency_key_reused",
    404: PROVIDER_OFF,
    401: "player_disabled: an operator disabled the player",
    403: "credentials_refused: the proof does not hold (`details.reason`: wrong_code, "
    "wrong_password, not_linked, or the ID token's fault: audience, expired, "
    "signature, unknown_key, issuer, nonce_mismatch, nonce_missing, nonce_replayed, "
    "malformed, missing_claim, not_yet_valid, keys_unavailable)",
    429: "rate_limited: too many wrong codes or passwords for this address or network",
}

SIGN_IN_METHODS = Described(
    summary="Ways to sign in",
    description="What this service signs in with: email codes and passwords always, "
    "and the providers it has client ids for, with them (a web page needs Google's "
    "client id to show its button).",
)

IDENTITIES = Described(
    summary="My linked identities",
    description="The email addresses and Google or Apple accounts the caller signs in "
    "with on a new device. None: the account is a guest's, lost with its devices.",
)

LINK = Described(
    summary="Link an email address, or a Google or Apple account",
    description="Links the identity the proof shows to the caller: `email` and "
    "`code` (mailed by POST /players/email-codes, asked with the caller's token), "
    "or `provider` and `id_token` (and `nonce`). 201 with the identity; 200 if it "
    "was the caller's already. The caller's games, rating, devices and seats stay "
    "theirs: the guest account becomes one that lasts.",
)
LINK_ERRORS = {
    400: "invalid_request: not one proof (a password does not link)",
    404: PROVIDER_OFF,
    403: "credentials_refused: the proof does not hold (see POST /players/sign-in)",
    409: "identity_taken: another player has linked it (sign in with it instead); "
    "too_many_identities; idempotency_key_in_use",
    422: "idempotency_key_reused",
    429: "rate_limited: too many wrong codes",
}

PASSWORD = Described(
    summary="Set my password",
    description="Sets the password that signs in with the caller's email address "
    "(one must be linked): `new_password`, judged by the service's password rules "
    "(at least 8 characters, not common, not all digits, not like the name or "
    "address), with a fresh proof of the account: a code mailed to its address, "
    "the current password, or an ID token of a linked provider. " + PROOF,
)
PASSWORD_ERRORS = {
    400: "invalid_request: not one proof, or a weak password "
    "(`details.fields.new_password` says why)",
    409: "no_email_linked: a password signs in with an email address; link one first",
    404: PROVIDER_OFF,
    403: "credentials_refused: the proof does not hold, or is not of this account",
    429: "rate_limited: too many wrong codes or passwords",
}

DELETE_ACCOUNT = Described(
    summary="Delete my account",
    description="Erases the caller's personal data at once: the name becomes "
    "'Deleted player', and the email addresses, linked accounts, password, sessions "
    "(every token stops working), push devices and settings go; the player leaves "
    "the leaderboard and every open game (a bot takes a running game's seat). "
    "Finished games keep their logs, the seat under the placeholder name, so every "
    "replay stays exact. An account with a linked identity confirms with a fresh "
    "proof in the body; a guest's needs none. " + PROOF,
)
DELETE_ACCOUNT_ERRORS = {
    400: "invalid_request: not one proof",
    404: PROVIDER_OFF,
    403: "credentials_refused: no proof (`reason`: proof_required), or it does not "
    "hold, or is not of this account",
    429: "rate_limited: too many wrong codes or passwords",
}

EXPORT = Described(
    summary="Everything held about me",
    description="What the service holds about the caller, as one JSON document: the "
    "account (name, when it was made, whether a password is set, statistics and "
    "rating), linked identities, sessions, push devices (never their secrets), "
    "notification settings, and the games played (each game's log through its "
    "own endpoints).",
)
