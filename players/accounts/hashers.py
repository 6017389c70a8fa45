"""The password hasher: Argon2id with OWASP's memory-light parameters (19 MiB,
2 passes, 1 lane) instead of Django's 100 MiB on 8 lanes, so that the API threads
checking passwords at once stay within a server's memory. A hash keeps its own
parameters, so hashes made with other ones still verify (and are upgraded at the
next sign-in that checks them)."""

from __future__ import annotations

from django.contrib.auth.hashers import Argon2PasswordHasher


class Argon2idHasher(Argon2PasswordHasher):
    time_cost = 2
    memory_cost = 19 * 1024
    parallelism = 1
