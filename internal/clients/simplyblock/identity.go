package simplyblock

import (
	"context"
	"net"
	"strconv"
	"strings"
	"time"
)

// How a node record is found from the address it was added or moved with
// (docs/backend.md, "Node identity"). The backend keeps the address in
// api_endpoint, which no response carries; what it returns is mgmt_ip, the
// IP of the add's interface_name on the host (storage_node_ops.py:2964-2969,
// 3209) or, after a move, the resolved node_address (:4622), and hostname,
// the agent's host name with "_<rpc_port>" (:3184) or bare after a move
// (:4635).

// AddressHost returns the host part of a node address such as
// "10.0.0.10:5000" or "worker-1.example.com:5000".
func AddressHost(address string) string {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return address
	}
	return host
}

// HostIPs returns the IPs of a node address's host: the host itself when
// it is an IP, else what the resolver answers within two seconds (nothing
// when it does not).
func HostIPs(ctx context.Context, address string) []string {
	host := AddressHost(address)
	if net.ParseIP(host) != nil {
		return []string{host}
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupHost(ctx, host)
	if err != nil {
		return nil
	}
	return ips
}

// IsAt reports whether node is the record of a node at address, whose host
// resolves to ips (HostIPs): its mgmt_ip is one of them, or its hostname,
// without the "_<rpc_port>" suffix, names the address's host (the whole
// name or its first label).
func (n *StorageNodeDTO) IsAt(address string, ips []string) bool {
	for _, ip := range ips {
		if n.MgmtIP == ip {
			return true
		}
	}
	host := strings.ToLower(AddressHost(address))
	if net.ParseIP(host) != nil || n.Hostname == "" {
		return false
	}
	name := strings.ToLower(strings.TrimSuffix(n.Hostname, "_"+strconv.FormatInt(n.RPCPort, 10)))
	first, _, _ := strings.Cut(host, ".")
	return name == host || name == first
}
