#!/usr/bin/env python3
"""Generates the example queries (with the decision expected from Cilium's
documented semantics), runs them through the oracle and writes
examples.jsonl: one {"name","expect","query","output"} object per line.

usage: gen_examples.py ORACLE_BINARY OUT_FILE
"""
import json, subprocess, sys

def pod(ns, **labels):
    return {"namespace": ns, "labels": labels}

WEB = pod("prod", app="web")
CLIENT = pod("prod", app="client")

A = {"endpointSelector": {"matchLabels": {"app": "web"}},
     "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}],
                  "toPorts": [{"ports": [{"port": "8080", "protocol": "TCP"}]}]}]}
RANGE = {"endpointSelector": {"matchLabels": {"app": "web"}},
         "ingress": [{"fromEndpoints": [{}],
                      "toPorts": [{"ports": [{"port": "8000", "endPort": 8100, "protocol": "TCP"}]}]}]}
CIDR_EXCEPT = {"endpointSelector": {"matchLabels": {"app": "web"}},
               "egress": [{"toCIDRSet": [{"cidr": "10.0.0.0/8", "except": ["10.96.0.0/12"]}],
                           "toPorts": [{"ports": [{"port": "443", "protocol": "TCP"}]}]}]}
FROM_CIDR = {"endpointSelector": {"matchLabels": {"app": "web"}},
             "ingress": [{"fromCIDR": ["203.0.113.0/24"]}]}
DENY = {"endpointSelector": {"matchLabels": {"app": "web"}},
        "ingress": [{"fromEndpoints": [{}]}],
        "ingressDeny": [{"fromEndpoints": [{"matchLabels": {"app": "bad"}}],
                         "toPorts": [{"ports": [{"port": "8080", "protocol": "TCP"}]}]}]}
DENY_RANGE = {"endpointSelector": {"matchLabels": {"app": "web"}},
              "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}]}],
              "ingressDeny": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}],
                               "toPorts": [{"ports": [{"port": "8000", "endPort": 8999, "protocol": "ANY"}]}]}]}
DENY_ONLY = {"endpointSelector": {"matchLabels": {"app": "web"}},
             "ingressDeny": [{"fromEndpoints": [{"matchLabels": {"app": "bad"}}]}]}
DENY_ONLY_NO_DD = dict(DENY_ONLY, enableDefaultDeny={"ingress": False})
EGRESS_DENY_CIDR = {"endpointSelector": {"matchLabels": {"app": "web"}},
                    "egress": [{"toEntities": ["world"]}],
                    "egressDeny": [{"toCIDR": ["198.51.100.0/24"]}]}
WORLD = {"endpointSelector": {"matchLabels": {"app": "web"}},
         "egress": [{"toEntities": ["world"]}]}
KAPI = {"endpointSelector": {"matchLabels": {"app": "web"}},
        "egress": [{"toEntities": ["kube-apiserver"], "toPorts": [{"ports": [{"port": "443"}]}]}]}
CLUSTER = {"endpointSelector": {"matchLabels": {"app": "web"}},
           "egress": [{"toEntities": ["cluster"]}]}
DNS_ANY = {"endpointSelector": {"matchLabels": {"app": "web"}},
           "egress": [{"toEndpoints": [{"matchLabels": {"k8s:io.kubernetes.pod.namespace": "kube-system", "k8s-app": "kube-dns"}}],
                       "toPorts": [{"ports": [{"port": "53", "protocol": "ANY"}]}]}]}
EXPR = {"endpointSelector": {"matchLabels": {"app": "web"}},
        "ingress": [{"fromEndpoints": [{"matchExpressions": [
            {"key": "app", "operator": "In", "values": ["a", "b"]},
            {"key": "tier", "operator": "DoesNotExist"}]}]}]}
CROSS_NS = {"endpointSelector": {"matchLabels": {"app": "web"}},
            "ingress": [{"fromEndpoints": [{"matchLabels": {"k8s:io.kubernetes.pod.namespace": "bob", "app": "db"}}]}]}
NS_LABELS = {"endpointSelector": {"matchLabels": {"app": "web"}},
             "ingress": [{"fromEndpoints": [{"matchLabels": {"io.cilium.k8s.namespace.labels.team": "blue"}}]}]}
L7 = {"endpointSelector": {"matchLabels": {"app": "web"}},
      "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}],
                   "toPorts": [{"ports": [{"port": "80", "protocol": "TCP"}],
                                "rules": {"http": [{"method": "GET", "path": "/public"}]}}]}]}
ICMP = {"endpointSelector": {"matchLabels": {"app": "web"}},
        "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}],
                     "icmps": [{"fields": [{"type": 8, "family": "IPv4"}]}]}]}
SELECT_ALL_NS = {"endpointSelector": {},
                 "ingress": [{"fromEndpoints": [{}]}]}
NAMED = {"endpointSelector": {"matchLabels": {"app": "web"}},
         "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}],
                      "toPorts": [{"ports": [{"port": "http", "protocol": "TCP"}]}]}]}
SPECS = [
    {"endpointSelector": {"matchLabels": {"app": "web"}},
     "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}], "toPorts": [{"ports": [{"port": "80", "protocol": "TCP"}]}]}]},
    {"endpointSelector": {"matchLabels": {"app": "web"}},
     "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "monitor"}}], "toPorts": [{"ports": [{"port": "9090", "protocol": "TCP"}]}]}]},
]
UDP_ONLY = {"endpointSelector": {"matchLabels": {"app": "web"}},
            "egress": [{"toCIDR": ["192.0.2.10/32"], "toPorts": [{"ports": [{"port": "514", "protocol": "UDP"}]}]}]}
SERVICES = {"endpointSelector": {"matchLabels": {"app": "web"}},
            "egress": [{"toServices": [{"k8sService": {"serviceName": "db", "namespace": "prod"}}]}]}
FQDN = {"endpointSelector": {"matchLabels": {"app": "web"}},
        "egress": [{"toFQDNs": [{"matchName": "example.com"}]}]}

EMPTY_INGRESS = {"endpointSelector": {"matchLabels": {"app": "web"}}, "ingress": [{}]}
PORTS_ONLY = {"endpointSelector": {"matchLabels": {"app": "web"}},
              "egress": [{"toPorts": [{"ports": [{"port": "443", "protocol": "TCP"}]}]}]}
FILTERED_LABEL = {"endpointSelector": {"matchLabels": {"app": "web"}},
                  "ingress": [{"fromEndpoints": [{"matchLabels": {"pod-template-hash": "abc123"}}]}]}
ICMP_REPLY = {"endpointSelector": {"matchLabels": {"app": "web"}},
              "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}],
                           "icmps": [{"fields": [{"type": "EchoReply", "family": "IPv4"}]}]}]}
ALL = {"endpointSelector": {"matchLabels": {"app": "web"}}, "ingress": [{"fromEntities": ["all"]}]}
NS_EXPR = {"endpointSelector": {"matchLabels": {"app": "web"}},
           "ingress": [{"fromEndpoints": [{"matchExpressions": [
               {"key": "k8s:io.kubernetes.pod.namespace", "operator": "In", "values": ["team-a", "team-b"]}]}]}]}
DNS_L7 = {"endpointSelector": {"matchLabels": {"app": "web"}},
          "egress": [{"toEndpoints": [{"matchLabels": {"k8s:io.kubernetes.pod.namespace": "kube-system", "k8s-app": "kube-dns"}}],
                      "toPorts": [{"ports": [{"port": "53", "protocol": "UDP"}], "rules": {"dns": [{"matchPattern": "*"}]}}]}]}
SA = {"endpointSelector": {"matchLabels": {"app": "web"}},
      "ingress": [{"fromEndpoints": [{"matchLabels": {"io.cilium.k8s.policy.serviceaccount": "frontend"}}]}]}

# Replays of Cilium's own script tests (pkg/policy/test/testdata/*.txtar, which
# use policy.LookupFlow); two CNPs in one namespace = one CNP with two specs.
TXTAR_KAPI_DENY = [
    {"endpointSelector": {}, "egress": [{"toEntities": ["all"]}]},
    {"endpointSelector": {}, "egressDeny": [{"toEntities": ["kube-apiserver"]}]},
]
TXTAR_DEFAULT_DENY_EGRESS = {"endpointSelector": {}, "egress": [{}]}
TXTAR_KAPI_ALLOW = [
    TXTAR_DEFAULT_DENY_EGRESS,
    {"endpointSelector": {}, "egress": [{"toEntities": ["kube-apiserver"]}]},
]
TXTAR_POD = pod("default", app="test")

DENY_WILDCARD_L3 = {"endpointSelector": {"matchLabels": {"app": "web"}},
                    "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}], "toPorts": [{"ports": [{"port": "80", "protocol": "TCP"}]}]}],
                    "ingressDeny": [{"fromEntities": ["all"], "toPorts": [{"ports": [{"port": "80", "protocol": "TCP"}]}]}]}
DENY_CLUSTER = {"endpointSelector": {"matchLabels": {"app": "web"}},
                "ingress": [{"fromEndpoints": [{"matchLabels": {"app": "client"}}], "toPorts": [{"ports": [{"port": "80", "protocol": "TCP"}]}]}],
                "ingressDeny": [{"fromEntities": ["cluster"]}]}
DENY_WIDER_CIDR = {"endpointSelector": {"matchLabels": {"app": "web"}},
                   "egress": [{"toCIDR": ["203.0.113.7/32"]}],
                   "egressDeny": [{"toCIDR": ["203.0.113.0/24"], "toPorts": [{"ports": [{"port": "443"}]}]}]}

def q(policy, direction, subject, peer, proto, port, ns="prod"):
    return {"namespace": ns, "policy": policy, "direction": direction,
            "subject": subject, "peer": peer, "protocol": proto, "port": port}

cases = [
  # --- basic L3/L4 allow, default deny, selection ---
  ("A client->web:8080 allowed", "allow", q(A, "ingress", WEB, CLIENT, "TCP", 8080)),
  ("A client->web:8081 not allowed (default deny)", "deny", q(A, "ingress", WEB, CLIENT, "TCP", 8081)),
  ("A client->web:8080/UDP wrong protocol", "deny", q(A, "ingress", WEB, CLIENT, "UDP", 8080)),
  ("A other->web:8080 not selected as peer", "deny", q(A, "ingress", WEB, pod("prod", app="other"), "TCP", 8080)),
  ("A subject app=api not selected -> allow", "allow", q(A, "ingress", pod("prod", app="api"), pod("prod", app="other"), "TCP", 1234)),
  ("A web in other namespace not selected (endpointSelector gets policy namespace)", "allow", q(A, "ingress", pod("staging", app="web"), pod("staging", app="other"), "TCP", 8080)),
  ("A client in namespace bob: peer selector w/o namespace = policy namespace only", "deny", q(A, "ingress", WEB, pod("bob", app="client"), "TCP", 8080)),
  ("A no egress rules -> egress not enforced", "allow", q(A, "egress", WEB, pod("bob", app="anything"), "TCP", 5432)),
  ("A host always reaches local pods (allow-localhost=always in k8s mode)", "allow", q(A, "ingress", WEB, {"entity": "host"}, "TCP", 9999)),
  ("A world IP -> web:8080 denied", "deny", q(A, "ingress", WEB, {"ip": "203.0.113.7"}, "TCP", 8080)),
  # --- port ranges ---
  ("RANGE 7999 below range", "deny", q(RANGE, "ingress", WEB, CLIENT, "TCP", 7999)),
  ("RANGE 8000 first port", "allow", q(RANGE, "ingress", WEB, CLIENT, "TCP", 8000)),
  ("RANGE 8050 inside", "allow", q(RANGE, "ingress", WEB, CLIENT, "TCP", 8050)),
  ("RANGE 8100 last port", "allow", q(RANGE, "ingress", WEB, CLIENT, "TCP", 8100)),
  ("RANGE 8101 above range", "deny", q(RANGE, "ingress", WEB, CLIENT, "TCP", 8101)),
  ("RANGE fromEndpoints [{}] is namespace-scoped: peer in bob", "deny", q(RANGE, "ingress", WEB, pod("bob", app="client"), "TCP", 8050)),
  # --- CIDR with except ---
  ("CIDR 10.1.2.3:443 in 10/8", "allow", q(CIDR_EXCEPT, "egress", WEB, {"ip": "10.1.2.3"}, "TCP", 443)),
  ("CIDR 10.96.0.1:443 in except 10.96/12", "deny", q(CIDR_EXCEPT, "egress", WEB, {"ip": "10.96.0.1"}, "TCP", 443)),
  ("CIDR 10.111.255.254:443 in except 10.96/12", "deny", q(CIDR_EXCEPT, "egress", WEB, {"ip": "10.111.255.254"}, "TCP", 443)),
  ("CIDR 10.112.0.1:443 just past except", "allow", q(CIDR_EXCEPT, "egress", WEB, {"ip": "10.112.0.1"}, "TCP", 443)),
  ("CIDR 11.0.0.1:443 outside 10/8", "deny", q(CIDR_EXCEPT, "egress", WEB, {"ip": "11.0.0.1"}, "TCP", 443)),
  ("CIDR 10.1.2.3:80 wrong port", "deny", q(CIDR_EXCEPT, "egress", WEB, {"ip": "10.1.2.3"}, "TCP", 80)),
  ("CIDR selectors do not select pods", "deny", q(CIDR_EXCEPT, "egress", WEB, pod("prod", app="db"), "TCP", 443)),
  ("fromCIDR 203.0.113.0/24: 203.0.113.7 any port", "allow", q(FROM_CIDR, "ingress", WEB, {"ip": "203.0.113.7"}, "UDP", 5353)),
  ("fromCIDR 203.0.113.0/24: 198.51.100.1", "deny", q(FROM_CIDR, "ingress", WEB, {"ip": "198.51.100.1"}, "TCP", 80)),
  # --- deny beats allow ---
  ("DENY bad->web:8080 ingressDeny beats allow-all", "deny", q(DENY, "ingress", WEB, pod("prod", app="bad"), "TCP", 8080)),
  ("DENY bad->web:9090 not covered by deny", "allow", q(DENY, "ingress", WEB, pod("prod", app="bad"), "TCP", 9090)),
  ("DENY good->web:8080", "allow", q(DENY, "ingress", WEB, pod("prod", app="good"), "TCP", 8080)),
  ("DENY_RANGE L3 allow + port-range deny (ANY): 8500/UDP", "deny", q(DENY_RANGE, "ingress", WEB, CLIENT, "UDP", 8500)),
  ("DENY_RANGE 8999/TCP last denied", "deny", q(DENY_RANGE, "ingress", WEB, CLIENT, "TCP", 8999)),
  ("DENY_RANGE 9000/TCP past deny range", "allow", q(DENY_RANGE, "ingress", WEB, CLIENT, "TCP", 9000)),
  ("DENY_ONLY a deny-only policy still enables default deny", "deny", q(DENY_ONLY, "ingress", WEB, pod("prod", app="good"), "TCP", 80)),
  ("DENY_ONLY enableDefaultDeny.ingress=false: others allowed", "allow", q(DENY_ONLY_NO_DD, "ingress", WEB, pod("prod", app="good"), "TCP", 80)),
  ("DENY_ONLY enableDefaultDeny.ingress=false: bad still denied", "deny", q(DENY_ONLY_NO_DD, "ingress", WEB, pod("prod", app="bad"), "TCP", 80)),
  ("EGRESS_DENY toEntities world + egressDeny 198.51.100.0/24: 198.51.100.9", "deny", q(EGRESS_DENY_CIDR, "egress", WEB, {"ip": "198.51.100.9"}, "TCP", 443)),
  ("EGRESS_DENY 8.8.8.8 allowed as world", "allow", q(EGRESS_DENY_CIDR, "egress", WEB, {"ip": "8.8.8.8"}, "UDP", 53)),
  ("DENY_WILDCARD_L3 specific L3+L4 allow vs fromEntities all deny on :80", "deny", q(DENY_WILDCARD_L3, "ingress", WEB, CLIENT, "TCP", 80)),
  ("DENY_CLUSTER specific allow vs L3-only deny of entity cluster", "deny", q(DENY_CLUSTER, "ingress", WEB, CLIENT, "TCP", 80)),
  ("DENY_WIDER_CIDR allow /32 all ports vs deny /24 :443 -> 443", "deny", q(DENY_WIDER_CIDR, "egress", WEB, {"ip": "203.0.113.7"}, "TCP", 443)),
  ("DENY_WIDER_CIDR allow /32 all ports vs deny /24 :443 -> 80", "allow", q(DENY_WIDER_CIDR, "egress", WEB, {"ip": "203.0.113.7"}, "TCP", 80)),
  # --- entities ---
  ("WORLD toEntities world: outside IP", "allow", q(WORLD, "egress", WEB, {"ip": "203.0.113.7"}, "TCP", 443)),
  ("WORLD toEntities world: entity world", "allow", q(WORLD, "egress", WEB, {"entity": "world"}, "TCP", 443)),
  ("WORLD toEntities world: in-cluster pod", "deny", q(WORLD, "egress", WEB, pod("prod", app="db"), "TCP", 5432)),
  ("WORLD toEntities world: host", "deny", q(WORLD, "egress", WEB, {"entity": "host"}, "TCP", 10250)),
  ("WORLD toEntities world: kube-apiserver", "deny", q(WORLD, "egress", WEB, {"entity": "kube-apiserver"}, "TCP", 443)),
  ("KAPI toEntities kube-apiserver:443 (port w/o protocol = ANY)", "allow", q(KAPI, "egress", WEB, {"entity": "kube-apiserver"}, "TCP", 443)),
  ("KAPI remote-node is not kube-apiserver", "deny", q(KAPI, "egress", WEB, {"entity": "remote-node"}, "TCP", 443)),
  ("CLUSTER toEntities cluster: pod in another namespace", "allow", q(CLUSTER, "egress", WEB, pod("bob", app="db"), "TCP", 5432)),
  ("CLUSTER toEntities cluster: host", "allow", q(CLUSTER, "egress", WEB, {"entity": "host"}, "TCP", 10250)),
  ("CLUSTER toEntities cluster: world IP", "deny", q(CLUSTER, "egress", WEB, {"ip": "203.0.113.7"}, "TCP", 443)),
  # --- protocol ANY ---
  ("DNS_ANY kube-dns UDP/53", "allow", q(DNS_ANY, "egress", WEB, pod("kube-system", **{"k8s-app": "kube-dns"}), "UDP", 53)),
  ("DNS_ANY kube-dns TCP/53", "allow", q(DNS_ANY, "egress", WEB, pod("kube-system", **{"k8s-app": "kube-dns"}), "TCP", 53)),
  ("DNS_ANY kube-dns SCTP/53 (ANY = TCP+UDP+SCTP)", "allow", q(DNS_ANY, "egress", WEB, pod("kube-system", **{"k8s-app": "kube-dns"}), "SCTP", 53)),
  ("DNS_ANY kube-dns UDP/54", "deny", q(DNS_ANY, "egress", WEB, pod("kube-system", **{"k8s-app": "kube-dns"}), "UDP", 54)),
  ("DNS_ANY kube-dns labels but in namespace prod", "deny", q(DNS_ANY, "egress", WEB, pod("prod", **{"k8s-app": "kube-dns"}), "UDP", 53)),
  # --- matchExpressions ---
  ("EXPR app In (a,b): app=a", "allow", q(EXPR, "ingress", WEB, pod("prod", app="a"), "TCP", 80)),
  ("EXPR app In (a,b): app=c", "deny", q(EXPR, "ingress", WEB, pod("prod", app="c"), "TCP", 80)),
  ("EXPR tier DoesNotExist: app=b,tier=x", "deny", q(EXPR, "ingress", WEB, pod("prod", app="b", tier="x"), "TCP", 80)),
  # --- explicit namespaces ---
  ("CROSS_NS explicit namespace bob: db in bob", "allow", q(CROSS_NS, "ingress", WEB, pod("bob", app="db"), "TCP", 5432)),
  ("CROSS_NS explicit namespace bob: db in prod", "deny", q(CROSS_NS, "ingress", WEB, pod("prod", app="db"), "TCP", 5432)),
  ("NS_LABELS namespace label selector is not namespace-scoped: ns team=blue", "allow",
      q(NS_LABELS, "ingress", WEB, {"namespace": "blue1", "labels": {"app": "x"}, "namespaceLabels": {"team": "blue"}}, "TCP", 80)),
  ("NS_LABELS ns without team=blue", "deny", q(NS_LABELS, "ingress", WEB, pod("prod", app="x"), "TCP", 80)),
  ("SELECT_ALL_NS endpointSelector {} + fromEndpoints [{}]: same namespace", "allow", q(SELECT_ALL_NS, "ingress", pod("prod", app="x"), pod("prod", app="y"), "TCP", 80)),
  ("SELECT_ALL_NS other namespace peer", "deny", q(SELECT_ALL_NS, "ingress", pod("prod", app="x"), pod("other", app="y"), "TCP", 80)),
  # --- L7, ICMP, named ports, specs ---
  ("L7 HTTP rule on 80: port allowed at L3/L4 (redirected to proxy)", "allow", q(L7, "ingress", WEB, CLIENT, "TCP", 80)),
  ("L7 HTTP rule on 80: port 81", "deny", q(L7, "ingress", WEB, CLIENT, "TCP", 81)),
  ("ICMP echo request (type 8) allowed", "allow", q(ICMP, "ingress", WEB, CLIENT, "ICMP", 8)),
  ("ICMP timestamp (type 13) not allowed", "deny", q(ICMP, "ingress", WEB, CLIENT, "ICMP", 13)),
  ("ICMP rule does not allow TCP", "deny", q(ICMP, "ingress", WEB, CLIENT, "TCP", 80)),
  ("NAMED port http on subject = 8080", "allow", dict(q(NAMED, "ingress", dict(WEB, namedPorts={"http": {"port": 8080}}), CLIENT, "TCP", 8080))),
  ("NAMED port http: other port", "deny", dict(q(NAMED, "ingress", dict(WEB, namedPorts={"http": {"port": 8080}}), CLIENT, "TCP", 80))),
  ("NAMED subject without that named port", "deny", q(NAMED, "ingress", WEB, CLIENT, "TCP", 8080)),
  ("SPECS rule 2 (monitor:9090)", "allow", q(SPECS, "ingress", WEB, pod("prod", app="monitor"), "TCP", 9090)),
  ("SPECS monitor:80 only client", "deny", q(SPECS, "ingress", WEB, pod("prod", app="monitor"), "TCP", 80)),
  ("UDP_ONLY syslog 192.0.2.10:514/UDP", "allow", q(UDP_ONLY, "egress", WEB, {"ip": "192.0.2.10"}, "UDP", 514)),
  ("UDP_ONLY 192.0.2.10:514/TCP", "deny", q(UDP_ONLY, "egress", WEB, {"ip": "192.0.2.10"}, "TCP", 514)),
  ("UDP_ONLY 192.0.2.11:514/UDP", "deny", q(UDP_ONLY, "egress", WEB, {"ip": "192.0.2.11"}, "UDP", 514)),
  # --- more edge cases ---
  ("EMPTY_INGRESS ingress: [{}] selects the pod, allows nothing", "deny", q(EMPTY_INGRESS, "ingress", WEB, CLIENT, "TCP", 80)),
  ("PORTS_ONLY egress toPorts without toX = any peer: world IP:443", "allow", q(PORTS_ONLY, "egress", WEB, {"ip": "203.0.113.7"}, "TCP", 443)),
  ("PORTS_ONLY any peer: pod in bob:443", "allow", q(PORTS_ONLY, "egress", WEB, pod("bob", app="db"), "TCP", 443)),
  ("PORTS_ONLY any peer: :80", "deny", q(PORTS_ONLY, "egress", WEB, pod("bob", app="db"), "TCP", 80)),
  ("FILTERED_LABEL pod-template-hash is not an identity label", "deny", q(FILTERED_LABEL, "ingress", WEB, pod("prod", app="client", **{"pod-template-hash": "abc123"}), "TCP", 80)),
  ("ICMP_REPLY type EchoReply (0) = port 0 = every ICMP type: type 8", "allow", q(ICMP_REPLY, "ingress", WEB, CLIENT, "ICMP", 8)),
  ("ICMP_REPLY type 0", "allow", q(ICMP_REPLY, "ingress", WEB, CLIENT, "ICMP", 0)),
  ("ICMP type-8 rule: type 0 (echo reply) not allowed", "deny", q(ICMP, "ingress", WEB, CLIENT, "ICMP", 0)),
  ("ALL fromEntities all: world IP", "allow", q(ALL, "ingress", WEB, {"ip": "198.51.100.1"}, "TCP", 22)),
  ("ALL fromEntities all: remote-node", "allow", q(ALL, "ingress", WEB, {"entity": "remote-node"}, "TCP", 22)),
  ("NS_EXPR namespace In (team-a, team-b): pod in team-b", "allow", q(NS_EXPR, "ingress", WEB, pod("team-b", app="x"), "TCP", 80)),
  ("NS_EXPR namespace In (team-a, team-b): pod in prod", "deny", q(NS_EXPR, "ingress", WEB, pod("prod", app="x"), "TCP", 80)),
  ("DNS_L7 dns rule: UDP/53 allowed at L3/L4 (DNS proxy redirect)", "allow", q(DNS_L7, "egress", WEB, pod("kube-system", **{"k8s-app": "kube-dns"}), "UDP", 53)),
  ("DNS_L7 dns rule: TCP/53 not allowed", "deny", q(DNS_L7, "egress", WEB, pod("kube-system", **{"k8s-app": "kube-dns"}), "TCP", 53)),
  ("SA service account selector: frontend", "allow", q(SA, "ingress", WEB, dict(pod("prod", app="x"), serviceAccount="frontend"), "TCP", 80)),
  ("SA service account selector: default SA", "deny", q(SA, "ingress", WEB, pod("prod", app="x"), "TCP", 80)),
  # --- Cilium's own expectations (pkg/policy/test/testdata/kube-apiserver-*.txtar) ---
  ("txtar kube-apiserver-deny: all + egressDeny kube-apiserver: apiserver tcp/443", "deny", q(TXTAR_KAPI_DENY, "egress", TXTAR_POD, {"entity": "kube-apiserver"}, "TCP", 443, ns="default")),
  ("txtar kube-apiserver-deny: world tcp/80", "allow", q(TXTAR_KAPI_DENY, "egress", TXTAR_POD, {"entity": "world"}, "TCP", 80, ns="default")),
  ("txtar kube-apiserver-allow: egress [{}] default deny: apiserver tcp/443", "deny", q(TXTAR_DEFAULT_DENY_EGRESS, "egress", TXTAR_POD, {"entity": "kube-apiserver"}, "TCP", 443, ns="default")),
  ("txtar kube-apiserver-allow: + toEntities kube-apiserver: apiserver tcp/443", "allow", q(TXTAR_KAPI_ALLOW, "egress", TXTAR_POD, {"entity": "kube-apiserver"}, "TCP", 443, ns="default")),
  # --- errors (must not kill the process) ---
  ("toServices cannot be evaluated", "error", q(SERVICES, "egress", WEB, pod("prod", app="db"), "TCP", 5432)),
  ("toFQDNs with an IP peer cannot be evaluated", "error", q(FQDN, "egress", WEB, {"ip": "93.184.216.34"}, "TCP", 443)),
  ("toFQDNs with a pod peer: FQDN selectors never select pods", "deny", q(FQDN, "egress", WEB, pod("prod", app="db"), "TCP", 443)),
  ("invalid CIDR rejected by Cilium's Sanitize", "error", q({"endpointSelector": {}, "ingress": [{"fromCIDR": ["10.0.0.0/33"]}]}, "ingress", WEB, {"ip": "10.0.0.1"}, "TCP", 80)),
  ("unknown policy field rejected (strict decoding)", "error", q({"endpointSelector": {}, "ingres": []}, "ingress", WEB, CLIENT, "TCP", 80)),
  ("port 0 rejected", "error", q(A, "ingress", WEB, CLIENT, "TCP", 0)),
  ("entity cluster is not a single peer", "error", q(A, "ingress", WEB, {"entity": "cluster"}, "TCP", 80)),
  ("IPv6 peer in IPv4-only cluster", "error", q(A, "ingress", WEB, {"ip": "2001:db8::1"}, "TCP", 80)),
]

def main():
    binary, out = sys.argv[1], sys.argv[2]
    inp = "".join(json.dumps(c[2], separators=(",", ":")) + "\n" for c in cases)
    res = subprocess.run([binary], input=inp, capture_output=True, text=True, check=True)
    outs = res.stdout.splitlines()
    assert len(outs) == len(cases), (len(outs), len(cases))
    bad = 0
    with open(out, "w") as f:
        for (name, expect, query), line in zip(cases, outs):
            o = json.loads(line)
            got = o.get("decision", "error" if "error" in o else "?")
            mark = "ok  " if got == expect else "FAIL"
            if got != expect:
                bad += 1
            print(f"{mark} {name}: expected {expect}, got {line}")
            f.write(json.dumps({"name": name, "expect": expect, "query": query, "output": o}, separators=(",", ":")) + "\n")
    print(f"{len(cases) - bad} passed, {bad} failed")
    sys.exit(1 if bad else 0)

main()
