"""Settings of the UNO service, read from the environment (docs/operations.md, "Configuration").

Without any variable set, the service runs for development: DEBUG on, an SQLite
file and a file-system Celery broker under ``var/`` (or ``VAR_DIR``).
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_email_url
import django_stubs_ext

from unoservice.env import (
    BROKER_VISIBILITY_TIMEOUT,
    DATABASE_POOLERS,
    NO_POOLER,
    broker_config,
    cache_config,
    check_push_allow_http,
    check_secret_key,
    database_config,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_str,
    https_settings,
    listen_database_url,
    replica_database_config,
)

# ModelAdmin[Game], TextField[Any, Any]: the type arguments django-stubs reads.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent
# Runtime data of a checkout (SQLite file, file-system broker, beat schedule, static).
# VAR_DIR moves it, so that two instances of one checkout keep apart.
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var"))).resolve()
VAR_DIR.mkdir(parents=True, exist_ok=True)

# --- Core -------------------------------------------------------------------------

DEBUG = env_bool("DEBUG", default=True)

# DEVELOPMENT ONLY: this key is public. Set SECRET_KEY in every deployment; the
# service refuses to start with it when DEBUG is false.
DEV_SECRET_KEY = "django-insecure-dev-only-uno-service-key-do-not-use-in-production"
SECRET_KEY = env_str("SECRET_KEY", DEV_SECRET_KEY)
check_secret_key(SECRET_KEY, debug=DEBUG, dev_default=DEV_SECRET_KEY)

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# Reverse proxies in front of the service whose X-Forwarded-For entries are trusted.
# 0 trusts none: a client could write any address into the header and slip past the
# per-address rate limits. Behind one proxy (a load balancer), 1; and so on.
NUM_PROXIES = env_int("NUM_PROXIES", 0)

# What a connection may cost the server before it has sent a valid request
# (unoservice.connections): the one body limit is Django's own, refused from the
# Content-Length before any byte of the body is read.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
# The bodies a server process holds while they arrive, together (unoservice.wsgi_threads).
MAX_BODY_BYTES_BUFFERED = env_int("MAX_BODY_BYTES_BUFFERED", 32 * 1024 * 1024)
HTTP_HEAD_TIMEOUT = env_float("HTTP_HEAD_TIMEOUT", 10.0)
HTTP_BODY_TIMEOUT = env_float("HTTP_BODY_TIMEOUT", 10.0)
# Per server process; lowered to fit the process's open-file limit at start.
MAX_CONNECTIONS = env_int("MAX_CONNECTIONS", 10_000)
# Per peer address and server process, when no proxy stands in front (NUM_PROXIES=0).
MAX_CONNECTIONS_PER_ADDRESS = env_int("MAX_CONNECTIONS_PER_ADDRESS", 512)

# HTTPS=true when clients reach the service over HTTPS through a proxy that sets
# X-Forwarded-Proto: plain HTTP is redirected, HSTS is sent (HSTS_SECONDS) and the
# session and CSRF cookies are secure. Off by default, so http://localhost works.
# Sets SECURE_PROXY_SSL_HEADER, SECURE_SSL_REDIRECT, SECURE_REDIRECT_EXEMPT,
# SESSION_COOKIE_SECURE, CSRF_COOKIE_SECURE and SECURE_HSTS_* (see env.https_settings).
HTTPS = env_bool("HTTPS", default=False)
globals().update(https_settings(HTTPS, env_int("HSTS_SECONDS", 31_536_000)))

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "axes",
    # Its system checks read the CORS settings (a malformed origin fails `check`).
    "corsheaders",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_filters",
    "games",
    "players",
    "unoservice.idempotency",
]

# BENCH_FLOOR=true mounts POST /bench/floor, the database floor of the HTTP load
# benchmark (bench/floor.py), and installs its `bench` app. Never in production.
BENCH_FLOOR = env_bool("BENCH_FLOOR", default=False)
if BENCH_FLOOR:
    INSTALLED_APPS.append("bench")

MIDDLEWARE = [
    # First: the request id for everything inside, and the request's line and metrics.
    "unoservice.observability.RequestMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Serves the admin's static files under gunicorn, with no web server in front.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    # After the Host check, before anything that authenticates or throttles: a
    # preflight is answered here. (Under the server, the ASGI layer answers them first.)
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "unoservice.security.AdminContentSecurityPolicy",
    # Unknown paths under /api/ answer the API's 404 in development too.
    "unoservice.api_errors.JsonNotFoundInDevelopment",
    # Turns a login refused by the lockout into its 429 page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "unoservice.urls"
WSGI_APPLICATION = "unoservice.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------------

# DATABASE_URL, e.g. postgres://user:password@host:5432/uno (psycopg 3).
# Unset: the SQLite file var/db.sqlite3.
# DATABASE_POOLER=transaction when DATABASE_URL leads to a pooler in transaction mode
# (PgBouncer's `pool_mode = transaction`): nothing then outlives a transaction
# (env.pooled_options), and LISTEN_DATABASE_URL must reach PostgreSQL directly.
DATABASE_POOLER = env_choice("DATABASE_POOLER", DATABASE_POOLERS, NO_POOLER)
DATABASES = {
    "default": database_config(os.environ.get("DATABASE_URL"), VAR_DIR, pooler=DATABASE_POOLER)
}
# The live hub's one LISTEN connection per process; unset, DATABASES["default"]'s.
LISTEN_DATABASE_URL = listen_database_url(os.environ.get("LISTEN_DATABASE_URL"), DATABASE_POOLER)
# REPLICA_DATABASE_URL: a streaming replica of it, read for what may lag a little
# (the leaderboard, profiles, finished games' logs: unoservice.replica). Unset: the
# primary serves every read.
if os.environ.get("REPLICA_DATABASE_URL"):
    DATABASES["replica"] = replica_database_config(os.environ["REPLICA_DATABASE_URL"], VAR_DIR)
DATABASE_ROUTERS = ["unoservice.replica.ReplicaRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Admin login ------------------------------------------------------------------

# Staff passwords are the only Django logins (the API has its own bearer tokens), so
# guessing them is throttled: axes refuses a username, and separately a client
# address, after ADMIN_LOGIN_FAILURE_LIMIT failures, even with the right password,
# until ADMIN_LOGIN_COOLOFF_MINUTES have passed. Counted in the database, so every
# process and host sees the same failures.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: it refuses before a password is tried
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("ADMIN_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("ADMIN_LOGIN_COOLOFF_MINUTES", 15))
# Either one reaching the limit locks: many addresses cannot share out the guesses
# at one account, nor one address spread them over many accounts.
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
# The address as the API's rate limits see it: X-Forwarded-For only from NUM_PROXIES
# trusted proxies, so a forged header cannot earn an attacker a fresh address, and
# an IPv6 address stands for its /64, so neither can the addresses of one network.
AXES_CLIENT_IP_CALLABLE = "unoservice.client_address.client_group_address"

# --- Internationalisation and static files ----------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
# The web client's scripts and styles (web/), under /static/play/; its page is
# unoservice.play's.
STATICFILES_DIRS = [("play", BASE_DIR / "web")]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Deployed (DEBUG off): compressed, with content hashes in the names, built by
    # collectstatic (the Docker image runs it). In development: straight from the apps.
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

# --- REST API ---------------------------------------------------------------------

# A CSRF failure outside the admin answers in the API's error shape, not as HTML.
CSRF_FAILURE_VIEW = "unoservice.api_errors.csrf_failure"

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "unoservice.schema.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": ["players.auth.BearerTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "unoservice.pagination.StrictPageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_RENDERER_CLASSES": ["unoservice.parsers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["unoservice.parsers.JSONParser"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "unoservice.parsers.JSONOnlyNegotiation",
    "EXCEPTION_HANDLER": "unoservice.api_errors.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "unoservice.throttling.PlayerRateThrottle",
        "unoservice.throttling.AnonymousRateThrottle",
    ],
    # Requests per player, and per client address without a token (creating players).
    # A load test lifts them through the environment.
    "DEFAULT_THROTTLE_RATES": {
        "player": env_str("THROTTLE_RATE_PLAYER", "600/min"),
        "anonymous": env_str("THROTTLE_RATE_ANONYMOUS", "60/min"),
        # /healthz per address: a probe every second from one address is 60.
        "health": env_str("THROTTLE_RATE_HEALTH", "600/min"),
        # Wrong invite codes per player (joining by code, or watching a private game
        # with one): 10 a minute leave 31**8 codes out of any guesser's reach.
        "invite_code": env_str("THROTTLE_RATE_INVITE_CODE", "10/min"),
        # ... and per client address, whatever the accounts: sign-ups are free, so
        # this is what bounds a guesser with many accounts.
        "invite_code_address": env_str("THROTTLE_RATE_INVITE_CODE_ADDRESS", "30/min"),
        # Email codes asked for per client address (each mail also waits a minute
        # after the last one to its address): mail costs, and lands in inboxes.
        "email_code_address": env_str("THROTTLE_RATE_EMAIL_CODE_ADDRESS", "20/hour"),
        # Wrong email codes and passwords per email address, from anywhere: with
        # 5 tries a code, a six-digit code stays out of a guesser's reach.
        "sign_in_email": env_str("THROTTLE_RATE_SIGN_IN_EMAIL", "10/hour"),
        # ... and per client address, whatever the email.
        "sign_in_address": env_str("THROTTLE_RATE_SIGN_IN_ADDRESS", "60/hour"),
        # Friend requests sent, invites to games sent, and reports filed per player:
        # each lands in someone else's lobby, phone or the staff's queue.
        "friend_request": env_str("THROTTLE_RATE_FRIEND_REQUEST", "60/hour"),
        "game_invite": env_str("THROTTLE_RATE_GAME_INVITE", "60/hour"),
        "report": env_str("THROTTLE_RATE_REPORT", "20/hour"),
    },
    "UNAUTHENTICATED_USER": None,
    # The client address of the per-address limits (see NUM_PROXIES).
    "NUM_PROXIES": NUM_PROXIES,
}

# A device's session (its token) unused this long is expired: refused, then deleted.
SESSION_IDLE_DAYS = env_int("SESSION_IDLE_DAYS", 90)

# Game streams, lobby streams and long polls that wait, held open together at once by
# one player and by one client address (`unoservice.stream_caps`): 429 beyond.
MAX_STREAMS_PER_PLAYER = env_int("MAX_STREAMS_PER_PLAYER", 32)
MAX_STREAMS_PER_ADDRESS = env_int("MAX_STREAMS_PER_ADDRESS", 256)

# --- Web pages on other origins (CORS) ---------------------------------------------

# Origins whose pages may call the API: scheme://host[:port], comma-separated; `*`
# lets every origin in. Bearer tokens, not cookies, authenticate the API: a page
# reads answers but never sends credentials (no credentials mode), so a page of an
# origin let in can do no more than its code holding a token could anyway.
# The one check of an origin, for Django and for the streams served outside it, is
# django-cors-headers' (see unoservice.cors).
_CORS_ORIGINS = env_list("CORS_ALLOWED_ORIGINS", [])
CORS_ALLOW_ALL_ORIGINS = "*" in _CORS_ORIGINS
CORS_ALLOWED_ORIGINS = [origin for origin in _CORS_ORIGINS if origin != "*"]
# In development, pages served from this machine on any port too.
CORS_ALLOWED_ORIGIN_REGEXES = (
    [r"^https?://(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$"] if DEBUG else []
)
CORS_ALLOW_CREDENTIALS = False
# The API's paths only: the admin, /healthz and /metrics are not for pages elsewhere.
CORS_URLS_REGEX = r"^/api/"
CORS_ALLOW_METHODS = ["GET", "HEAD", "POST", "PATCH", "DELETE"]
CORS_ALLOW_HEADERS = [
    "accept",
    "authorization",
    "content-type",
    "idempotency-key",
    "last-event-id",
    "x-request-id",
]
# What a page may read of an answer beyond the headers every page may read
# (Content-Type, Cache-Control, ...): every other header the API sends.
CORS_EXPOSE_HEADERS = ["Retry-After", "X-Request-ID", "Idempotent-Replayed", "WWW-Authenticate"]
# A browser asks again after this long at most (Chromium keeps it 2 hours at most).
CORS_PREFLIGHT_MAX_AGE = 86400

# Rate-limit counters and presence. CACHE_URL (redis://...) shares them between processes; the
# default keeps them per process.
CACHES = {"default": cache_config(os.environ.get("CACHE_URL"))}
# Several server processes without CACHE_URL are refused with DEBUG off (each would count
# the limits alone) unless this says that limits per process are wanted.
PER_PROCESS_LIMITS = env_bool("PER_PROCESS_LIMITS", default=False)

SPECTACULAR_SETTINGS = {
    "TITLE": "UNO service API",
    "DESCRIPTION": "UNO games by the official rules, with exact replay, bots and turn timers.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The docs pages' scripts and styles come from the service's own static files,
    # never from a CDN: they work on a machine without internet.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No badge from Swagger's outside validator.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    # Docstrings are written for the service's developers; what clients read is
    # given explicitly (summary, description, help_text).
    "DISABLE_DOCSTRING_DESCRIPTIONS": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.event_schema.inline_event_types",
        "unoservice.schema.defaults_described",
        "unoservice.schema.chosen_bodies_required",
        "unoservice.schema.page_examples",
    ],
    # The streams' second way in: a browser's EventSource sends a ticket, not a token.
    "APPEND_COMPONENTS": {
        "securitySchemes": {
            "streamTicket": {
                "type": "apiKey",
                "in": "query",
                "name": "ticket",
                "description": "a one-time stream ticket (POST .../stream-ticket), for a "
                "browser's EventSource, which cannot send a token",
            }
        }
    },
    # One schema name per choice set used in several places.
    "ENUM_NAME_OVERRIDES": {
        "Color": "games.serializers.COLORS",
        "BotStrategy": "games.serializers.BOT_STRATEGIES",
        "Visibility": "games.serializers.VISIBILITIES",
        "Direction": "games.serializers.DIRECTIONS",
        "PendingType": "games.serializers.PENDING_TYPES",
        "DealAlgorithm": "games.serializers.common.DEAL_ALGORITHMS",
        "GameMode": "games.serializers.common.MODES",
        # A game's, and the health check's: each keeps a name of its own.
        "StatusEnum": "games.serializers.GAME_STATUSES",
        "HealthStatus": "unoservice.health.STATUSES",
        "IdentityProvider": "players.id_tokens.PROVIDERS",
        "HealthCheckState": "unoservice.health.CHECK_STATES",
        "HealthProcessState": "unoservice.health.PROCESS_STATES",
        "DeviceKind": "players.push.serializers.DEVICE_KINDS",
        "WebPushDeviceKind": "players.push.serializers.WEBPUSH_KIND",
        "FcmDeviceKind": "players.push.serializers.FCM_KIND",
        "NotificationKind": "players.push.notification.KINDS",
        # Why a game did not count: a history's, and a game's view and lobby row's
        # (which may also say it was abandoned).
        "HistoryEntryOutUnratedReasonEnum": "games.ratings.rules.UNRATED_REASONS",
        "GameUnratedReason": "games.ratings.rules.VIEW_UNRATED_REASONS",
    },
}

# --- Celery -----------------------------------------------------------------------

# CELERY_BROKER_URL, e.g. redis://host:6379/0. Unset: kombu's file-system transport
# under var/broker/, which needs no server. CELERY_VISIBILITY_TIMEOUT: seconds before
# Redis delivers again a task taken but not acknowledged (docs/design.md, Timers).
CELERY_BROKER_URL, CELERY_BROKER_TRANSPORT, CELERY_BROKER_TRANSPORT_OPTIONS = broker_config(
    os.environ.get("CELERY_BROKER_URL"),
    VAR_DIR,
    visibility_timeout=env_int("CELERY_VISIBILITY_TIMEOUT", BROKER_VISIBILITY_TIMEOUT),
)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A task is acknowledged after it ran, one at a time per worker process, and handed
# to another worker when its process dies: tasks are idempotent by the version guard.
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_DEFAULT_QUEUE = "celery"  # every task but pushes
# Push deliveries wait on push services outside: a queue of their own, consumed by a
# worker of its own (`celery worker -Q push`), so that bot turns, timers and sweeps
# never wait behind them.
PUSH_QUEUE = "push"
CELERY_TASK_ROUTES = {"players.push_*": {"queue": PUSH_QUEUE}}
# Every queue a worker must consume: the metrics report their lengths, /healthz when
# a task of each last ran (beat sends each a heartbeat).
SERVICE_QUEUES = [CELERY_TASK_DEFAULT_QUEUE, PUSH_QUEUE]
CELERY_TASK_ALWAYS_EAGER = False
CELERY_TIMEZONE = TIME_ZONE
# The backstop of the turn timers: a lost countdown task delays a timeout by at most
# this much. A sweep that waited longer than one interval for a worker is dropped.
TURN_SWEEP_SECONDS = env_float("TURN_SWEEP_SECONDS", 2.0)
# A player watching a game from a stream is pushed their turn only once they have
# not acted this long into it (games.notifications).
NOTIFY_AFTER_SECONDS = env_float("NOTIFY_AFTER_SECONDS", 30.0)
# Beat sends each queue a heartbeat task this often; /healthz counts a queue whose
# last heartbeat ran more than 5 intervals ago as not consumed.
QUEUE_HEARTBEAT_SECONDS = env_float("QUEUE_HEARTBEAT_SECONDS", 5.0)
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "sweep-overdue-turns": {
        "task": "games.sweep_overdue",
        "schedule": TURN_SWEEP_SECONDS,
        "options": {"expires": TURN_SWEEP_SECONDS},
    },
    # Proof that each queue's tasks are being run (/healthz reads when each last ran).
    **{
        f"heartbeat-{queue}": {
            "task": "games.heartbeat",
            "schedule": QUEUE_HEARTBEAT_SECONDS,
            "args": [queue],
            "options": {"queue": queue, "expires": QUEUE_HEARTBEAT_SECONDS},
        }
        for queue in SERVICE_QUEUES
    },
    # Idempotency records answer retries for 24 hours; older ones are dropped.
    "purge-idempotency-records": {
        "task": "games.purge_idempotency_records",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
    # Stream tickets live 60 seconds; the expired ones are dropped.
    "purge-stream-tickets": {
        "task": "games.purge_stream_tickets",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
    # Sessions unused for SESSION_IDLE_DAYS are refused; then dropped here.
    "purge-expired-sessions": {
        "task": "players.purge_expired_sessions",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
    # Table talk is kept TALK_KEPT_DAYS for reports; older messages are deleted.
    "purge-table-talk": {
        "task": "games.table_talk_purge",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# --- Table talk -------------------------------------------------------------------

# Messages one player may say at one game's table per window: 429 beyond.
TALK_MESSAGES_PER_WINDOW = env_int("TALK_MESSAGES_PER_WINDOW", 5)
TALK_WINDOW_SECONDS = env_int("TALK_WINDOW_SECONDS", 10)
# Messages are kept this long (for reports), then deleted.
TALK_KEPT_DAYS = env_int("TALK_KEPT_DAYS", 7)
# Free text is masked with glin-profanity: its dictionaries of these languages, plus
# words of the operator's own, less words the operator lets through.
TALK_PROFANITY_LANGUAGES = env_list("TALK_PROFANITY_LANGUAGES", ["english"])
TALK_PROFANITY_EXTRA_WORDS = env_list("TALK_PROFANITY_EXTRA_WORDS", [])
TALK_PROFANITY_ALLOWED_WORDS = env_list("TALK_PROFANITY_ALLOWED_WORDS", [])
TALK_MASK = env_str("TALK_MASK", "***")

# --- Game service -----------------------------------------------------------------

# Seconds a bot waits before it plays, so that people can follow the table.
BOT_THINK_SECONDS = env_float("BOT_THINK_SECONDS", 1.0)

# Seconds between a round's end and the next round's first turn: a bot's first move
# and the first player's turn timer wait that long, so that everyone sees how the
# round ended (the web client's round-end screen counts down the same).
ROUND_BREAK_SECONDS = env_float("ROUND_BREAK_SECONDS", 10.0)

# Expert bot seats a player may have in their waiting and running games: the expert
# thinks hardest, and bots cost the service, not the player (docs/api.md, Bots).
MAX_EXPERT_BOTS_PER_PLAYER = env_int("MAX_EXPERT_BOTS_PER_PLAYER", 9)

# Whether any player may fix a new game's deal with `seed`. Whoever picks the seed
# can compute every hand of the game, so outside development only staff may.
CLIENT_SEEDS = env_bool("CLIENT_SEEDS", default=DEBUG)

# --- Push notifications -----------------------------------------------------------

# Players away from the table are reached on their devices (players.push). Web Push
# needs a VAPID key pair (`python manage.py vapid_keys` makes one): the public key
# as browsers take it (the 65-byte uncompressed P-256 point, base64url), the private
# key as the raw 32-byte scalar (base64url), and a contact for the push services
# (mailto: or https: URL). Without the keys nothing is sent by Web Push.
VAPID_PUBLIC_KEY = env_str("VAPID_PUBLIC_KEY", "")
VAPID_PRIVATE_KEY = env_str("VAPID_PRIVATE_KEY", "")
VAPID_SUBJECT = env_str("VAPID_SUBJECT", "")
# Firebase Cloud Messaging (HTTP v1) for Android and iOS apps: a service account's
# JSON key file; unset, nothing is sent by FCM. The endpoint may name {project_id}.
FCM_CREDENTIALS_FILE = env_str("FCM_CREDENTIALS_FILE", "")
FCM_ENDPOINT = env_str(
    "FCM_ENDPOINT", "https://fcm.googleapis.com/v1/projects/{project_id}/messages:send"
)
# Development and tests only: Web Push endpoints on plain http, any host and port,
# and loopback addresses (never private or link-local ones) for every push request.
# With DEBUG off it is refused unless PUSH_ALLOW_HTTP_WITHOUT_DEBUG says so too, so
# that a production environment cannot turn it on by one stray variable.
PUSH_ALLOW_HTTP = check_push_allow_http(
    env_bool("PUSH_ALLOW_HTTP", default=False),
    debug=DEBUG,
    confirmed=env_bool("PUSH_ALLOW_HTTP_WITHOUT_DEBUG", default=False),
)
# The push services a Web Push endpoint may name (each host and its subdomains): the
# worker posts wherever an endpoint points, so never to a host a client picked.
# Chrome, Edge's older and newer services, Firefox, Safari; Samsung, Opera and
# Brave use FCM's.
PUSH_SERVICE_HOSTS = env_list(
    "PUSH_SERVICE_HOSTS",
    [
        "fcm.googleapis.com",
        "android.googleapis.com",
        "notify.windows.com",
        "push.services.mozilla.com",
        "push.apple.com",
    ],
)
# Notifications per player and minute, whatever their devices; 0: no limit.
PUSH_RATE_PER_MINUTE = env_int("PUSH_RATE_PER_MINUTE", 20)
# Tries of one notification on one device, the first included (429, 5xx, network).
PUSH_MAX_ATTEMPTS = env_int("PUSH_MAX_ATTEMPTS", 5)
# Every request to a push service (and for FCM's access token) gives up after this
# many seconds on the wall clock: resolving, connecting, sending and the whole answer.
PUSH_TIMEOUT_SECONDS = env_float("PUSH_TIMEOUT_SECONDS", 10.0)
# The most of a push service's answer that is read; a longer one counts as no answer.
PUSH_MAX_ANSWER_BYTES = env_int("PUSH_MAX_ANSWER_BYTES", 64 * 1024)
# How long push services keep a notification that names no expiry of its own.
PUSH_DEFAULT_TTL = env_int("PUSH_DEFAULT_TTL", 86_400)

# --- Accounts: email codes, passwords, Google and Apple ----------------------------

# Mail (the codes that verify an email address): EMAIL_URL names the SMTP server, as
# smtp://user:password@host:587/?tls=True (dj-email-url's forms; smtps:// for TLS
# from the first byte). Unset, every mail is written to the console (development).
# The service only ever connects to this server, never to an address a client gives.
_EMAIL_URL = env_str("EMAIL_URL", "")
_EMAIL = dj_email_url.parse(_EMAIL_URL) if _EMAIL_URL else {}
EMAIL_BACKEND = _EMAIL.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = _EMAIL.get("EMAIL_HOST") or "localhost"
EMAIL_PORT = _EMAIL.get("EMAIL_PORT") or 25
EMAIL_HOST_USER = _EMAIL.get("EMAIL_HOST_USER") or ""
EMAIL_HOST_PASSWORD = _EMAIL.get("EMAIL_HOST_PASSWORD") or ""
EMAIL_USE_TLS = bool(_EMAIL.get("EMAIL_USE_TLS"))
EMAIL_USE_SSL = bool(_EMAIL.get("EMAIL_USE_SSL"))
# One deadline for each conversation with the SMTP server.
EMAIL_TIMEOUT = _EMAIL.get("EMAIL_TIMEOUT") or env_int("EMAIL_TIMEOUT", 10)
DEFAULT_FROM_EMAIL = env_str("EMAIL_FROM", "UNO <no-reply@localhost>")
# One code mailed to an address at most this often, whoever asks.
EMAIL_CODE_INTERVAL_SECONDS = env_int("EMAIL_CODE_INTERVAL_SECONDS", 60)
# Passwords (optional, with a verified email) are hashed with Argon2id, at OWASP's
# parameters (players.accounts.hashers); staff passwords too.
PASSWORD_HASHERS = [
    "players.accounts.hashers.Argon2idHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
# Sign-in with Google and Apple by the ID token the app holds: the client ids (OAuth
# client ids for Google, the app's bundle or services ids for Apple) an ID token may
# be issued to, comma-separated. None: that provider is off.
GOOGLE_CLIENT_IDS = env_list("GOOGLE_CLIENT_IDS", [])
APPLE_CLIENT_IDS = env_list("APPLE_CLIENT_IDS", [])
ID_TOKEN_PROVIDERS = {
    "google": {
        "name": "Google",
        "issuers": ["https://accounts.google.com", "accounts.google.com"],
        "jwks_url": "https://www.googleapis.com/oauth2/v3/certs",
        # Where a web page sends the person to sign in (OpenID Connect, implicit flow).
        "authorize_url": "https://accounts.google.com/o/oauth2/v2/auth",
        "client_ids": GOOGLE_CLIENT_IDS,
    },
    "apple": {
        "name": "Apple",
        "issuers": ["https://appleid.apple.com"],
        "jwks_url": "https://appleid.apple.com/auth/keys",
        "authorize_url": "https://appleid.apple.com/auth/authorize",
        "client_ids": APPLE_CLIENT_IDS,
    },
}
# Fetching a provider's keys: one deadline, a cap on the answer, and at most one
# fetch per provider this often when a token names a key id not held (a rotation),
# so that made-up key ids cannot make the service call out at will.
ID_TOKEN_KEYS_TIMEOUT_SECONDS = env_float("ID_TOKEN_KEYS_TIMEOUT_SECONDS", 5.0)
ID_TOKEN_KEYS_MAX_BYTES = env_int("ID_TOKEN_KEYS_MAX_BYTES", 64 * 1024)
ID_TOKEN_KEYS_REFRESH_SECONDS = env_int("ID_TOKEN_KEYS_REFRESH_SECONDS", 60)
# Development and tests only: a provider's keys fetched over plain http from this
# machine (a local issuer). Never set in production.
ID_TOKEN_KEYS_ALLOW_HTTP = False

# --- Metrics ----------------------------------------------------------------------

# GET /metrics answers Prometheus with `Authorization: Bearer <METRICS_TOKEN>`; while
# METRICS_TOKEN is unset the page does not exist (404).
METRICS_TOKEN = env_str("METRICS_TOKEN", "")

# What the platform package asks of the apps, named here where the apps are wired
# together, so that `unoservice` imports none of them: the families /metrics reads
# from the apps when scraped (collector classes); what /healthz judges beat by (the
# seconds since the last sweep of overdue turns at a given time, None for never) and
# the queues (the seconds since each one's last heartbeat, by queue);
# and what a server process runs when told to stop, before its grace ends.
METRICS_SCRAPED_COLLECTORS = ["games.metrics.GamesCollector"]
HEALTH_LAST_SWEEP_AGE = "games.selectors.last_sweep_age"
HEALTH_QUEUE_AGES = "games.selectors.queue_heartbeat_ages"
SERVER_STOPPING = ["games.live.hub.close_streams"]
# Where every process writes its counts (prometheus-client's multiprocess mode): one
# folder shared by the server, the worker and beat (in containers, a shared volume).
METRICS_DIR = Path(env_str("PROMETHEUS_MULTIPROC_DIR", str(VAR_DIR / "metrics"))).resolve()
METRICS_DIR.mkdir(parents=True, exist_ok=True)
os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(METRICS_DIR)

# --- Logging ----------------------------------------------------------------------

# LOG_FORMAT=json writes one JSON object per line (what log collectors read);
# plain is for people at a terminal. Deployed (DEBUG off) the default is json.
LOG_FORMAT = env_choice("LOG_FORMAT", ("json", "plain"), "plain" if DEBUG else "json")
# Whether each HTTP request and each task writes its line (LOG_REQUESTS=false: only
# warnings and errors, as load benchmarks want).
LOG_REQUESTS = env_bool("LOG_REQUESTS", default=True)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        # The request id (and the task) of what is being served, on every line.
        "context": {"()": "unoservice.observability.ContextFilter"},
    },
    "formatters": {
        "plain": {"()": "unoservice.observability.PlainFormatter"},
        "json": {"()": "unoservice.observability.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["context"],
        },
    },
    "root": {"handlers": ["console"], "level": "INFO"},
    "loggers": {
        # The login lockout: failures and lockouts (warnings), not every start and login.
        "axes": {"level": "WARNING"},
        # Django's own line per refused request: the service writes its own.
        "django.request": {"level": "ERROR"},
        "unoservice.requests": {"level": "INFO" if LOG_REQUESTS else "WARNING"},
        "unoservice.tasks": {"level": "INFO" if LOG_REQUESTS else "WARNING"},
        # Celery's own lines per task (received, succeeded): the service writes one.
        "celery.app.trace": {"level": "WARNING"},
        "celery.worker.strategy": {"level": "WARNING"},
    },
}
# The worker and beat log through the configuration above (JSON in production), not
# Celery's own handler.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
