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
// part stripped of surrounding whitespace. A value that holds a separator
// would come back as something else, so these say which values survive.

// ListItemProblem says why s cannot be one item of a list option, or "".
func ListItemProblem(s string) string {
	switch {
	case s == "":
		return "is empty"
	case strings.Contains(s, ","):
		return "contains ',', which separates the list's items"
	}
	return ValueProblem(s)
}

// DictKeyProblem says why s cannot be a key of a dict option, or "".
func DictKeyProblem(s string) string {
	if strings.Contains(s, ":") {
		return "contains ':': each pair is split at its first ':', so the name would end there"
	}
	return ListItemProblem(s)
}

// DictValueProblem says why s cannot be a value of a dict option, or ""
// (it may be empty, and may hold ':').
func DictValueProblem(s string) string {
	if s == "" {
		return ""
	}
	return ListItemProblem(s)
}

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
