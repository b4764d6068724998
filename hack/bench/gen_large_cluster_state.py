#!/usr/bin/env python3
"""Writes the cluster state of a large cluster around a benchmark capture's own, for benchmarks.

    hack/bench/gen_large_cluster_state.py --state DIR/cluster-state.json --extra-pods 20000 --out FILE

Every pod gets what 'kubectl get pods -o json' really carries besides what resolution reads
(managed fields, annotations, env, probes, volumes, tolerations, conditions, container statuses:
about 7 KiB a pod), and --extra-pods more such pods run in 50 namespaces of their own, on addresses
the capture never uses, so the proposals learned stay those of the small state. Deterministic.
"""
import argparse
import copy
import json


def managed_fields(env_count):
    env = {'k:{"name":"VAR_%d"}' % k: {".": {}, "f:name": {}, "f:value": {}} for k in range(env_count)}
    return [
        {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
         "time": "2026-11-01T10:00:00Z", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {}},
                                     "f:ownerReferences": {".": {}, 'k:{"uid":"owner"}': {}}},
                      "f:spec": {"f:containers": {'k:{"name":"main"}': {
                          ".": {}, "f:env": dict({".": {}}, **env), "f:image": {}, "f:imagePullPolicy": {},
                          "f:name": {}, "f:ports": {}, "f:resources": {}}}}}},
        {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": "2026-11-01T10:00:05Z",
         "fieldsType": "FieldsV1", "subresource": "status",
         "fieldsV1": {"f:status": {"f:conditions": {'k:{"type":"Ready"}': {
             ".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}},
             "f:containerStatuses": {}, "f:hostIP": {}, "f:phase": {}, "f:podIP": {}, "f:podIPs": {},
             "f:startTime": {}}}}]


def give_bulk(pod, n):
    """Adds, in place, what a real pod carries and resolution never reads."""
    meta = pod["metadata"]
    meta["uid"] = "%08x-0000-4000-8000-%012x" % (n, n)
    meta["resourceVersion"] = str(100000 + n)
    meta["creationTimestamp"] = "2026-11-01T10:00:00Z"
    meta["annotations"] = {"kubectl.kubernetes.io/restartedAt": "2026-11-01T10:00:00Z",
                           "prometheus.io/scrape": "true", "prometheus.io/port": "9090"}
    meta["managedFields"] = managed_fields(20)
    spec = pod["spec"]
    probe = {"httpGet": {"path": "/healthz", "port": 8080, "scheme": "HTTP"}, "initialDelaySeconds": 10,
             "periodSeconds": 10, "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3}
    for container in spec.get("containers", []):
        container["env"] = [{"name": "VAR_%d" % k, "value": "value-%d-%s" % (k, "x" * 40)} for k in range(20)]
        container["resources"] = {"limits": {"cpu": "1", "memory": "512Mi"},
                                  "requests": {"cpu": "100m", "memory": "128Mi"}}
        container["volumeMounts"] = [
            {"name": "kube-api-access", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
             "readOnly": True},
            {"name": "config", "mountPath": "/etc/config"}]
        container["livenessProbe"] = probe
        container["readinessProbe"] = probe
        container["imagePullPolicy"] = "IfNotPresent"
        container["terminationMessagePath"] = "/dev/termination-log"
    spec["volumes"] = [
        {"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}]}},
        {"name": "config", "configMap": {"name": "app-config", "defaultMode": 420}}]
    spec["tolerations"] = [
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
         "tolerationSeconds": 300},
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
         "tolerationSeconds": 300}]
    spec.update({"restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
                 "schedulerName": "default-scheduler", "securityContext": {}, "enableServiceLinks": True,
                 "preemptionPolicy": "PreemptLowerPriority", "priority": 0})
    status = pod.setdefault("status", {})
    status.update({
        "hostIP": "192.168.1.%d" % (n % 250), "startTime": "2026-11-01T10:00:00Z", "qosClass": "Burstable",
        "conditions": [{"type": t, "status": "True", "lastProbeTime": None,
                        "lastTransitionTime": "2026-11-01T10:00:05Z"}
                       for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady",
                                 "PodScheduled")],
        "containerStatuses": [{"name": "main", "state": {"running": {"startedAt": "2026-11-01T10:00:03Z"}},
                               "lastState": {}, "ready": True, "restartCount": 0, "image": "registry.example/app:1",
                               "imageID": "registry.example/app@sha256:" + "ab" * 32,
                               "containerID": "containerd://" + "cd" * 32, "started": True}]})
    return pod


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--state", required=True, help="the capture's cluster-state.json")
    ap.add_argument("--extra-pods", type=int, default=20000)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    with open(args.state) as f:
        state = json.load(f)
    items = []
    pods = []
    for n, item in enumerate(state["items"]):
        if item["kind"] == "Pod":
            pods.append(item)
            item = give_bulk(copy.deepcopy(item), n)
        items.append(item)
    filler_namespaces = 50
    items += [{"apiVersion": "v1", "kind": "Namespace",
               "metadata": {"name": "filler-%d" % k, "labels": {"kubernetes.io/metadata.name": "filler-%d" % k}}}
              for k in range(filler_namespaces)]
    for k in range(args.extra_pods):
        pod = copy.deepcopy(pods[k % len(pods)])
        pod["metadata"]["namespace"] = "filler-%d" % (k % filler_namespaces)
        pod["metadata"]["name"] += "-f%d" % k
        ip = "10.200.%d.%d" % (k // 250, k % 250 + 1) if k < 250 * 256 else "10.201.%d.%d" % (
            (k - 250 * 256) // 250, k % 250 + 1)
        pod["status"]["podIP"] = ip
        pod["status"]["podIPs"] = [{"ip": ip}]
        items.append(give_bulk(pod, 1_000_000 + k))
    with open(args.out, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": items}, f)


if __name__ == "__main__":
    main()
