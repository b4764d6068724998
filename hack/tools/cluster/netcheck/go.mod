module network-enforcer.local/netcheck

go 1.26.0
