package glancebackend

import (
	"encoding/base64"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// Reasons of ConfigProjected.
const (
	ReasonProjected        = "Projected"
	ReasonNotProjected     = "NotProjected"
	ReasonWaitingForParent = "WaitingForParent"
)

// checkProjected decides ConfigProjected: true only when the Glance's
// Deployment mounts a backends Secret whose backends.conf has this store's
// section header on a line of its own.
func checkProjected(related metacontroller.ObjectMap, glance string, glanceFound bool, storeID string) (hook.Condition, error) {
	c := hook.Condition{Type: CondConfigProjected, Reason: ReasonNotProjected}
	if !glanceFound {
		c.Reason = ReasonWaitingForParent
		c.Message = fmt.Sprintf("Glance %q does not exist yet", glance)
		return c, nil
	}
	deploy, found, err := metacontroller.DecodeOne[appsv1.Deployment](related, names.DeploymentsKey, glance)
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
	secret, found, err := metacontroller.DecodeOne[rawSecret](related, names.SecretsKey, secretName)
	if err != nil {
		return c, hook.Invalid("related %v", err)
	}
	if !found {
		c.Message = fmt.Sprintf("backends Secret %q mounted by Deployment %q is not observed yet", secretName, glance)
		return c, nil
	}
	conf, err := base64.StdEncoding.DecodeString(secret.Data[names.BackendsFile])
	if err != nil || !storeconf.HasSectionHeader(string(conf), storeID) {
		c.Message = fmt.Sprintf("backends Secret %q mounted by Deployment %q has no [%s] section yet", secretName, glance, storeID)
		return c, nil
	}
	c.Status, c.Reason = true, ReasonProjected
	c.Message = fmt.Sprintf("backends Secret %q mounted by Deployment %q holds [%s]", secretName, glance, storeID)
	return c, nil
}
