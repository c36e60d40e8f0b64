package glancestack

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/c5c3/glance-hooks/test/proc"
)

// Client calls one glance-api with a Keystone token, as the guide's probe
// pod and an OpenStack client do.
type Client struct {
	// URL is the API's base, http://<pod IP>:9292.
	URL string
	// Token goes in X-Auth-Token; "" sends none.
	Token string
	// Logs, when set, gives glance-api's log for failure messages.
	Logs func() string
}

var httpClient = &http.Client{Timeout: 2 * time.Minute}

// Call does one request and returns the status and body.
func (c *Client) Call(t testing.TB, method, path string, body []byte, header map[string]string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, c.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if c.Token != "" {
		req.Header.Set("X-Auth-Token", c.Token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v%s", method, path, err, c.tail())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (c *Client) tail() string {
	if c.Logs == nil {
		return ""
	}
	return "\nglance-api's log ends:\n" + proc.LastLines(c.Logs(), 40)
}

// GetJSON GETs a path that must answer 200 with JSON.
func (c *Client) GetJSON(t testing.TB, path string, into any) {
	t.Helper()
	code, b := c.Call(t, http.MethodGet, path, nil, nil)
	if code != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d: %s%s", path, code, b, c.tail())
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, b)
	}
}

// storeInfo is one entry of GET /v2/info/stores. Glance 25.1 sends
// "default": "true" (a string); later releases may send a boolean.
type storeInfo struct {
	ID      string `json:"id"`
	Default any    `json:"default,omitempty"`
}

// Stores is GET /v2/info/stores: store id -> flagged default.
func (c *Client) Stores(t testing.TB) map[string]bool {
	t.Helper()
	var body struct {
		Stores []storeInfo `json:"stores"`
	}
	c.GetJSON(t, "/v2/info/stores", &body)
	out := map[string]bool{}
	for _, s := range body.Stores {
		out[s.ID] = s.Default == true || s.Default == "true"
	}
	return out
}

// Image is what GET /v2/images/{id} says, as far as tests read it.
type Image struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Stores string `json:"stores"`
	Size   *int64 `json:"size"`
	Owner  string `json:"owner"`
	// Checksum is the MD5 of the image's data, OSHashValue its
	// OSHashAlgo (sha512 by default) hash, both hex, as glance computed
	// them while it stored the data.
	Checksum    string `json:"checksum"`
	OSHashAlgo  string `json:"os_hash_algo"`
	OSHashValue string `json:"os_hash_value"`
	// FailedImport lists the stores an import failed to write to.
	FailedImport string `json:"os_glance_failed_import"`
}

// CreateImage makes an empty raw/bare image record and returns its id.
func (c *Client) CreateImage(t testing.TB, name string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"name": name, "disk_format": "raw", "container_format": "bare"})
	code, b := c.Call(t, http.MethodPost, "/v2/images", body, map[string]string{"Content-Type": "application/json"})
	if code != http.StatusCreated {
		t.Fatalf("POST /v2/images: HTTP %d: %s%s", code, b, c.tail())
	}
	var img Image
	if err := json.Unmarshal(b, &img); err != nil || img.ID == "" {
		t.Fatalf("POST /v2/images: %v: %s", err, b)
	}
	return img.ID
}

// Upload PUTs image data, into store when it is not "" (header
// X-Image-Meta-Store, as the guide says).
func (c *Client) Upload(t testing.TB, id string, data []byte, store string) (int, []byte) {
	t.Helper()
	h := map[string]string{"Content-Type": "application/octet-stream"}
	if store != "" {
		h["X-Image-Meta-Store"] = store
	}
	return c.Call(t, http.MethodPut, "/v2/images/"+id+"/file", data, h)
}

// Image reads an image record.
func (c *Client) Image(t testing.TB, id string) Image {
	t.Helper()
	var img Image
	c.GetJSON(t, "/v2/images/"+id, &img)
	return img
}

// Download GETs an image's data, which must answer 200.
func (c *Client) Download(t testing.TB, id string) []byte {
	t.Helper()
	code, b := c.Call(t, http.MethodGet, "/v2/images/"+id+"/file", nil, nil)
	if code != http.StatusOK {
		t.Fatalf("GET /v2/images/%s/file: HTTP %d%s", id, code, c.tail())
	}
	return b
}

// UploadActive creates an image, uploads data (into store when not "") and
// checks that it ends active, in store want, with its size; it returns
// the image's id.
func (c *Client) UploadActive(t testing.TB, name string, data []byte, store, want string) string {
	t.Helper()
	id := c.CreateImage(t, name)
	code, body := c.Upload(t, id, data, store)
	if code != http.StatusNoContent {
		t.Fatalf("PUT /v2/images/%s/file (store %q): HTTP %d: %s%s", id, store, code, body, c.tail())
	}
	img := c.Image(t, id)
	if img.Status != "active" || img.Stores != want || img.Size == nil || *img.Size != int64(len(data)) {
		t.Fatalf("image %s after upload: status %q, stores %q, size %v; want active, %q, %d", name, img.Status, img.Stores, img.Size, want, len(data))
	}
	return id
}

// Stage PUTs image data into the staging area of the glance-api called
// (PUT /v2/images/{id}/stage), the first half of a glance-direct import.
func (c *Client) Stage(t testing.TB, id string, data []byte) {
	t.Helper()
	code, body := c.Call(t, http.MethodPut, "/v2/images/"+id+"/stage", data, map[string]string{"Content-Type": "application/octet-stream"})
	if code != http.StatusNoContent {
		t.Fatalf("PUT /v2/images/%s/stage: HTTP %d: %s%s", id, code, body, c.tail())
	}
}

// Import asks for a glance-direct import of a staged image into stores
// (POST /v2/images/{id}/import) and returns the answer.
func (c *Client) Import(t testing.TB, id string, stores ...string) (int, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"method": map[string]string{"name": "glance-direct"}, "stores": stores})
	return c.Call(t, http.MethodPost, "/v2/images/"+id+"/import", body, map[string]string{"Content-Type": "application/json"})
}

// WaitImage reads an image until its status is want, failing when it
// does not get there within timeout or its import fails.
func (c *Client) WaitImage(t testing.TB, id, want string, timeout time.Duration) Image {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		img := c.Image(t, id)
		switch {
		case img.Status == want:
			return img
		case img.FailedImport != "":
			t.Fatalf("image %s: import failed into %q (status %q)%s", id, img.FailedImport, img.Status, c.tail())
		case time.Now().After(deadline):
			t.Fatalf("image %s: status %q after %s, want %q%s", id, img.Status, timeout, want, c.tail())
		}
		time.Sleep(200 * time.Millisecond)
	}
}
