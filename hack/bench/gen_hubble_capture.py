#!/usr/bin/env python3
"""Writes a large, realistic Hubble capture and the cluster state it refers to, for benchmarks.

    hack/bench/gen_hubble_capture.py --lines 1000000 --workloads 1000 --out DIR

writes DIR/hubble-flows.jsonl ('hubble observe -o jsonpb' lines shaped like
samples/basic/hubble-flows.jsonl) and DIR/cluster-state.json ('kubectl get ... -o json').

What it contains, like a real busy cluster: Deployments (most), StatefulSets and DaemonSets in
many namespaces, 1-3 pods each; every workload calls a few others on their ports plus kube-dns;
each connection is reported twice (EGRESS at the source node, INGRESS at the destination node)
and answered by a reply; some records lack 'workloads' (older agents) or 'is_reply'; a few are
policy drops, internet egress, host probes and lost-events notices. Deterministic for a seed.
"""
import argparse
import json
import os
import random

PORTS = [(8080, "TCP"), (8443, "TCP"), (9090, "TCP"), (5432, "TCP"), (6379, "TCP"), (3306, "TCP"),
         (9092, "TCP"), (8125, "UDP"), (5000, "TCP"), (50051, "TCP")]
HEX = "0123456789abcdef"
ALNUM = "bcdfghjklmnpqrstvwxz2456789"


def rand_str(rng, alphabet, n):
    return "".join(rng.choice(alphabet) for _ in range(n))


class Pod:
    def __init__(self, ns, workload, kind, name, ip, labels, sa, node, identity, rs=None):
        self.ns, self.workload, self.kind, self.name, self.ip = ns, workload, kind, name, ip
        self.labels, self.sa, self.node, self.identity, self.rs = labels, sa, node, identity, rs
        cilium_labels = ["k8s:%s=%s" % kv for kv in labels.items()] + [
            "k8s:io.kubernetes.pod.namespace=" + ns,
            "k8s:io.cilium.k8s.namespace.labels.kubernetes.io/metadata.name=" + ns,
            "k8s:io.cilium.k8s.namespace.labels.team=" + ns.split("-")[0],
            "k8s:io.cilium.k8s.policy.serviceaccount=" + sa,
            "k8s:io.cilium.k8s.policy.cluster=default"]
        base = {"ID": 100 + identity % 3900, "identity": identity, "cluster_name": "default", "namespace": ns,
                "labels": cilium_labels, "pod_name": name}
        self.endpoint_without_workloads = json.dumps(base, separators=(",", ":"))
        base["workloads"] = [{"name": workload, "kind": kind}]
        self.endpoint = json.dumps(base, separators=(",", ":"))


def build_cluster(rng, workloads, nodes):
    namespaces = ["team%d-%s" % (i, rng.choice(["prod", "staging", "batch", "web", "data"]))
                  for i in range(max(4, workloads // 25))]
    namespaces.append("kube-system")
    items = [{"apiVersion": "v1", "kind": "Namespace",
              "metadata": {"name": ns, "labels": {"kubernetes.io/metadata.name": ns, "team": ns.split("-")[0]}}}
             for ns in namespaces]
    services = []  # (pods, ports)
    identity = 20000
    ip = 0

    def next_ip():
        nonlocal ip
        ip += 1
        return "10.%d.%d.%d" % (64 + ip // 65536, (ip // 256) % 256, ip % 256 or 1)

    def add(ns, name, kind, replicas, ports, labels):
        nonlocal identity
        identity += 1
        uid = "%08x-0000-4000-8000-%012x" % (rng.getrandbits(32), rng.getrandbits(48))
        selector = {"matchLabels": dict(labels)}
        sa = name + "-sa"
        template = {"metadata": {"labels": dict(labels)}, "spec": {"serviceAccountName": sa, "containers": [
            {"name": "main", "image": "registry.example/%s:1" % name,
             "ports": [{"name": "p%d" % p, "containerPort": p, "protocol": proto} for p, proto in ports]}]}}
        items.append({"apiVersion": "apps/v1", "kind": kind,
                      "metadata": {"name": name, "namespace": ns, "uid": uid, "labels": dict(labels)},
                      "spec": {"selector": selector, "template": template}})
        pods = []
        owner_kind, owner_name, owner_uid = kind, name, uid
        pod_labels = dict(labels)
        rs = None
        if kind == "Deployment":
            h = rand_str(rng, ALNUM, 10)
            rs = name + "-" + h
            rs_uid = "%08x-0000-4000-8000-%012x" % (rng.getrandbits(32), rng.getrandbits(48))
            pod_labels["pod-template-hash"] = h
            items.append({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                          "metadata": {"name": rs, "namespace": ns, "uid": rs_uid, "labels": dict(pod_labels),
                                       "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                                            "name": name, "uid": uid, "controller": True}]},
                          "spec": {"selector": {"matchLabels": dict(pod_labels)}}})
            owner_kind, owner_name, owner_uid = "ReplicaSet", rs, rs_uid
        elif kind == "DaemonSet":
            pod_labels["controller-revision-hash"] = rand_str(rng, ALNUM, 10)
            pod_labels["pod-template-generation"] = "1"
        else:
            pod_labels["controller-revision-hash"] = name + "-" + rand_str(rng, ALNUM, 10)
        for r in range(replicas):
            if kind == "Deployment":
                pod_name = rs + "-" + rand_str(rng, ALNUM, 5)
                generate = rs + "-"
            elif kind == "StatefulSet":
                pod_name, generate = "%s-%d" % (name, r), None
            else:
                pod_name = name + "-" + rand_str(rng, ALNUM, 5)
                generate = name + "-"
            labels_now = dict(pod_labels)
            if kind == "StatefulSet":
                labels_now["statefulset.kubernetes.io/pod-name"] = pod_name
            pod_ip = next_ip()
            node = "worker-%d" % rng.randrange(nodes)
            meta = {"name": pod_name, "namespace": ns, "labels": labels_now,
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": owner_kind, "name": owner_name,
                                         "uid": owner_uid, "controller": True}]}
            if generate:
                meta["generateName"] = generate
            items.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                          "spec": dict(template["spec"], nodeName=node, hostNetwork=False),
                          "status": {"phase": "Running", "podIP": pod_ip, "podIPs": [{"ip": pod_ip}]}})
            pods.append(Pod(ns, name, kind, pod_name, pod_ip, labels_now, sa, node, identity, rs))
        services.append((pods, ports))

    add("kube-system", "coredns", "Deployment", 2, [(53, "UDP"), (53, "TCP")], {"k8s-app": "kube-dns"})
    for i in range(workloads - 1):
        ns = rng.choice(namespaces[:-1])
        r = rng.random()
        kind = "Deployment" if r < 0.8 else "StatefulSet" if r < 0.9 else "DaemonSet"
        name = "%s-%s-%d" % (rng.choice(["api", "web", "worker", "cache", "db", "auth", "billing", "search",
                                         "ingest", "report"]), rand_str(rng, ALNUM, 4), i)
        ports = rng.sample(PORTS, rng.choice([1, 1, 1, 2, 3]))
        add(ns, name, kind, rng.choice([1, 2, 2, 3]), ports, {"app": name, "tier": rng.choice(["fe", "be", "data"])})
    return {"apiVersion": "v1", "kind": "List", "items": items}, services


def timestamp(t):
    """2026-08-03T15:40:00Z plus t seconds (no datetime per line: that is the slow part)."""
    s = int(t)
    ns = int((t - s) * 1e9)
    days, rem = divmod(15 * 3600 + 40 * 60 + s, 86400)
    h, rem = divmod(rem, 3600)
    m, sec = divmod(rem, 60)
    return "2026-08-%02dT%02d:%02d:%02d.%09dZ" % (3 + days, h, m, sec, ns)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--workloads", type=int, default=1000)
    ap.add_argument("--nodes", type=int, default=50)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    state, services = build_cluster(rng, a.workloads, a.nodes)
    with open(os.path.join(a.out, "cluster-state.json"), "w") as f:
        json.dump(state, f, indent=1)

    dns_pods, dns_ports = services[0]
    # Every workload calls a few others (skewed: some services are popular) and kube-dns.
    popular = [s for s in services[1:] for _ in range(rng.choice([1, 1, 1, 2, 5]))]
    calls = []
    for pods, _ in services[1:]:
        for target in rng.sample(popular, min(len(popular), rng.choice([2, 3, 4, 6, 8]))):
            if target[0] is not pods:
                calls.append((pods, target))
        calls.append((pods, (dns_pods, [(53, "UDP")])))

    t = 0.0
    n = 0
    uuid_tail = rand_str(rng, HEX, 12)
    with open(os.path.join(a.out, "hubble-flows.jsonl"), "w", buffering=1 << 20) as out:
        out.write('{"node_status":{"state_change":"NODE_CONNECTED","node_names":["default/worker-0","default/worker-1"]},'
                  '"time":"%s"}\n' % timestamp(0))
        n += 1

        def flow(ts, verdict, sip, dip, proto, sport, dport, src, dst, node, direction, point, reply, extra=""):
            l4 = '{"%s":{"source_port":%d,"destination_port":%d%s}}' % (
                proto, sport, dport, ',"flags":{"SYN":true}' if proto == "TCP" and not reply else "")
            reply_field = '' if reply is None else ',"is_reply":%s' % ("true" if reply else "false")
            summary = ("TCP Flags: SYN" if not reply else "TCP Flags: ACK, SYN") if proto == "TCP" else proto
            return ('{"flow":{"time":"%s","uuid":"%s-%s","verdict":"%s"%s,"IP":{"source":"%s","destination":"%s",'
                    '"ipVersion":"IPv4"},"l4":%s,"source":%s,"destination":%s,"Type":"L3_L4",'
                    '"node_name":"default/%s","event_type":{"type":%d},"traffic_direction":"%s",'
                    '"trace_observation_point":"%s"%s,"Summary":"%s"},"node_name":"default/%s","time":"%s"}\n') % (
                ts, rand_str(rng, HEX, 8), uuid_tail, verdict, extra, sip, dip, l4, src, dst, node,
                1 if verdict == "DROPPED" else 4, direction, point, reply_field, summary, node, ts)

        def ep(pod):
            # Older agents (and some endpoints) report no 'workloads'.
            return pod.endpoint_without_workloads if rng.random() < 0.3 else pod.endpoint

        while n < a.lines:
            t += rng.expovariate(2000.0)
            ts = timestamp(t)
            r = rng.random()
            if r < 0.0005:
                out.write('{"lost_events":{"source":"HUBBLE_RING_BUFFER","num_events_lost":"%d","cpu":%d},'
                          '"node_name":"default/worker-%d","time":"%s"}\n' % (rng.randint(1, 500), rng.randrange(2),
                                                                               rng.randrange(a.nodes), ts))
                n += 1
                continue
            src_pods, (dst_pods, ports) = rng.choice(calls)
            sp, dp = rng.choice(src_pods), rng.choice(dst_pods)
            dport, proto = rng.choice(ports)
            sport = rng.randint(32768, 60999)
            if r < 0.01:
                # Internet egress: dropped at ingest as external.
                out.write(flow(ts, "FORWARDED", sp.ip, "142.251.%d.%d" % (rng.randrange(256), rng.randrange(256)),
                               "TCP", sport, 443, ep(sp), '{"identity":2,"labels":["reserved:world"]}', sp.node,
                               "EGRESS", "TO_STACK", False))
                n += 1
                continue
            if r < 0.015:
                # Kubelet probe from the host.
                out.write(flow(ts, "FORWARDED", "172.18.0.%d" % rng.randrange(2, 60), dp.ip, proto, sport, dport,
                               '{"identity":1,"labels":["reserved:host"]}', ep(dp), dp.node, "INGRESS",
                               "TO_ENDPOINT", False))
                n += 1
                continue
            if r < 0.025:
                # A policy drop at the destination.
                out.write(flow(ts, "DROPPED", sp.ip, dp.ip, proto, sport, dport, ep(sp), ep(dp), dp.node, "INGRESS",
                               "TO_ENDPOINT", False,
                               ',"drop_reason":133,"drop_reason_desc":"POLICY_DENIED"'))
                n += 1
                continue
            # One connection: reported at the source, at the destination, and the reply.
            is_reply_known = rng.random() < 0.9
            out.write(flow(ts, "FORWARDED", sp.ip, dp.ip, proto, sport, dport, ep(sp), ep(dp), sp.node, "EGRESS",
                           "TO_STACK", False if is_reply_known else None))
            out.write(flow(ts, "FORWARDED", sp.ip, dp.ip, proto, sport, dport, ep(sp), ep(dp), dp.node, "INGRESS",
                           "TO_ENDPOINT", False if is_reply_known else None))
            ts2 = timestamp(t + 0.0003)
            out.write(flow(ts2, "FORWARDED", dp.ip, sp.ip, proto, dport, sport, ep(dp), ep(sp), dp.node, "EGRESS",
                           "TO_STACK", True))
            n += 3


if __name__ == "__main__":
    main()
