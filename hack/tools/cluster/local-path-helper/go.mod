// The helper local-path-provisioner starts to create and remove a volume's directory (its
// setupCommand/teardownCommand), so the helper image needs no shell.
module networkenforcer.local/tools/cluster/localpathhelper

go 1.24.0
