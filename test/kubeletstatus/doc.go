// Package kubeletstatus holds pod statuses in the shape a kubelet writes
// them (its waiting and termination reasons and messages, restart counts,
// probes' started and ready, the pod conditions the kubelet and the
// scheduler set), for the cases the Glance hook reports. Scenario fixtures
// put them on pods of the in-process cluster; an integration test writes
// each through a real API server's status subresource, so the shapes are
// the real Pod schema's and the hook reads them back the same.
//
// The reasons and message formats are the kubelet's and the scheduler's
// (k8s.io/kubernetes pkg/kubelet: CreateContainerConfigError,
// ImagePullBackOff, CrashLoopBackOff; pkg/scheduler: Unschedulable).
package kubeletstatus
