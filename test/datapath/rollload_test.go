package datapath

import (
	"bytes"
	"context"
	"crypto/md5" //nolint:gosec // glance's image checksum is MD5; it is compared, not trusted
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// outcome is how a request of the load ended.
type outcome string

const (
	// answered: the request got its answer (an upload 204, a download all
	// its bytes).
	answered outcome = "answered"
	// refused: it failed before its body started: no connection, an error
	// status before any byte of the image was taken or sent.
	refused outcome = "refused"
	// broken: it failed after its body started (an upload's bytes were
	// being sent, a download's were being received): the lost request a
	// rolling update must never cause.
	broken outcome = "broken after the body started"
)

// classify says how a request ended from what the client saw: the status
// it was answered with (0 for none), the error of the exchange, and
// whether the body had started to flow.
func classify(status, want int, err error, bodyStarted bool) outcome {
	switch {
	case err != nil && bodyStarted:
		return broken
	case err != nil:
		return refused
	case status != want:
		return refused
	}
	return answered
}

// uploadRecord is one image the load created and uploaded, with the
// hashes of the bytes it sent.
type uploadRecord struct {
	id, name string
	// store is the X-Image-Meta-Store header sent ("" for none: the
	// default of the pod that took it).
	store               string
	size                int
	md5, sha256, sha512 string
	outcome             outcome
	detail              string
	// began and from are the upload's exchange's (see exchange), kept
	// only when it broke.
	began time.Time
	from  string
}

// loadCounts are the requests the load sent and how they ended.
type loadCounts struct {
	creates, uploads, downloads int
	byOutcome                   map[outcome]int
	mismatches                  int
}

func (c loadCounts) sent() int { return c.creates + c.uploads + c.downloads }

// rollLoad is a steady load of uploads and downloads through one URL,
// several at once, recording how each request ended. Its client keeps
// connections alive, as OpenStack's clients do.
type rollLoad struct {
	url, token string
	client     *http.Client

	mu       sync.Mutex
	uploads  []*uploadRecord
	stored   []*uploadRecord
	counts   loadCounts
	problems []string
	seq      atomic.Uint64
}

func newRollLoad(url, token string, workers int) *rollLoad {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = workers
	return &rollLoad{url: url, token: token, client: &http.Client{Transport: tr, Timeout: 2 * time.Minute},
		counts: loadCounts{byOutcome: map[outcome]int{}}}
}

// start runs workers, each uploading an image of 1 to 3 MiB and then
// downloading one stored before, again and again. The returned func lets
// each finish the request it is in and waits for them.
func (l *rollLoad) start(workers int) func() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 39))
			for k := 0; ctx.Err() == nil; k++ {
				l.uploadOne(rng, []string{"", "default", "secondary"}[k%3])
				l.downloadOne(rng)
			}
		}()
	}
	return func() { cancel(); wg.Wait() }
}

// storedCount is how many uploads were answered so far.
func (l *rollLoad) storedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.stored)
}

// snapshot is what the load did so far.
func (l *rollLoad) snapshot() (loadCounts, []*uploadRecord, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.counts
	c.byOutcome = map[outcome]int{}
	for k, v := range l.counts.byOutcome {
		c.byOutcome[k] = v
	}
	return c, append([]*uploadRecord(nil), l.uploads...), append([]string(nil), l.problems...)
}

func (l *rollLoad) note(kind string, o outcome, detail string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts.byOutcome[o]++
	if o != answered {
		l.problems = append(l.problems, fmt.Sprintf("%s %s: %s", kind, o, detail))
	}
}

// uploadOne creates an image and uploads 1 to 3 MiB into store.
func (l *rollLoad) uploadOne(rng *rand.Rand, store string) {
	n := l.seq.Add(1)
	data := randomBytes(1000+n, 1<<20+rng.IntN(2<<20))
	rec := &uploadRecord{name: fmt.Sprintf("roll-%d", n), store: store, size: len(data),
		md5: hexSum(md5.New(), data), sha256: hexSum(sha256.New(), data), sha512: hexSum(sha512.New(), data)}
	id, ok := l.create(rec.name)
	if !ok {
		return
	}
	rec.id = id
	h := map[string]string{"Content-Type": "application/octet-stream"}
	if store != "" {
		h["X-Image-Meta-Store"] = store
	}
	x := l.send(http.MethodPut, "/v2/images/"+id+"/file", data, h)
	rec.outcome = x.outcome(http.StatusNoContent)
	rec.detail = x.String()
	if rec.outcome == broken {
		rec.began, rec.from = x.began, x.from
	}
	l.mu.Lock()
	l.counts.uploads++
	l.uploads = append(l.uploads, rec)
	if rec.outcome == answered {
		l.stored = append(l.stored, rec)
	}
	l.mu.Unlock()
	l.note("upload of "+id, rec.outcome, rec.detail)
}

// create makes an image record and returns its id.
func (l *rollLoad) create(name string) (string, bool) {
	body, _ := json.Marshal(map[string]string{"name": name, "disk_format": "raw", "container_format": "bare"})
	x := l.send(http.MethodPost, "/v2/images", body, map[string]string{"Content-Type": "application/json"})
	o := x.outcome(http.StatusCreated)
	var img struct {
		ID string `json:"id"`
	}
	if o == answered && json.Unmarshal(x.answer, &img) != nil {
		o = refused
	}
	l.mu.Lock()
	l.counts.creates++
	l.mu.Unlock()
	l.note("create of "+name, o, x.String())
	return img.ID, o == answered
}

// downloadOne downloads an image stored before and compares its bytes.
func (l *rollLoad) downloadOne(rng *rand.Rand) {
	l.mu.Lock()
	if len(l.stored) == 0 {
		l.mu.Unlock()
		return
	}
	rec := l.stored[rng.IntN(len(l.stored))]
	l.counts.downloads++
	l.mu.Unlock()
	req, err := http.NewRequest(http.MethodGet, l.url+"/v2/images/"+rec.id+"/file", nil)
	if err != nil {
		panic(err)
	}
	req.Header.Set("X-Auth-Token", l.token)
	resp, err := l.client.Do(req)
	if err != nil {
		l.note("download of "+rec.id, refused, err.Error())
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		l.note("download of "+rec.id, refused, exchange{status: resp.StatusCode, answer: b}.String())
		return
	}
	sum := sha256.New()
	n, err := io.Copy(sum, resp.Body)
	if err != nil {
		l.note("download of "+rec.id, broken, fmt.Sprintf("after %d of %d bytes: %v", n, rec.size, err))
		return
	}
	if got := hex.EncodeToString(sum.Sum(nil)); got != rec.sha256 {
		l.mu.Lock()
		l.counts.mismatches++
		l.problems = append(l.problems, fmt.Sprintf("download of %s: %d bytes, sha256 %s, want %d bytes, %s", rec.id, n, got, rec.size, rec.sha256))
		l.mu.Unlock()
	}
	l.note("download of "+rec.id, answered, "")
}

// exchange is what the client saw of one request: the status (0 for
// none), the answer's body, the error, and how many bytes of the request's
// body its transport had taken when the exchange ended (0: the body never
// started).
type exchange struct {
	status  int
	answer  []byte
	err     error
	started int64
	// began and from are when the request was sent and the client's end
	// of its connection (host:port), for telling which pod a broken one
	// went to.
	began time.Time
	from  string
}

func (x exchange) outcome(want int) outcome { return classify(x.status, want, x.err, x.started > 0) }

func (x exchange) String() string {
	if x.err != nil {
		return fmt.Sprintf("%v (%d bytes of the body sent)", x.err, x.started)
	}
	return fmt.Sprintf("HTTP %d: %s", x.status, bytes.TrimSpace(x.answer[:min(len(x.answer), 200)]))
}

// send does one request whose body is counted as the client's transport
// reads it. The body is not replayable, so the client never sends a
// request twice.
func (l *rollLoad) send(method, path string, body []byte, header map[string]string) exchange {
	cr := &countingReader{r: bytes.NewReader(body)}
	var conn atomic.Value
	trace := &httptrace.ClientTrace{GotConn: func(c httptrace.GotConnInfo) { conn.Store(c.Conn.LocalAddr().String()) }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), method, l.url+path, io.NopCloser(cr))
	if err != nil {
		panic(err)
	}
	req.ContentLength = int64(len(body))
	req.Header.Set("X-Auth-Token", l.token)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	began := time.Now()
	resp, err := l.client.Do(req)
	if err != nil {
		from, _ := conn.Load().(string)
		return exchange{err: err, started: cr.n.Load(), began: began, from: from}
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	return exchange{status: resp.StatusCode, answer: answer, err: err, started: cr.n.Load()}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func hexSum(h hash.Hash, b []byte) string {
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

func TestClassifyTellsARefusalFromALostRequest(t *testing.T) {
	cases := map[string]struct {
		reason      string
		status      int
		err         error
		bodyStarted bool
		want        outcome
	}{
		"answered":             {"the status wanted, no error", http.StatusNoContent, nil, true, answered},
		"error status":         {"glance said no before it stored anything: the client may try again", http.StatusServiceUnavailable, nil, true, refused},
		"no connection":        {"nothing of the body went out", 0, io.ErrUnexpectedEOF, false, refused},
		"cut after body began": {"the connection broke while the body flowed", 0, io.ErrUnexpectedEOF, true, broken},
		"answer body cut":      {"the answer came but its body broke", http.StatusCreated, io.ErrUnexpectedEOF, true, broken},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := classify(c.status, http.StatusNoContent, c.err, c.bodyStarted); got != c.want {
				t.Errorf("%s: got %q, want %q", c.reason, got, c.want)
			}
		})
	}
}
