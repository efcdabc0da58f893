"""cocoweb settings: one module, driven by environment variables (django-environ).

Defaults give a self-contained development set-up: SQLite in ``var/`` and an embedded Celery
broker (kombu's SQLAlchemy transport on a SQLite file), so no server is needed. Production sets
``DATABASE_URL=postgres://…``, ``CELERY_BROKER_URL=redis://…``, ``DJANGO_SECRET_KEY``,
``DJANGO_ALLOWED_HOSTS`` and ``DJANGO_DEBUG=false``.
"""

from __future__ import annotations

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(environ.Env().str("COCOWEB_VAR_DIR", default=str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

env = environ.Env(
    DJANGO_DEBUG=(bool, False),
    DJANGO_ALLOWED_HOSTS=(list, ["localhost", "127.0.0.1"]),
)

DEBUG = env("DJANGO_DEBUG")
# A development key is only accepted when DEBUG is on; production must provide its own.
_DEV_KEY = "django-insecure-dev-only-cocoweb"
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default=_DEV_KEY if DEBUG else "")
if not SECRET_KEY:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is false")
ALLOWED_HOSTS = env("DJANGO_ALLOWED_HOSTS")
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])
# Pages hand the token to htmx in hx-headers; no script needs to read the cookie.
CSRF_COOKIE_HTTPONLY = True

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served from our static files, not a CDN (offline, CSP)
    "django_htmx",
    "accounts",
    "knowledge",
    "runs",
    "annotation",
    "explorer",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "cocoweb.csp.ContentSecurityPolicyMiddleware",  # script-src 'self': no inline script runs
    "whitenoise.middleware.WhiteNoiseMiddleware",  # serves static files under gunicorn
    "cocoweb.params.QueryGuardMiddleware",  # a NUL in the path or query string: 400 naming it
    "cocoweb.middleware.DatabaseUnavailableMiddleware",  # a lost database: 503 + Retry-After, not a bare 500
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "accounts.middleware.AuthenticationMiddleware",  # Django's, letting the backend see the session's user copy
    # Body cap (413) and file parts parsed only on upload routes, for the role they need: after the
    # user is known, before CSRF's process_view reads the form.
    "cocoweb.uploads.UploadRoutesMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "cocoweb.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.roles",
            ],
            "libraries": {"pager": "cocoweb.pager_tags"},  # {% load pager %}: templates/pager.html
        },
    },
]

WSGI_APPLICATION = "cocoweb.wsgi.application"

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'cocoweb.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets the web server read while the worker writes; the timeout waits for locks. Transactions
    # start IMMEDIATE (take the write lock at BEGIN): a deferred one that read first fails at once with
    # "database is locked" when it then writes after another connection did (the busy timeout does
    # not apply to that upgrade), which answered 503 to annotators whose answer was stored.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 30,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
        }
    )
else:
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DJANGO_CONN_MAX_AGE", default=60)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # Django's, with a health check that polls the socket before it sends SELECT 1 (cocoweb/postgresql/base.py)
        DATABASES["default"]["ENGINE"] = "cocoweb.postgresql"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Django's ModelBackend, whose per-request user lookup also reads the role (one query, not two).
AUTHENTICATION_BACKENDS = ["accounts.backends.RoleModelBackend"]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Failed log-ins (per NFKC+casefold user name and per address) and wrong old passwords on the
# password-change form (per account) within the window before the form answers 429 (accounts/throttle.py).
LOGIN_THROTTLE_WINDOW = env.int("COCOWEB_LOGIN_THROTTLE_WINDOW", default=15 * 60)
LOGIN_THROTTLE_PER_USER = env.int("COCOWEB_LOGIN_THROTTLE_PER_USER", default=5)
LOGIN_THROTTLE_PER_ADDRESS = env.int("COCOWEB_LOGIN_THROTTLE_PER_ADDRESS", default=30)
PASSWORD_CHANGE_THROTTLE_PER_USER = env.int("COCOWEB_PASSWORD_CHANGE_THROTTLE_PER_USER", default=5)

# Crowd study links: new participants per client address and per study within the window before the
# link answers 429 (annotation/crowd/join_limits.py). A class behind one NAT address may need more.
COCOWEB_JOIN_THROTTLE_WINDOW = env.int("COCOWEB_JOIN_THROTTLE_WINDOW", default=60 * 60)
COCOWEB_JOIN_PER_ADDRESS = env.int("COCOWEB_JOIN_PER_ADDRESS", default=20)
COCOWEB_JOIN_PER_STUDY = env.int("COCOWEB_JOIN_PER_STUDY", default=1000)

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = env.str("DJANGO_STATIC_ROOT", default=str(VAR_DIR / "staticfiles"))
# Static files collected compressed (gzip beside each file) under content-hashed names, served by
# WhiteNoise with far-future caching: always in production, and in the demo (`make run` collects
# them and runs `runserver --nostatic`). False: served as they lie in static/ (edit and reload).
COCOWEB_STATIC_COMPRESSED = env.bool("COCOWEB_STATIC_COMPRESSED", default=not DEBUG)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if COCOWEB_STATIC_COMPRESSED
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# Compressed: WhiteNoise serves only what collectstatic wrote (hashed names, with their .gz).
WHITENOISE_USE_FINDERS = not COCOWEB_STATIC_COMPRESSED
WHITENOISE_AUTOREFRESH = DEBUG and not COCOWEB_STATIC_COMPRESSED
MEDIA_ROOT = env.str("DJANGO_MEDIA_ROOT", default=str(VAR_DIR / "media"))
# Conceptualisation files for CoCo builds from the browser (knowledge/services/abstract_files.py); web
# processes and workers must share this folder.
COCOWEB_ABSTRACT_DIR = Path(env.str("COCOWEB_ABSTRACT_DIR", default=str(Path(MEDIA_ROOT) / "abstract")))

# Uploads: researchers upload data files through the browser; cap the size (checked while the
# body is read: cocoweb/uploads.py). Ratings files are parsed in memory: a smaller cap.
COCOWEB_MAX_UPLOAD_BYTES = env.int("COCOWEB_MAX_UPLOAD_BYTES", default=50 * 1024 * 1024)
COCOWEB_MAX_RATINGS_BYTES = env.int("COCOWEB_MAX_RATINGS_BYTES", default=10 * 1024 * 1024)
FILE_UPLOAD_HANDLERS = [
    "cocoweb.uploads.SizeLimitUploadHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
# Every upload form takes one file; Django's default (100 parts) let one anonymous request spool
# gigabytes to disk. Bodies are capped before they are read (cocoweb.uploads.UploadRoutesMiddleware):
# upload routes at COCOWEB_MAX_UPLOAD_BYTES plus this much room for the form, others at
# DATA_UPLOAD_MAX_MEMORY_SIZE; file parts sent to any other route are skipped unread.
DATA_UPLOAD_MAX_NUMBER_FILES = env.int("COCOWEB_MAX_FILES_PER_REQUEST", default=2)
COCOWEB_MAX_REQUEST_OVERHEAD_BYTES = env.int("COCOWEB_MAX_REQUEST_OVERHEAD_BYTES", default=1024 * 1024)

# Celery: embedded SQLite broker by default, Redis in production.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=f"sqla+sqlite:///{VAR_DIR / 'celery-broker.sqlite'}")
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default="") or None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = False
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Broker outages: keep reconnecting for as long as it takes, and let running tasks finish meanwhile
# (a model run holds a lease in the database, so a duplicate delivery cannot run it twice; Celery 6
# would cancel them by default). Runs whose messages died with the broker are re-sent by the
# housekeeping workers when they reconnect (runs/tasks.py).
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False

# Leases (cocoweb/leases.py): a job whose worker has not beaten for STALE seconds counts as
# abandoned and is taken over (housekeeping re-sends it); a live worker beats every HEARTBEAT
# seconds (default: a sixth of the stale limit).
COCOWEB_RUN_STALE_SECONDS = env.float("COCOWEB_RUN_STALE_SECONDS", default=60)
# Adaptive redundancy (issue 26): a process that stored this many answers of an MCQA campaign sends a
# refit of the campaign's annotator models (Dawid-Skene, MACE) to the housekeeping queue; 0: never.
COCOWEB_QUALITY_REFIT_EVERY = env.int("COCOWEB_QUALITY_REFIT_EVERY", default=200)
COCOWEB_RUN_HEARTBEAT_SECONDS = env.float(
    "COCOWEB_RUN_HEARTBEAT_SECONDS", default=max(0.5, COCOWEB_RUN_STALE_SECONDS / 6)
)
COCOWEB_FINETUNE_STALE_SECONDS = env.float("COCOWEB_FINETUNE_STALE_SECONDS", default=120)
COCOWEB_FINETUNE_HEARTBEAT_SECONDS = env.float(
    "COCOWEB_FINETUNE_HEARTBEAT_SECONDS", default=max(0.5, COCOWEB_FINETUNE_STALE_SECONDS / 6)
)
# Where fine-tuned models land (runs.FineTune): inside the first models folder, so runs can name them.
COCOWEB_FINETUNE_DIR = Path(env.str("COCOWEB_FINETUNE_DIR", default=str(VAR_DIR / "models" / "finetuned")))
COCOWEB_BUILD_STALE_SECONDS = env.float("COCOWEB_BUILD_STALE_SECONDS", default=120)
COCOWEB_BUILD_HEARTBEAT_SECONDS = env.float(
    "COCOWEB_BUILD_HEARTBEAT_SECONDS", default=max(0.5, COCOWEB_BUILD_STALE_SECONDS / 6)
)
# The explorer's stored aggregates (explorer.models.StoredAggregate) not computed again for this
# many days are deleted by the housekeeping tick; a page computes them again when asked.
COCOWEB_STORED_AGGREGATE_DAYS = env.float("COCOWEB_STORED_AGGREGATE_DAYS", default=30)
# The plausibility model's decision threshold, which a researcher may tune: a triple or a distractor
# the model scores at least this is plausible (COM2 uses Vera's 0.5, the core's one constant
# commonsense.kg.edges.PLAUSIBLE). The default of build_questions/build_coco --plausibility-threshold
# and of knowledge.services.triple_plausibility.plausibility_check; a build keys its index by it.
COCOWEB_PLAUSIBILITY_THRESHOLD = env.float("COCOWEB_PLAUSIBILITY_THRESHOLD", default=0.5)
# A build writes its progress on the job row at most this often (seconds).
COCOWEB_BUILD_PROGRESS_SECONDS = env.float("COCOWEB_BUILD_PROGRESS_SECONDS", default=0.5)
# Items a run scores between two writes of its predictions and progress, at most (a run's chunk_size
# wins); fewer when the model is slow, so that progress moves about every COCOWEB_RUN_PROGRESS_SECONDS.
COCOWEB_RUN_CHUNK_SIZE = env.int("COCOWEB_RUN_CHUNK_SIZE", default=32)
COCOWEB_RUN_PROGRESS_SECONDS = env.float("COCOWEB_RUN_PROGRESS_SECONDS", default=5.0)
# Sharded runs (runs/shards.py): a run with more items than this is split into shards of this many
# items, which every eval worker on every machine claims (start more eval workers to use them;
# scripts/run.sh: COCOWEB_EVAL_WORKERS). 0: a run is never split, one worker scores it all. A run's
# own ``shard_size`` parameter wins (run_eval --param shard_size=N).
COCOWEB_EVAL_SHARD_SIZE = max(0, env.int("COCOWEB_EVAL_SHARD_SIZE", default=0))
# Node texts (knowledge/services/node_texts.py): a graph's node texts are judged by the English rules
# and the Link Grammar parse in this many forked workers on its first build (1: in the build's own
# process). A worker that is itself a daemon (a Celery prefork child) judges them alone.
COCOWEB_TEXT_WORKERS = max(1, env.int("COCOWEB_TEXT_WORKERS", default=2))

# Caches: local memory by default; Redis when configured. Log-in throttling counts live here, so
# production sets CACHE_URL (a deploy check warns otherwise).
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://cocoweb")}
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    CACHES["default"]["BACKEND"] = "cocoweb.cache.RedisCache"  # one client per pool (cocoweb/cache.py)
# Number of trusted reverse proxies in front of the web server (0: clients connect directly). The
# log-in throttle then takes the client's address from X-Forwarded-For, as that many proxies saw it.
COCOWEB_PROXY_HOPS = env.int("COCOWEB_PROXY_HOPS", default=0)
# The Content-Security-Policy of every response (cocoweb/csp.py); empty: none.
COCOWEB_CONTENT_SECURITY_POLICY = env.str(
    "COCOWEB_CONTENT_SECURITY_POLICY",
    default="default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
    "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'",
)
# Sessions are read through the cache (one Redis GET instead of a database query per request) only
# when every process shares that cache: with a per-process local-memory cache another process
# would keep serving a session that was ended (log-out) elsewhere.
_SHARED_CACHE = CACHES["default"]["BACKEND"].rsplit(".", 1)[-1] in ("RedisCache", "PyMemcacheCache", "PyLibMCCache")
SESSION_ENGINE = f"django.contrib.sessions.backends.{'cached_db' if _SHARED_CACHE else 'db'}"
if CACHES["default"]["BACKEND"] == "cocoweb.cache.RedisCache":
    # Redis: the same, and the session's cached record carries the user and role too (one round
    # trip for both; every copy of a person is dropped when their row or role changes).
    SESSION_ENGINE = "accounts.sessions"
# The signed-in user and their role are read from that shared cache too (accounts/backends.py),
# for at most this many seconds; writes through the models drop the copy at once. 0: off (the
# default with a per-process cache, for the same reason as the sessions).
COCOWEB_USER_CACHE_SECONDS = env.int("COCOWEB_USER_CACHE_SECONDS", default=300 if _SHARED_CACHE else 0)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.api_tokens.HashedTokenAuthentication",  # Authorization: Token <key>, stored hashed
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": [  # DRF's three, JSON with a bound on nesting (cocoweb/api_parsers.py)
        "cocoweb.api_parsers.DepthLimitedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "cocoweb API",
    "DESCRIPTION": "Commonsense knowledge workbench: question sets, annotation campaigns, model runs.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The schema and its docs: people with a role (a crowd participant is signed in without one).
    "SERVE_PERMISSIONS": ["cocoweb.api_schema.HasAnnotatorRole"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "cocoweb.api_schema.nul_refusal_documented",  # the query guard's 400, on every operation
    ],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Where model conversions and embedding caches live (never downloaded: built locally).
COCOWEB_CACHE_DIR = Path(env.str("COCOWEB_CACHE_DIR", default=str(VAR_DIR / "cache")))

# What runs may use (runs/catalog.py; the Models page lists it). Researchers name a model, a file or
# an endpoint, never a free path or URL:
# - COCOWEB_MODELS_DIRS: folders (comma-separated) whose .gguf files and model folders (with
#   config.json) runs may load, besides the packaged SmolLM2-135M-Instruct and all-MiniLM-L6-v2;
# - COCOWEB_RUN_FILES_DIRS: folders whose regular files runs may replay (prediction files,
#   ReComSBench paths files);
# - COCOWEB_MODEL_ENDPOINTS: JSON {"name": {"url": "https://…/v1", "api_key_env": "VAR_NAME",
#   "models": ["model-a", …]}}: OpenAI-compatible servers; each key is read from its own variable
#   and sent only to its own URL.
COCOWEB_MODELS_DIRS = [Path(p) for p in env.list("COCOWEB_MODELS_DIRS", default=[str(VAR_DIR / "models")])]
COCOWEB_RUN_FILES_DIRS = [Path(p) for p in env.list("COCOWEB_RUN_FILES_DIRS", default=[str(VAR_DIR / "run-files")])]
COCOWEB_MODEL_ENDPOINTS = env.json("COCOWEB_MODEL_ENDPOINTS", default={})

# The shortcut audit's option-only baseline (issue 25, knowledge/services/shortcuts.py): the model that scores
# each option with the question withheld, computed on a worker after every set is stored. A packaged
# model's name or a model under COCOWEB_MODELS_DIRS; "" turns the job off (the page says "not
# computed"). At most COCOWEB_OPTION_ONLY_MAX_ITEMS items of a set are scored (a seeded sample).
COCOWEB_OPTION_ONLY_MODEL = env.str("COCOWEB_OPTION_ONLY_MODEL", default="smollm2-135m-instruct")
COCOWEB_OPTION_ONLY_MAX_ITEMS = env.int("COCOWEB_OPTION_ONLY_MAX_ITEMS", default=2000)

if not DEBUG:
    SESSION_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=True)
    CSRF_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=True)
    SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env.int("DJANGO_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    if COCOWEB_PROXY_HOPS > 0:
        # Only a proxy we trust sets X-Forwarded-Proto; without one, a client would send the header
        # itself and a plain-HTTP request would pass for HTTPS (no redirect, secure cookies sent).
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"forbidden_without_traceback": {"()": "cocoweb.log_filters.ForbiddenWithoutTraceback"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"filters": ["forbidden_without_traceback"]}},  # a 403 is one line
    "root": {"handlers": ["console"], "level": env.str("DJANGO_LOG_LEVEL", default="INFO")},
}
