package chart

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// kubeClient is a small REST client for the install tests: server-side apply
// (optionally dry-run), get, and discovery. It reads the same kubeconfig helm
// is given, so both talk to the same API server as the same user.
type kubeClient struct {
	host  string
	token string
	http  *http.Client

	mu        sync.Mutex
	resources map[string]apiResource // "<apiVersion> <Kind>"
}

type apiResource struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"`
	Namespaced bool   `json:"namespaced"`
}

// kubeconfig is the part of a kubeconfig file this client understands: the
// current context's cluster (server, CA) and user (token or client cert).
type kubeconfig struct {
	CurrentContext string `json:"current-context"`
	Clusters       []struct {
		Name    string `json:"name"`
		Cluster struct {
			Server                   string `json:"server"`
			CertificateAuthority     string `json:"certificate-authority"`
			CertificateAuthorityData string `json:"certificate-authority-data"`
			InsecureSkipTLSVerify    bool   `json:"insecure-skip-tls-verify"`
		} `json:"cluster"`
	} `json:"clusters"`
	Users []struct {
		Name string `json:"name"`
		User struct {
			Token                 string `json:"token"`
			TokenFile             string `json:"tokenFile"`
			ClientCertificate     string `json:"client-certificate"`
			ClientCertificateData string `json:"client-certificate-data"`
			ClientKey             string `json:"client-key"`
			ClientKeyData         string `json:"client-key-data"`
		} `json:"user"`
	} `json:"users"`
	Contexts []struct {
		Name    string `json:"name"`
		Context struct {
			Cluster string `json:"cluster"`
			User    string `json:"user"`
		} `json:"context"`
	} `json:"contexts"`
}

func newKubeClient(t testing.TB, kubeconfigPath string) *kubeClient {
	t.Helper()
	raw, err := os.ReadFile(kubeconfigPath)
	require.NoError(t, err)
	var kc kubeconfig
	require.NoError(t, utilyaml.Unmarshal(raw, &kc))
	dir := filepath.Dir(kubeconfigPath)
	resolve := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	readData := func(data, file string) []byte {
		if data != "" {
			b, err := base64.StdEncoding.DecodeString(data)
			require.NoError(t, err)
			return b
		}
		if file != "" {
			b, err := os.ReadFile(resolve(file))
			require.NoError(t, err)
			return b
		}
		return nil
	}
	ctxName := kc.CurrentContext
	var clusterName, userName string
	for _, c := range kc.Contexts {
		if c.Name == ctxName || (ctxName == "" && len(kc.Contexts) == 1) {
			clusterName, userName = c.Context.Cluster, c.Context.User
		}
	}
	require.NotEmpty(t, clusterName, "kubeconfig %s: no current context", kubeconfigPath)

	c := &kubeClient{}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	for _, cl := range kc.Clusters {
		if cl.Name != clusterName {
			continue
		}
		c.host = strings.TrimSuffix(cl.Cluster.Server, "/")
		if ca := readData(cl.Cluster.CertificateAuthorityData, cl.Cluster.CertificateAuthority); ca != nil {
			pool := x509.NewCertPool()
			require.True(t, pool.AppendCertsFromPEM(ca), "kubeconfig CA is PEM")
			tlsConfig.RootCAs = pool
		}
		tlsConfig.InsecureSkipVerify = cl.Cluster.InsecureSkipTLSVerify //nolint:gosec // as the kubeconfig says
	}
	for _, u := range kc.Users {
		if u.Name != userName {
			continue
		}
		c.token = u.User.Token
		if u.User.TokenFile != "" {
			b, err := os.ReadFile(resolve(u.User.TokenFile))
			require.NoError(t, err)
			c.token = strings.TrimSpace(string(b))
		}
		if cert := readData(u.User.ClientCertificateData, u.User.ClientCertificate); cert != nil {
			pair, err := tls.X509KeyPair(cert, readData(u.User.ClientKeyData, u.User.ClientKey))
			require.NoError(t, err)
			tlsConfig.Certificates = []tls.Certificate{pair}
		}
	}
	require.NotEmpty(t, c.host, "kubeconfig %s: no server", kubeconfigPath)
	c.http = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	return c
}

// apiError is a non-2xx answer with the API server's Status message.
type apiError struct {
	Code    int
	Message string
	Reason  string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.Code, e.Reason, e.Message) }

func (c *kubeClient) do(method, path, contentType string, body []byte) ([]byte, error) {
	req, err := http.NewRequest(method, c.host+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		var st struct {
			Message string `json:"message"`
			Reason  string `json:"reason"`
		}
		_ = json.Unmarshal(out, &st)
		if st.Message == "" {
			st.Message = string(out)
		}
		return nil, &apiError{Code: resp.StatusCode, Message: st.Message, Reason: st.Reason}
	}
	return out, nil
}

// resource maps an object's apiVersion and kind to its REST resource by
// discovery (cached per group version).
func (c *kubeClient) resource(apiVersion, kind string) (apiResource, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := apiVersion + " " + kind
	if r, ok := c.resources[key]; ok {
		return r, nil
	}
	path := "/apis/" + apiVersion
	if !strings.Contains(apiVersion, "/") {
		path = "/api/" + apiVersion
	}
	raw, err := c.do(http.MethodGet, path, "", nil)
	if err != nil {
		return apiResource{}, fmt.Errorf("discovery of %s: %w", apiVersion, err)
	}
	var list struct {
		Resources []apiResource `json:"resources"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return apiResource{}, err
	}
	if c.resources == nil {
		c.resources = map[string]apiResource{}
	}
	for _, r := range list.Resources {
		if !strings.Contains(r.Name, "/") {
			c.resources[apiVersion+" "+r.Kind] = r
		}
	}
	r, ok := c.resources[key]
	if !ok {
		return apiResource{}, fmt.Errorf("the API server does not serve %s %s", apiVersion, kind)
	}
	return r, nil
}

// objectPath is the REST path of a named object.
func (c *kubeClient) objectPath(apiVersion, kind, namespace, name string) (string, error) {
	r, err := c.resource(apiVersion, kind)
	if err != nil {
		return "", err
	}
	p := "/apis/" + apiVersion
	if !strings.Contains(apiVersion, "/") {
		p = "/api/" + apiVersion
	}
	if r.Namespaced {
		if namespace == "" {
			return "", fmt.Errorf("%s %s is namespaced but has no namespace", kind, name)
		}
		p += "/namespaces/" + url.PathEscape(namespace)
	}
	return p + "/" + r.Name + "/" + url.PathEscape(name), nil
}

// apply server-side-applies an object with strict field validation: a field
// the schema does not know is an error, not silently dropped. dryRun asks the
// API server to run every admission and validation step without storing.
func (c *kubeClient) apply(o obj, dryRun bool) (obj, error) {
	path, err := c.objectPath(o.apiVersion(), o.kind(), o.namespace(), o.name())
	if err != nil {
		return nil, err
	}
	q := url.Values{"fieldManager": {"glance-hooks-chart-test"}, "force": {"true"}, "fieldValidation": {"Strict"}}
	if dryRun {
		q.Set("dryRun", "All")
	}
	body, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	out, err := c.do(http.MethodPatch, path+"?"+q.Encode(), "application/apply-patch+yaml", body)
	if err != nil {
		return nil, fmt.Errorf("apply %s: %w", o.id(), err)
	}
	var got obj
	return got, json.Unmarshal(out, &got)
}

func (c *kubeClient) get(apiVersion, kind, namespace, name string) (obj, error) {
	path, err := c.objectPath(apiVersion, kind, namespace, name)
	if err != nil {
		return nil, err
	}
	out, err := c.do(http.MethodGet, path, "", nil)
	if err != nil {
		return nil, err
	}
	var got obj
	return got, json.Unmarshal(out, &got)
}

func (c *kubeClient) delete(apiVersion, kind, namespace, name string) error {
	path, err := c.objectPath(apiVersion, kind, namespace, name)
	if err != nil {
		return err
	}
	_, err = c.do(http.MethodDelete, path, "", nil)
	return err
}

// ensureNamespace creates a namespace (for real) if it is missing.
func (c *kubeClient) ensureNamespace(t testing.TB, name string) {
	t.Helper()
	_, err := c.apply(obj{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}, false)
	require.NoError(t, err)
}

// installCRDs creates CRDs for real and waits until they are served.
func (c *kubeClient) installCRDs(t testing.TB, crds []obj) {
	t.Helper()
	for _, crd := range crds {
		require.Equal(t, "CustomResourceDefinition", crd.kind())
		_, err := c.apply(crd, false)
		require.NoError(t, err)
	}
	for _, crd := range crds {
		require.Eventually(t, func() bool {
			got, err := c.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", crd.name())
			if err != nil {
				return false
			}
			conds, _ := get(got, "status", "conditions").([]any)
			for _, cond := range conds {
				m, _ := cond.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					return true
				}
			}
			return false
		}, 30*time.Second, 100*time.Millisecond, "CRD %s is not established", crd.name())
	}
	// New resources show up in discovery only now: forget the cache.
	c.mu.Lock()
	c.resources = nil
	c.mu.Unlock()
}
