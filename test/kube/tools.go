//go:build tools

// Package tools keeps the kube-apiserver and kubectl commands in this
// module's build list.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
