//go:build tools

// Package tools keeps the kube-apiserver command in this module's build list.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
