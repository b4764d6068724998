// Pins the etcd release (the one Kubernetes v1.34 is tested with) that hack/tools/kube.sh builds.
module networkenforcer.local/tools/etcd

go 1.24.0

require go.etcd.io/etcd/server/v3 v3.6.4
