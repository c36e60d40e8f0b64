// Package netpolicy reads a NetworkPolicy the way a CNI would, independently
// of the hook code that wrote it, for tests that check what a policy allows.
package netpolicy

import (
	"net"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
)

// EgressAllows says whether an egress rule of np lets a pod reach host on
// TCP port. An IP is matched against ipBlocks; a Service name
// <svc>.<ns>.svc... is a pod in that namespace (a namespaceSelector on its
// name); another name can only be reached by a rule with no destination.
func EgressAllows(np networkingv1.NetworkPolicySpec, host string, port int) bool {
	for _, r := range np.Egress {
		if !portAllowed(r.Ports, port) {
			continue
		}
		if len(r.To) == 0 {
			return true
		}
		for _, peer := range r.To {
			if peerAllows(peer, host) {
				return true
			}
		}
	}
	return false
}

func portAllowed(ports []networkingv1.NetworkPolicyPort, port int) bool {
	if len(ports) == 0 {
		return true
	}
	for _, p := range ports {
		if (p.Protocol == nil || *p.Protocol == "TCP") && (p.Port == nil || p.Port.IntValue() == port) {
			return true
		}
	}
	return false
}

func peerAllows(peer networkingv1.NetworkPolicyPeer, host string) bool {
	labels := strings.Split(host, ".")
	switch ip := net.ParseIP(host); {
	case peer.IPBlock != nil && ip != nil:
		_, n, err := net.ParseCIDR(peer.IPBlock.CIDR)
		return err == nil && n.Contains(ip)
	case peer.NamespaceSelector != nil && len(labels) >= 3 && labels[2] == "svc":
		return peer.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] == labels[1]
	}
	return false
}
