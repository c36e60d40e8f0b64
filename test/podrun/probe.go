package podrun

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// probeUserAgent is what the kubelet sends (its version is the kube-apiserver
// the project tests against).
const probeUserAgent = "kube-probe/1.37"

// probeOnce runs a probe one time, as the kubelet does: httpGet succeeds on
// a status from 200 to 399 (redirects are not followed), tcpSocket when a
// connection opens; each within timeoutSeconds (default 1).
func probeOnce(p *corev1.Probe, ctr *corev1.Container, podIP string) error {
	timeout := time.Duration(p.TimeoutSeconds) * time.Second
	if timeout <= 0 {
		timeout = time.Second
	}
	switch {
	case p.HTTPGet != nil:
		return probeHTTP(p.HTTPGet, ctr, podIP, timeout)
	case p.TCPSocket != nil:
		return probeTCP(p.TCPSocket, ctr, podIP, timeout)
	}
	return fmt.Errorf("only httpGet and tcpSocket probes can be run here")
}

func probeHTTP(g *corev1.HTTPGetAction, ctr *corev1.Container, podIP string, timeout time.Duration) error {
	req, err := probeRequest(g, ctr, podIP)
	if err != nil {
		return err
	}
	client := &http.Client{
		Timeout: timeout,
		// The kubelet does not verify the certificate of a probed pod.
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.CopyN(io.Discard, resp.Body, 10<<10)
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 400 {
		return fmt.Errorf("GET %s: HTTP %d", req.URL, resp.StatusCode)
	}
	return nil
}

// probeRequest is the GET the kubelet sends: to the pod's address unless
// the probe names a host, with the probe's headers (a Host header sets the
// request's host).
func probeRequest(g *corev1.HTTPGetAction, ctr *corev1.Container, podIP string) (*http.Request, error) {
	port, err := resolvePort(g.Port, ctr)
	if err != nil {
		return nil, err
	}
	host := g.Host
	if host == "" {
		host = podIP
	}
	scheme := strings.ToLower(string(g.Scheme))
	if scheme == "" {
		scheme = "http"
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, strconv.Itoa(port))}
	pathAndQuery := g.Path
	if !strings.HasPrefix(pathAndQuery, "/") {
		pathAndQuery = "/" + pathAndQuery
	}
	target, err := url.Parse(u.String() + pathAndQuery)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodGet, target.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", probeUserAgent)
	req.Header.Set("Accept", "*/*")
	for _, h := range g.HTTPHeaders {
		if strings.EqualFold(h.Name, "Host") {
			req.Host = h.Value
			continue
		}
		req.Header.Set(h.Name, h.Value)
	}
	return req, nil
}

func probeTCP(a *corev1.TCPSocketAction, ctr *corev1.Container, podIP string, timeout time.Duration) error {
	port, err := resolvePort(a.Port, ctr)
	if err != nil {
		return err
	}
	host := a.Host
	if host == "" {
		host = podIP
	}
	c, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(port)), timeout)
	if err != nil {
		return err
	}
	return c.Close()
}

// resolvePort turns a number or a container port's name into a number.
func resolvePort(p intstr.IntOrString, ctr *corev1.Container) (int, error) {
	if p.Type == intstr.Int {
		return p.IntValue(), nil
	}
	for _, cp := range ctr.Ports {
		if cp.Name == p.StrVal {
			return int(cp.ContainerPort), nil
		}
	}
	if n, err := strconv.Atoi(p.StrVal); err == nil {
		return n, nil
	}
	return 0, fmt.Errorf("container %s has no port named %q", ctr.Name, p.StrVal)
}

// probeBudget is how long the kubelet tolerates a probe failing before it
// gives up: initialDelaySeconds + periodSeconds × failureThreshold, with
// the API's defaults (10 s, 3).
func probeBudget(p *corev1.Probe) time.Duration {
	period, failures := p.PeriodSeconds, p.FailureThreshold
	if period <= 0 {
		period = 10
	}
	if failures <= 0 {
		failures = 3
	}
	return time.Duration(p.InitialDelaySeconds)*time.Second + time.Duration(period*failures)*time.Second
}
