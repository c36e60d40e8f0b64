package glancebackend

import (
	"encoding/base64"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// checkProjected decides ConfigProjected: true only when the Glance's
// Deployment mounts a backends Secret whose backends.conf has this store's
// section header on a line of its own.
func checkProjected(related metacontroller.ObjectMap, glance string, glanceFound bool, storeID string) (hook.Condition, error) {
	c := hook.Condition{Type: CondConfigProjected, Reason: ReasonWaitingForProjection}
	if !glanceFound {
		c.Message = fmt.Sprintf("Glance %q does not exist yet", glance)
		return c, nil
	}
	deploy, found, err := metacontroller.DecodeOne[deploymentVolumes](related, names.DeploymentsKey, glance)
	if err != nil {
		return c, hook.Invalid("related %v", err)
	}
	if !found {
		c.Message = fmt.Sprintf("Glance %q has no Deployment yet", glance)
		return c, nil
	}
	secretName := ""
	for _, v := range deploy.Spec.Template.Spec.Volumes {
		if v.Name == names.VolumeBackends && v.Secret != nil {
			secretName = v.Secret.SecretName
		}
	}
	if secretName == "" {
		c.Message = fmt.Sprintf("Deployment %q mounts no %s Secret", glance, names.VolumeBackends)
		return c, nil
	}
	// Every GlanceBackend reads the one Secret that holds the sections of
	// all of them: SecretData reads its backends.conf without decoding the
	// rest where it can.
	encoded, found, err := related.SecretData(names.SecretsKey, secretName, names.BackendsFile)
	if err != nil {
		return c, hook.Invalid("related %v", err)
	}
	if !found {
		c.Message = fmt.Sprintf("backends Secret %q mounted by Deployment %q is not observed yet", secretName, glance)
		return c, nil
	}
	if !hasSection(encoded, storeID) {
		c.Message = fmt.Sprintf("Deployment %q mounts a backends Secret that has no [%s] section yet", glance, storeID)
		return c, nil
	}
	c.Status, c.Reason = true, ReasonConfigProjected
	// The Secret's name changes with every store of the Glance: naming it
	// here would rewrite every backend's status for each change of one.
	c.Message = fmt.Sprintf("Deployment %q mounts a backends Secret that holds [%s]", glance, storeID)
	return c, nil
}

// deploymentVolumes is the part of a Deployment checkProjected reads.
type deploymentVolumes struct {
	Spec struct {
		Template struct {
			Spec struct {
				Volumes []corev1.Volume `json:"volumes"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// confBuffers hold decoded backends.conf files: each is the size of the
// sections of all stores, and every GlanceBackend sync decodes one.
var confBuffers = sync.Pool{New: func() any { return new([]byte) }}

// hasSection reports whether the base64 backends.conf holds the store's
// section header; not when it is no base64.
func hasSection(encoded []byte, storeID string) bool {
	buf := confBuffers.Get().(*[]byte)
	defer confBuffers.Put(buf)
	if n := base64.StdEncoding.DecodedLen(len(encoded)); cap(*buf) < n {
		*buf = make([]byte, n)
	}
	n, err := base64.StdEncoding.Decode((*buf)[:cap(*buf)], encoded)
	return err == nil && storeconf.HasSectionHeader((*buf)[:n], storeID)
}
