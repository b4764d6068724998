// The pod sandbox's pause process; hack/tools/cluster.sh builds it into a FROM-scratch image.
module networkenforcer.local/tools/cluster/pause

go 1.24.0
