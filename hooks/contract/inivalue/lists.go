package inivalue

import (
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// oslo.config's list and dict options are written on one line and split
// by its own rules: a ListOpt on ',' (inside '[' ']' when it is bounded),
// a DictOpt on ',' between pairs and on the first ':' of each pair, each
// part stripped of surrounding whitespace. These write such lines; which
// items survive them is said by the rules of the fields they come from
// (hooks/contract/api/imports.go), in the reference's words.

// BracketList is a bounded list option's value: [a,b].
func BracketList(items []string) string { return "[" + strings.Join(items, ",") + "]" }

// PortList is a bounded list of ports: [80,443].
func PortList(ports []int32) string {
	items := make([]string, len(ports))
	for i, p := range ports {
		items[i] = strconv.Itoa(int(p))
	}
	return BracketList(items)
}

// DictValue is a dict option's value, keys sorted so the same map is
// always the same line (and the config's hash stays put).
func DictValue(m map[string]string) string {
	pairs := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		pairs = append(pairs, k+":"+m[k])
	}
	return strings.Join(pairs, ",")
}

// hostLabel is one label of a host name as oslo.config's Hostname type
// takes it.
var hostLabel = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)

// HostAddressProblem says why s is not what oslo.config's HostAddress type
// accepts (an IP address, or a host name of letters, digits and '-' whose
// last label is not all digits), or "". A value it refuses makes every
// read of the option fail inside glance-api. An IP address must be in its
// canonical form: Glance canonicalizes the host of a URI before it looks
// it up in the list, so "0:0::1" would never match.
func HostAddressProblem(s string) string {
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		if a.String() != s {
			return "is an IP address not in its canonical form, which Glance compares URI hosts in"
		}
		return ""
	}
	name := strings.TrimSuffix(s, ".")
	if name == "" || len(s) > 253 {
		return "must be an IP address or a host name of at most 253 characters"
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if !hostLabel.MatchString(l) {
			return "must be an IP address or a host name: labels of letters, digits and '-', neither starting nor ending with '-'"
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return "must be an IP address or a host name whose last label is not all digits"
	}
	return ""
}
