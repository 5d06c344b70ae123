"""The Helm chart rendered by helm template with each values file: the drain arithmetic, probes, the database Secret,
SQLite's single writer on a volume and PostgreSQL's autoscaled replicas (make lint checks the schemas)."""

from __future__ import annotations

import json
import pathlib
import subprocess
from typing import Any

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHART = ROOT / "deploy" / "helm" / "slipstream"
TOOLS = ROOT / "build" / "tools"
HELM = TOOLS / "bin" / "helm"
YAML_PYTHON = TOOLS / "deploy-venv" / "bin" / "python"  # kubernetes-validate's environment has PyYAML

pytestmark = pytest.mark.skipif(not (HELM.exists() and YAML_PYTHON.exists()),
                                reason="helm and the deploy linters' venv are installed by scripts/lint_deploy.sh "
                                       "(make lint)")


def render(*args: str) -> dict[str, dict[str, Any]]:
    """helm template with `args`: the manifests by kind (each kind appears once in this chart)."""
    text = subprocess.run([str(HELM), "template", "api", str(CHART), *args], capture_output=True, text=True,
                          check=True).stdout
    to_json = "import json, sys, yaml; print(json.dumps([d for d in yaml.safe_load_all(sys.stdin) if d]))"
    parsed = subprocess.run([str(YAML_PYTHON), "-c", to_json], input=text, capture_output=True, text=True,
                            check=True).stdout
    manifests = json.loads(parsed)
    by_kind = {m["kind"]: m for m in manifests}
    assert len(by_kind) == len(manifests)
    return by_kind


def container(manifests: dict[str, dict[str, Any]]) -> dict[str, Any]:
    (only,) = manifests["Deployment"]["spec"]["template"]["spec"]["containers"]
    return only


def env(manifests: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container(manifests)["env"]}


def test_defaults_probe_livez_and_readyz_and_give_the_drain_its_time() -> None:
    m = render()
    c = container(m)
    assert c["livenessProbe"]["httpGet"] == {"path": "/livez", "port": "http"}
    assert c["startupProbe"]["httpGet"] == {"path": "/livez", "port": "http"}
    assert c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    assert c["lifecycle"]["preStop"]["exec"]["command"] == ["sleep", "5"]
    assert m["Deployment"]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 40  # 5 + 30 + 5
    assert env(m)["SLIPSTREAM_DRAIN_TIMEOUT"] == "30s"
    assert c["args"] == ["main:app"]
    assert m["Deployment"]["spec"]["replicas"] == 2
    assert m["PodDisruptionBudget"]["spec"]["maxUnavailable"] == 1
    assert set(m) == {"Deployment", "Service", "ServiceAccount", "PodDisruptionBudget"}
    assert "SLIPSTREAM_DATABASE_URL" not in env(m)


def test_the_grace_period_follows_the_drain_timeout_and_the_pre_stop_sleep() -> None:
    m = render("--set", "drain.timeoutSeconds=60", "--set", "drain.preStopSleepSeconds=10")
    assert m["Deployment"]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 75
    assert env(m)["SLIPSTREAM_DRAIN_TIMEOUT"] == "60s"
    assert container(m)["lifecycle"]["preStop"]["exec"]["command"] == ["sleep", "10"]


def test_sqlite_is_one_replica_replaced_not_rolled_with_its_data_on_a_claim() -> None:
    m = render("-f", str(CHART / "values-sqlite.yaml"))
    spec = m["Deployment"]["spec"]
    assert spec["replicas"] == 1
    assert spec["strategy"] == {"type": "Recreate"}
    assert "HorizontalPodAutoscaler" not in m
    claim = m["PersistentVolumeClaim"]
    assert claim["spec"]["resources"]["requests"]["storage"] == "5Gi"
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    volumes = {v["name"]: v for v in spec["template"]["spec"]["volumes"]}
    assert volumes["data"]["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
    mounts = {v["name"]: v["mountPath"] for v in container(m)["volumeMounts"]}
    assert mounts["data"] == "/data"
    assert env(m)["SLIPSTREAM_DATA_DIR"] == "/data"
    assert env(m)["SLIPSTREAM_DATABASE_URL"] == "sqlite:///data/app.db"


def test_postgres_replicas_are_autoscaled_and_read_the_urls_from_the_secret() -> None:
    m = render("-f", str(CHART / "values-postgres.yaml"))
    assert "replicas" not in m["Deployment"]["spec"]  # the HPA owns the count
    hpa = m["HorizontalPodAutoscaler"]["spec"]
    assert hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment",
                                     "name": m["Deployment"]["metadata"]["name"]}
    assert (hpa["minReplicas"], hpa["maxReplicas"]) == (3, 12)
    assert env(m)["SLIPSTREAM_DATABASE_URL"] == {"secretKeyRef": {"name": "api-database", "key": "database-url"}}
    assert env(m)["SLIPSTREAM_STORE"] == {"secretKeyRef": {"name": "api-database", "key": "store-url",
                                                           "optional": True}}
    assert "Secret" not in m and "PersistentVolumeClaim" not in m


def test_a_url_in_the_values_becomes_a_secret_and_a_restart_on_change() -> None:
    def rendered(url: str) -> dict[str, dict[str, Any]]:
        return render("--set", f"database.url={url}", "--set", "database.storeUrl=postgresql://app@db/sessions")

    m = rendered("postgresql://app@db/app")
    secret = m["Secret"]
    assert secret["stringData"] == {"database-url": "postgresql://app@db/app",
                                    "store-url": "postgresql://app@db/sessions"}
    assert env(m)["SLIPSTREAM_DATABASE_URL"]["secretKeyRef"]["name"] == secret["metadata"]["name"]
    checksum = m["Deployment"]["spec"]["template"]["metadata"]["annotations"]["checksum/database"]
    other = rendered("postgresql://app@db2/app")["Deployment"]["spec"]["template"]["metadata"]["annotations"]
    assert other["checksum/database"] != checksum


def test_the_service_monitor_is_off_by_default_and_scrapes_metrics_when_on() -> None:
    m = render("--set", "serviceMonitor.enabled=true", "--set", "serviceMonitor.labels.release=prometheus")
    monitor = m["ServiceMonitor"]
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert monitor["metadata"]["labels"]["release"] == "prometheus"
    assert monitor["spec"]["endpoints"] == [{"port": "http", "path": "/metrics", "interval": "30s",
                                             "scrapeTimeout": "10s"}]
    assert monitor["spec"]["selector"]["matchLabels"] == m["Service"]["spec"]["selector"]


def test_a_cpp_server_binary_replaces_the_entrypoint_and_takes_no_app_argument() -> None:
    c = container(render("--set", "app=", "--set", "command[0]=/usr/local/bin/bookstore", "--set", "args[0]=--sessions"))
    assert c["command"] == ["/usr/local/bin/bookstore"]
    assert c["args"] == ["--sessions"]
    assert "args" not in container(render("--set", "app="))
