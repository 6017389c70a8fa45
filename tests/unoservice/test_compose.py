"""docker-compose.yml stays in step with the settings: the services, their commands,
one shared environment of variables the settings read, and URLs that point at the
services the file defines. The API scales (`--scale api=N`) behind the balancer,
the only published port, whose configuration (deploy/haproxy.cfg) finds the
replicas through Docker's DNS and probes their liveness (/livez), while compose
waits for their readiness (/healthz). Its `monitoring` profile stays in
step with the metrics: Prometheus scrapes the API's /metrics with the token, and
every expression of the Grafana dashboard reads a family unoservice/metrics.py
exports. (No Docker engine is needed: the files are parsed.)"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from prometheus_client.metrics import MetricWrapperBase

from bench import haproxy
from games.live.hub import HEAL_SECONDS
from games.serializers import MAX_WAIT_SECONDS
from tests.support import ROOT, settings_with
from unoservice import metrics

APP_SERVICES = ("migrate", "api", "worker", "push-worker", "beat")
WORKERS = ("worker", "push-worker")
MONITORING_SERVICES = ("prometheus", "grafana")

# The families /metrics reads when scraped rather than counts, and the module that
# reads each (games.metrics.GamesCollector, unoservice.queue_metrics.QueueCollector); a
# sample's name is the family's.
SCRAPE_TIME_FAMILIES = {
    "uno_games": "games/metrics.py",
    "uno_celery_queue_length": "unoservice/queue_metrics.py",
}
# The sample names prometheus-client exposes for a family of each type.
SAMPLE_SUFFIXES = {
    "counter": ("_total",),
    "gauge": ("",),
    "histogram": ("_bucket", "_sum", "_count"),
}
# Series Prometheus itself writes for every target it scrapes.
PROMETHEUS_SERIES = {"up"}
# PromQL words that look like metric names but are not.
PROMQL_KEYWORDS = {"and", "or", "unless", "bool", "offset", "group_left", "group_right"}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def environment(compose: dict[str, Any], service: str) -> dict[str, str]:
    return {k: str(v) for k, v in compose["services"][service]["environment"].items()}


def as_compose_runs_it(env: dict[str, str]) -> dict[str, str]:
    """`env` with each ``${NAME:-default}`` resolved as compose does when NAME is unset."""
    return {k: re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", v) for k, v in env.items()}


def command(compose: dict[str, Any], service: str) -> str:
    raw = compose["services"][service]["command"]
    return raw if isinstance(raw, str) else " ".join(raw)


def variables_the_settings_read() -> set[str]:
    source = (ROOT / "unoservice" / "settings.py").read_text()
    return set(re.findall(r'(?:environ\.get|env_[a-z]+)\(\s*"([A-Z_]+)"', source))


def bind_mounts(compose: dict[str, Any], service: str) -> dict[str, str]:
    """The service's files from this checkout: path in the container -> path here."""
    mounts = {}
    for volume in compose["services"][service]["volumes"]:
        source, target, *_ = volume.split(":")
        if source.startswith("./"):
            mounts[target] = source
    return mounts


def container_port(compose: dict[str, Any], service: str) -> int:
    """The port the service listens on in its container: the one it publishes, or
    the one it exposes to the others."""
    service_ = compose["services"][service]
    (port,) = service_["ports"] if "ports" in service_ else service_["expose"]
    return int(str(port).rsplit(":", 1)[-1])


def exported_sample_names() -> set[str]:
    """Every sample name GET /metrics can answer with, from unoservice.metrics itself:
    each family it counts, with the suffixes its type adds, and those it reads."""
    counted = [m for m in vars(metrics).values() if isinstance(m, MetricWrapperBase)]
    for family, module in SCRAPE_TIME_FAMILIES.items():
        assert f'"{family}"' in (ROOT / module).read_text(), f"{module} no longer reads {family}"
    return {m._name + suffix for m in counted for suffix in SAMPLE_SUFFIXES[m._type]} | set(
        SCRAPE_TIME_FAMILIES
    )


def exported_families() -> set[str]:
    counted = {m._name for m in vars(metrics).values() if isinstance(m, MetricWrapperBase)}
    return counted | set(SCRAPE_TIME_FAMILIES)


def metric_names(expression: str) -> set[str]:
    """The metric names a PromQL expression reads: what is left once strings, label
    matchers, ranges and groupings are gone, less functions, keywords and numbers."""
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expression)
    bare = re.sub(r"\{[^}]*\}|\[[^\]]*\]", " ", bare)
    bare = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", bare)
    names = re.findall(r"(?<![\w.])([a-zA-Z_:][\w:]*)\b(?!\s*\()", bare)
    return set(names) - PROMQL_KEYWORDS


def balanced(expression: str) -> bool:
    closing = {")": "(", "]": "[", "}": "{"}
    opened: list[str] = []
    for char in re.sub(r'"(?:[^"\\]|\\.)*"', '""', expression):
        if char in "([{":
            opened.append(char)
        elif char in closing and (not opened or opened.pop() != closing[char]):
            return False
    return not opened


def panels(dashboard: dict[str, Any]) -> list[dict[str, Any]]:
    """Every panel, those in collapsed rows included."""
    found = []
    for panel in dashboard["panels"]:
        found.append(panel)
        found.extend(panel.get("panels", []))
    return found


def expressions(dashboard: dict[str, Any]) -> list[str]:
    return [t["expr"] for p in panels(dashboard) for t in p.get("targets", [])]


@pytest.fixture(scope="module")
def prometheus_config() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "deploy" / "prometheus" / "prometheus.yml").read_text())


@pytest.fixture(scope="module")
def dashboard() -> dict[str, Any]:
    return json.loads((ROOT / "deploy" / "grafana" / "uno.json").read_text())


def provisioning(kind: str) -> dict[str, Any]:
    (path,) = (ROOT / "deploy" / "grafana" / "provisioning" / kind).glob("*.yml")
    return yaml.safe_load(path.read_text())


def test_the_file_defines_the_database_the_broker_the_app_and_its_monitoring(compose):
    assert set(compose["services"]) == {
        "postgres",
        "pgbouncer",
        "redis",
        *APP_SERVICES,
        "balancer",
        "mailpit",
        *MONITORING_SERVICES,
    }


def test_prometheus_and_grafana_start_only_with_the_monitoring_profile(compose):
    services = compose["services"]
    profiled = {name for name, service in services.items() if "profiles" in service}
    assert profiled == set(MONITORING_SERVICES)
    for name in MONITORING_SERVICES:
        assert services[name]["profiles"] == ["monitoring"]
        tag = services[name]["image"].rsplit(":", 1)[1]
        assert tag[-1].isdigit(), f"{name}: pin a version, not {tag}"


def test_migrations_run_once_then_the_api_serves_with_the_services_own_server_command(
    compose,
):
    services = compose["services"]
    assert command(compose, "migrate") == "python manage.py migrate --noinput"
    assert services["migrate"]["restart"] == "no"  # it ends when done
    text = command(compose, "api")
    assert text.startswith("python -m unoservice.serve --host 0.0.0.0 --port 8000")
    assert "migrate" not in text  # replicas started together must not migrate at once
    assert "--access-log" not in text  # the service writes its own line per request
    for name in ("api", *WORKERS, "beat"):
        assert services[name]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"
        }, name


def test_the_api_scales_with_no_fixed_name_and_no_published_port(compose):
    """`docker compose up --scale api=3`: a fixed host or container name, or a port
    of this machine, would let one replica only start."""
    api = compose["services"]["api"]
    assert not {"hostname", "container_name", "ports"} & set(api)
    assert container_port(compose, "api") == 8000


def test_the_balancer_is_the_only_published_port_of_the_api_and_mounts_its_configuration(
    compose,
):
    services = compose["services"]
    published = {name for name, service in services.items() if "ports" in service}
    assert published == {"balancer", "mailpit", *MONITORING_SERVICES}
    balancer = services["balancer"]
    assert balancer["ports"] == ["8000:8000"]
    assert re.fullmatch(r"haproxy:\d+\.\d+\.\d+-alpine", balancer["image"]), "pin a version"
    assert "/usr/local/etc/haproxy/haproxy.cfg:ro" in " ".join(balancer["volumes"])
    assert bind_mounts(compose, "balancer") == {
        "/usr/local/etc/haproxy/haproxy.cfg": "./deploy/haproxy.cfg"
    }
    assert balancer["depends_on"] == {"api": {"condition": "service_healthy"}}
    # Each monitoring service on this machine's loopback only.
    for name in MONITORING_SERVICES:
        assert all(p.startswith("127.0.0.1:") for p in services[name]["ports"]), name


def test_the_balancer_finds_every_replica_through_dockers_dns(compose):
    config = haproxy.sections()
    assert "nameserver dns 127.0.0.11:53" in config["resolvers docker"]
    (frontend,) = [name for name in config if name.startswith("frontend ")]
    assert f"bind :{container_port(compose, 'balancer')}" in config[frontend]
    (backend,) = [name for name in config if name.startswith("backend ")]
    (template,) = [line for line in config[backend] if line.startswith("server-template ")]
    _, _, slots, address, *options = template.split()
    assert address == f"api:{container_port(compose, 'api')}"
    assert int(slots) >= 3
    assert {"check", "resolvers", "docker", "init-addr", "none"} <= set(options)


def test_the_balancer_probes_livez_with_a_host_the_api_answers_to(compose):
    """Liveness, which a database or broker outage shared by every node does not
    fail: /healthz would take them all out at once."""
    (backend,) = [lines for name, lines in haproxy.sections().items() if "backend" in name]
    assert "option httpchk" in backend
    (send,) = [line for line in backend if line.startswith("http-check send ")]
    words = send.split()
    assert words[words.index("meth") + 1 : words.index("uri") + 2] == ["GET", "uri", "/livez"]
    host = words[words.index("Host") + 1]
    assert host in environment(compose, "api")["ALLOWED_HOSTS"].split(",")
    assert "http-check expect status 200" in backend


def test_compose_starts_the_balancer_once_a_node_is_ready_to_serve(compose):
    """The API's own health check is readiness (/healthz: its database and broker
    answer): the balancer starts once a node can serve, and `docker compose ps`
    shows which nodes can."""
    test = " ".join(compose["services"]["api"]["healthcheck"]["test"])
    assert "http://127.0.0.1:8000/healthz'" in test
    assert compose["services"]["balancer"]["depends_on"] == {
        "api": {"condition": "service_healthy"}
    }


def test_the_api_trusts_the_one_proxy_that_writes_x_forwarded_for(compose):
    assert environment(compose, "api")["NUM_PROXIES"] == "1"
    assert "option forwardfor" in haproxy.sections()["defaults"]


def test_the_balancer_outwaits_a_streams_pings_and_a_long_polls_wait():
    defaults = haproxy.sections()["defaults"]
    timeouts = {
        line.split()[1]: haproxy.seconds(line.split()[2])
        for line in defaults
        if line.startswith("timeout ")
    }
    # Both sides are silent between pings: each side's timeout must outlast them.
    for side in ("client", "server"):
        assert timeouts[side] > max(HEAL_SECONDS, MAX_WAIT_SECONDS), side
    assert "mode http" in defaults


def test_the_worker_and_beat_run_this_projects_celery_app(compose):
    for name in WORKERS:
        assert command(compose, name).startswith("celery -A unoservice worker"), name
    assert command(compose, "beat").startswith("celery -A unoservice beat")


def test_every_queue_of_the_service_has_a_worker_of_its_own_and_pushes_wait_apart(compose):
    queues, push_queue = settings_with({}, "[s.SERVICE_QUEUES, s.PUSH_QUEUE]")
    consumed = {}
    for name in WORKERS:
        argv = command(compose, name).split()
        consumed[name] = argv[argv.index("-Q") + 1].split(",")
    assert sorted(q for names in consumed.values() for q in names) == sorted(queues)
    assert consumed["push-worker"] == [push_queue]


def test_the_api_worker_and_beat_share_one_environment_and_image(compose):
    envs = [environment(compose, s) for s in APP_SERVICES]
    assert all(env == envs[0] for env in envs)
    assert {compose["services"][s]["image"] for s in APP_SERVICES} == {"unoservice:latest"}


def test_every_variable_is_one_the_settings_read(compose):
    env = environment(compose, "api")
    assert set(env) <= variables_the_settings_read()
    assert {"DATABASE_URL", "CELERY_BROKER_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS"} <= set(env)
    assert env["DEBUG"] == "false"
    assert env["SECRET_KEY"].startswith("${SECRET_KEY:?")  # never a key in the file


def test_mail_goes_to_the_mail_catcher_whose_page_is_published(compose):
    import dj_email_url

    env = environment(compose, "api")
    assert {"EMAIL_URL", "EMAIL_FROM", "GOOGLE_CLIENT_IDS", "APPLE_CLIENT_IDS"} <= (
        variables_the_settings_read()
    )
    default = env["EMAIL_URL"].removeprefix("${EMAIL_URL:-").removesuffix("}")
    parsed = dj_email_url.parse(default)
    assert parsed["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (parsed["EMAIL_HOST"], parsed["EMAIL_PORT"]) == ("mailpit", 1025)
    mailpit = compose["services"]["mailpit"]
    assert mailpit["image"].startswith("axllent/mailpit:v")
    assert mailpit["ports"] == ["8025:8025"]
    assert mailpit["healthcheck"]["test"]


def test_logs_are_json_lines_unless_the_shell_asks_for_plain_ones(compose):
    assert "LOG_FORMAT" in variables_the_settings_read()
    assert environment(compose, "api")["LOG_FORMAT"] == "${LOG_FORMAT:-json}"


def test_the_metrics_token_reaches_the_api_and_is_not_needed_without_monitoring(compose):
    """Unset, /metrics is 404 and the rest runs; Prometheus gets it as a secret file,
    which compose refuses to make while METRICS_TOKEN is unset."""
    assert "METRICS_TOKEN" in variables_the_settings_read()
    assert environment(compose, "api")["METRICS_TOKEN"] == "${METRICS_TOKEN:-}"
    assert compose["secrets"]["metrics_token"] == {"environment": "METRICS_TOKEN"}
    (secret,) = compose["services"]["prometheus"]["secrets"]
    assert secret["source"] == "metrics_token"
    assert secret["mode"] == 0o444  # Prometheus runs as nobody, not as the file's root
    for name in ("postgres", "redis", *APP_SERVICES, "balancer", "grafana"):
        assert "secrets" not in compose["services"][name], name


def test_the_api_worker_and_beat_count_into_one_shared_metrics_volume(compose):
    folder = environment(compose, "api")["PROMETHEUS_MULTIPROC_DIR"]
    assert "PROMETHEUS_MULTIPROC_DIR" in variables_the_settings_read()
    assert "metrics" in compose["volumes"]  # named: it outlives the containers
    for name in APP_SERVICES:
        assert f"metrics:{folder}" in compose["services"][name]["volumes"], name


def test_every_container_counts_under_a_host_name_of_its_own(compose):
    """Metric files are named by host and pid (unoservice.metrics): replicas sharing
    the volume, whose processes often have the same pids, must not share a host name.
    Docker names each container's host after its id."""
    for name in APP_SERVICES:
        assert "hostname" not in compose["services"][name], name
    assert "{HOST}-{os.getpid()}" in (ROOT / "unoservice" / "metrics.py").read_text()


def test_the_image_makes_the_metrics_folder_for_its_user_before_dropping_root(compose):
    """A new named volume takes the owner of the folder it is mounted on in the image:
    without the folder, root's, and the API could not write its counts."""
    folder = environment(compose, "api")["PROMETHEUS_MULTIPROC_DIR"]
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "WORKDIR /app" in dockerfile
    assert folder.startswith("/app/var/")
    made = dockerfile.index(f"mkdir -p {folder}")
    assert made < dockerfile.index("chown -R uno /app/var") < dockerfile.index("USER uno")


def test_https_is_a_setting_the_service_reads_and_is_off_unless_the_shell_sets_it(compose):
    env = environment(compose, "api")
    assert "HTTPS" in variables_the_settings_read()
    assert env["HTTPS"] == "${HTTPS:-false}"  # plain http://localhost out of the box


def test_the_urls_point_at_the_services_defined_here(compose):
    env = environment(compose, "api")
    postgres = compose["services"]["postgres"]["environment"]
    pooler = compose["services"]["pgbouncer"]["environment"]
    urls = {
        "DATABASE_URL": "pgbouncer",
        "LISTEN_DATABASE_URL": "postgres",
        "the pooler's": "postgres",
    }
    for name, host in urls.items():
        database = urlsplit(pooler["DATABASE_URL"] if name == "the pooler's" else env[name])
        assert database.scheme == "postgres", name
        assert database.hostname == host, name
        assert database.username == postgres["POSTGRES_USER"], name
        assert database.password == postgres["POSTGRES_PASSWORD"], name
        assert database.path.lstrip("/") == postgres["POSTGRES_DB"], name
    for name in ("CELERY_BROKER_URL", "CACHE_URL"):
        url = urlsplit(env[name])
        assert (url.scheme, url.hostname) == ("redis", "redis"), name


def test_everything_has_a_health_check_or_waits_for_one(compose):
    services = compose["services"]
    for name in ("postgres", "redis", "api", *WORKERS):
        assert services[name]["healthcheck"]["test"], name
    assert services["migrate"]["depends_on"] == {
        "postgres": {"condition": "service_healthy"},
        "pgbouncer": {"condition": "service_healthy"},
    }
    for name in ("api", *WORKERS, "beat"):
        assert services[name]["depends_on"] == {
            "migrate": {"condition": "service_completed_successfully"},
            "redis": {"condition": "service_healthy"},
        }, name
    assert services["pgbouncer"]["healthcheck"]["test"]
    assert services["pgbouncer"]["depends_on"] == {"postgres": {"condition": "service_healthy"}}


def test_the_settings_accept_the_files_environment(compose, tmp_path):
    """The settings loaded with exactly the file's environment (and a real key; the
    image's metrics folder is not on this machine)."""
    env = {
        **as_compose_runs_it(environment(compose, "api")),
        "SECRET_KEY": "k" * 50,
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
        "PATH": "/usr/bin:/bin",
    }
    probe = (
        "[s.DATABASES['default']['ENGINE'], s.DATABASES['default']['HOST'], "
        "s.DATABASES['default']['NAME'], "
        "s.CELERY_BROKER_URL, s.DEBUG, s.CACHES['default']['BACKEND'], s.ALLOWED_HOSTS, "
        "s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, s.METRICS_TOKEN, s.LOG_FORMAT, "
        "s.NUM_PROXIES, s.REST_FRAMEWORK['NUM_PROXIES']]"
    )
    (
        engine,
        host,
        name,
        broker,
        debug,
        cache,
        hosts,
        redirect,
        secure_cookie,
        token,
        log_format,
        proxies,
        drf_proxies,
    ) = settings_with(env, probe)
    assert (engine, host, name) == ("django.db.backends.postgresql", "pgbouncer", "uno")
    assert broker == "redis://redis:6379/0"
    assert debug is False
    assert cache == "unoservice.redis_cache.RedisCache"
    assert "api" in hosts
    assert (redirect, secure_cookie) == (False, False)
    assert token == ""  # /metrics is 404 until METRICS_TOKEN is set
    assert log_format == "json"
    assert proxies == drf_proxies == 1  # the balancer, for the service's limits and DRF's


def test_queries_pass_a_pinned_pgbouncer_in_transaction_mode_and_listen_goes_around_it(
    compose, tmp_path
):
    """The settings then prepare no statement on the pooler's shared sessions, and
    each process's LISTEN connection reaches PostgreSQL (docs/operations.md)."""
    pooler = compose["services"]["pgbouncer"]
    assert pooler["image"].startswith("edoburu/pgbouncer:v1.")
    assert pooler["environment"]["POOL_MODE"] == "transaction"
    assert "ports" not in pooler  # only the app reaches it
    env = environment(compose, "api")
    assert {"DATABASE_POOLER", "LISTEN_DATABASE_URL"} <= variables_the_settings_read()
    assert env["DATABASE_POOLER"] == "transaction"
    probe = (
        "[s.DATABASES['default']['OPTIONS'], s.DATABASES['default']['DISABLE_SERVER_SIDE_CURSORS'],"
        " s.LISTEN_DATABASE_URL]"
    )
    runs = {
        **as_compose_runs_it(env),
        "SECRET_KEY": "k" * 50,
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
        "PATH": "/usr/bin:/bin",
    }
    options, no_cursors, listen = settings_with(runs, probe)
    assert options["prepare_threshold"] is None
    assert no_cursors is True
    assert urlsplit(listen).hostname == "postgres"


def test_the_image_installs_only_the_runtime_and_collects_static_files():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "pip install -r requirements-runtime.txt" in dockerfile
    assert "collectstatic --noinput" in dockerfile
    runtime = (ROOT / "requirements-runtime.txt").read_text()
    assert "pytest" not in runtime
    assert "-r requirements-runtime.txt" in (ROOT / "requirements.txt").read_text()


# -- the monitoring profile --------------------------------------------------------


def test_prometheus_scrapes_the_apis_metrics_every_15_seconds_with_the_token(
    compose, prometheus_config
):
    assert bind_mounts(compose, "prometheus") == {
        "/etc/prometheus/prometheus.yml": "./deploy/prometheus/prometheus.yml"
    }
    assert prometheus_config["global"]["scrape_interval"] == "15s"
    (job,) = prometheus_config["scrape_configs"]
    assert job["job_name"] == "uno"
    assert job.get("scheme", "http") == "http"
    assert job["metrics_path"] == "/metrics"
    (targets,) = job["static_configs"]
    # One target, the service's name: Docker's DNS answers one replica or another,
    # and each adds up every process of the shared volume. Scraping every replica
    # (or through the balancer) would count the same files once per replica.
    assert targets["targets"] == [f"api:{container_port(compose, 'api')}"]
    # The token, from the file compose writes for the secret, as a bearer token.
    (secret,) = compose["services"]["prometheus"]["secrets"]
    assert job["authorization"] == {
        "type": "Bearer",
        "credentials_file": f"/run/secrets/{secret.get('target', secret['source'])}",
    }


def test_the_api_answers_the_host_name_prometheus_asks_for(compose, prometheus_config):
    (job,) = prometheus_config["scrape_configs"]
    (target,) = job["static_configs"][0]["targets"]
    host = target.rsplit(":", 1)[0]
    assert host in environment(compose, "api")["ALLOWED_HOSTS"].split(",")


def test_grafana_reads_the_prometheus_the_file_defines(compose):
    (source,) = provisioning("datasources")["datasources"]
    assert source["type"] == "prometheus"
    assert source["url"] == f"http://prometheus:{container_port(compose, 'prometheus')}"
    assert source["uid"] == "prometheus"


def test_grafanas_provisioning_and_dashboard_are_mounted_from_this_checkout(compose):
    mounts = bind_mounts(compose, "grafana")
    for kind in ("datasources", "dashboards"):
        assert (
            mounts[f"/etc/grafana/provisioning/{kind}"] == f"./deploy/grafana/provisioning/{kind}"
        )
    for source in mounts.values():
        assert (ROOT / source).exists(), source
    # The dashboard provider reads the folder the dashboard file is mounted in.
    (provider,) = provisioning("dashboards")["providers"]
    dashboard_file = next(t for t, s in mounts.items() if s == "./deploy/grafana/uno.json")
    assert provider["type"] == "file"
    assert PurePosixPath(dashboard_file).parent == PurePosixPath(provider["options"]["path"])


def test_grafanas_admin_password_has_only_a_development_default(compose):
    env = compose["services"]["grafana"]["environment"]
    assert env["GF_SECURITY_ADMIN_PASSWORD"].startswith("${GRAFANA_ADMIN_PASSWORD:-")
    assert env["GF_AUTH_ANONYMOUS_ENABLED"] == "${GRAFANA_ANONYMOUS:-false}"
    assert env["GF_AUTH_ANONYMOUS_ORG_ROLE"] == "Viewer"


def test_the_dashboard_has_a_uid_and_reads_the_provisioned_datasource(dashboard):
    assert dashboard["uid"] == "uno-service"
    assert dashboard["schemaVersion"] >= 39
    (variable,) = [v for v in dashboard["templating"]["list"] if v["type"] == "datasource"]
    assert variable["query"] == "prometheus"
    (source,) = provisioning("datasources")["datasources"]
    assert variable["current"]["value"] == source["uid"]
    for panel in panels(dashboard):
        if panel["type"] != "row":
            assert panel["datasource"]["uid"] == f"${{{variable['name']}}}", panel["title"]
            assert panel["targets"], panel["title"]


def test_every_expression_on_the_dashboard_reads_metrics_the_service_exports(dashboard):
    exported = exported_sample_names() | PROMETHEUS_SERIES
    for expression in expressions(dashboard):
        assert balanced(expression), expression
        read = metric_names(expression)
        assert read, expression
        assert read <= exported, f"{sorted(read - exported)} in {expression}"


def test_every_family_the_service_exports_is_on_the_dashboard(dashboard):
    shown = set().union(*map(metric_names, expressions(dashboard)))
    for family in exported_families():
        assert any(re.fullmatch(rf"{family}(_total|_bucket|_sum|_count)?", n) for n in shown), (
            f"{family} has no panel"
        )


def test_the_metric_name_reader_skips_functions_labels_ranges_and_numbers():
    expression = (
        'histogram_quantile(0.95, sum by (le, route) (rate(a_bucket{status=~"5.."}[5m])))'
        " / on (route) group_left sum without (code) (b_total offset 1h) > bool 1e3"
    )
    assert metric_names(expression) == {"a_bucket", "b_total"}
