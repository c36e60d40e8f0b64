package controlplane

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	reg "github.com/c5c3/glance-hooks/hooks/contract/registration"
)

// Hook is the ControlPlane's sync (and finalize) hook with what it needs
// besides the request.
type Hook struct {
	// JobImage runs the registration Jobs: the image of glance-hooks
	// itself, whose `keystone` command parses the args this hook renders.
	JobImage string
}

// keystoneOutcome is the registration part of a sync: the children it
// adds, the KeystoneRegistered condition, and (while finalizing) whether
// the ControlPlane may go.
type keystoneOutcome struct {
	children  []any
	condition hook.Condition
	finalized bool
}

// keystone decides the registration children and condition. While the
// ControlPlane lives, a registration Job runs whenever its inputs change;
// while it is being deleted, a deregistration Job removes what the
// registration created, unless spec...keystone.onDelete is Keep or there
// are no admin credentials to do it with.
func (h Hook) keystone(cp *api.ControlPlane, req *metacontroller.SyncRequest) (keystoneOutcome, error) {
	r, adminWait, err := readAdmin(cp, req.Related)
	if err != nil {
		return keystoneOutcome{}, err
	}
	if req.Finalizing {
		return h.finalize(cp, r, adminWait, req)
	}
	out := keystoneOutcome{children: []any{serviceAccount(cp)}}
	if problems := ValidateKeystone(cp.Spec.Services.Glance.Keystone); len(problems) > 0 {
		out.condition = hook.Condition{Type: CondKeystoneRegistered, Reason: ReasonInvalidSpec,
			Message: "spec.services.glance.keystone is invalid, nothing is registered: " + problem.Wrap(field.NewPath("spec", "services", "glance", "keystone"), problems).String()}
		return out, nil
	}
	if adminWait != nil {
		out.condition = *adminWait
		return out, nil
	}
	if passwordWait, err := r.readPassword(req.Related); err != nil || passwordWait != nil {
		if passwordWait != nil {
			out.condition = *passwordWait
		}
		return out, err
	}
	job := r.job(h.JobImage, false)
	out.children = append(out.children, job)
	st, err := observeJob(job.Name, req.Children, req.Related)
	if err != nil {
		return out, err
	}
	s := r.spec(false)
	c := hook.Condition{Type: CondKeystoneRegistered}
	switch {
	case st.complete:
		c.Status, c.Reason = true, ReasonRegistered
		c.Message = fmt.Sprintf("user %q has role %q on project %q; service %q of type %q has public endpoint %s and internal endpoint %s in region %q (Job %s)",
			s.User, s.Role, s.Project, s.ServiceName, s.ServiceType, s.PublicURL, s.InternalURL, s.Region, excerpt.Name(job.Name))
	case st.failed:
		c.Reason = ReasonRegistrationFailed
		c.Message = fmt.Sprintf("Job %s failed: %s; fix the cause, then delete the Job to run it again", excerpt.Name(job.Name), st.why())
	default:
		c.Reason = ReasonRegistrationRunning
		c.Message = fmt.Sprintf("Job %s registers the Glance in Keystone at %s", excerpt.Name(job.Name), r.admin[reg.EnvAuthURL])
		if st.message != "" {
			c.Message += "; the last attempt failed: " + st.message
		}
	}
	out.condition = c
	return out, nil
}

// finalize answers a sync while the ControlPlane is being deleted.
func (h Hook) finalize(cp *api.ControlPlane, r *registration, adminWait *hook.Condition, req *metacontroller.SyncRequest) (keystoneOutcome, error) {
	settings := cp.Spec.Services.Glance.Registration(cp.Name, cp.Namespace)
	c := hook.Condition{Type: CondKeystoneRegistered}
	switch {
	case settings.OnDelete == api.OnDeleteKeep:
		c.Status, c.Reason = true, ReasonRegistered
		c.Message = "spec.services.glance.keystone.onDelete is Keep: the service and its endpoints stay in Keystone"
		return keystoneOutcome{condition: c, finalized: true}, nil
	case adminWait != nil:
		c.Reason = adminWait.Reason
		c.Message = "without usable admin credentials nothing can be removed from Keystone, so the service and its endpoints stay: " + adminWait.Message
		return keystoneOutcome{condition: c, finalized: true}, nil
	}
	job := r.job(h.JobImage, true)
	st, err := observeJob(job.Name, req.Children, req.Related)
	if err != nil {
		return keystoneOutcome{}, err
	}
	out := keystoneOutcome{children: []any{serviceAccount(cp), job}}
	switch {
	case st.complete:
		c.Reason = ReasonDeregistered
		c.Message = fmt.Sprintf("Job %s removed the endpoints and the service this ControlPlane created", excerpt.Name(job.Name))
		out.finalized = true
	case st.failed:
		c.Reason = ReasonDeregistrationFailed
		c.Message = fmt.Sprintf("Job %s failed: %s; the ControlPlane stays until it succeeds: fix the cause and delete the Job to run it again, or set spec.services.glance.keystone.onDelete to Keep",
			excerpt.Name(job.Name), st.why())
	default:
		c.Reason = ReasonDeregistrationRunning
		c.Message = fmt.Sprintf("Job %s removes the endpoints and the service this ControlPlane created", excerpt.Name(job.Name))
		if st.message != "" {
			c.Message += "; the last attempt failed: " + st.message
		}
	}
	out.condition = c
	return out, nil
}
