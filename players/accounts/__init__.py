"""Accounts that last: a guest links an email address (verified by a code sent
there, with a password if they like) or a Google or Apple account, and signs in with
it on any device; deletes their account; downloads what the service holds about
them. docs/api.md, "Accounts"."""
