package services

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/c5c3/glance-hooks/test/proc"
)

// S3 is a versitygw (posix backend, SigV4 checked) on a loopback port with
// one root key pair.
type S3 struct {
	// Endpoint is http://127.0.0.1:<port>, or https:// with S3Options.TLS.
	Endpoint string
	// CAFile holds S3Options.TLS.CAPEM, for clients that verify the server.
	CAFile string
	// Region is the SigV4 region the server accepts signatures for.
	Region               string
	AccessKey, SecretKey string

	versitygw string
	python    string
	home      string
	proc      *proc.Process
	// run starts the server; starts counts how often it was.
	run    proc.Options
	starts int
	redact *proc.Redactor
	// client verifies the server with its CA when it serves TLS.
	client *http.Client
}

// S3Options configure StartS3. Region defaults to us-east-1; the key pair
// to a random one.
type S3Options struct {
	Region               string
	AccessKey, SecretKey string
	// Buckets are made once the server answers.
	Buckets []string
	// Python is the interpreter with boto3 that makes buckets and reads them
	// back (default Python).
	Python string
	// TLS, when set, makes the server serve https:// only.
	TLS *S3TLS
}

// S3TLS is what an https:// S3 server serves with: its certificate (chain)
// and key, and the CA certificates a client verifies it with (the test's
// own boto3 client trusts those).
type S3TLS struct {
	CertPEM, KeyPEM, CAPEM []byte
}

// FindVersitygw looks where hack/install-versitygw.sh puts it (the user
// cache dir, or VERSITYGW_BIN_DIR), then on PATH. It returns "" when there
// is none; a VERSITYGW_BIN that is not a file is an error, not an absence.
func FindVersitygw() (string, error) {
	if p := os.Getenv("VERSITYGW_BIN"); p != "" {
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return "", fmt.Errorf("VERSITYGW_BIN=%s is not a file", p)
		}
		return p, nil
	}
	var dirs []string
	if d := os.Getenv("VERSITYGW_BIN_DIR"); d != "" {
		dirs = append(dirs, d)
	}
	if d, err := os.UserCacheDir(); err == nil { // $XDG_CACHE_HOME or ~/.cache, as the script
		dirs = append(dirs, filepath.Join(d, "glance-hooks", "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, "versitygw")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	return "", nil
}

// StartS3 runs versitygw's posix backend in a directory of the test and
// waits until it answers. The key pair goes in its environment, not on its
// command line.
func StartS3(t testing.TB, o S3Options) *S3 {
	t.Helper()
	vgw, err := FindVersitygw()
	if err != nil {
		t.Fatal(err)
	}
	if vgw == "" {
		proc.Missing(t, "versitygw", "hack/install-versitygw.sh builds it (or set VERSITYGW_BIN)")
	}
	if o.Region == "" {
		o.Region = "us-east-1"
	}
	if o.AccessKey == "" {
		o.AccessKey = "GK" + strings.ToLower(RandomSecret()[:16])
	}
	if o.SecretKey == "" {
		o.SecretKey = RandomSecret()
	}
	if o.Python == "" {
		o.Python = Python
	}
	dir := t.TempDir()
	root, meta, home := filepath.Join(dir, "root"), filepath.Join(dir, "meta"), filepath.Join(dir, "home")
	mkdirs(t, root, meta, home)
	port := proc.FreePort(t)
	s := &S3{Endpoint: "http://127.0.0.1:" + strconv.Itoa(port), Region: o.Region,
		AccessKey: o.AccessKey, SecretKey: o.SecretKey, versitygw: vgw, python: o.Python, home: home,
		redact: &proc.Redactor{}, client: &http.Client{Timeout: 10 * time.Second}}
	s.redact.Add(o.SecretKey)
	argv := []string{vgw, "--port", proc.HostPort("127.0.0.1", port), "--region", o.Region}
	if o.TLS != nil {
		certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
		s.CAFile = filepath.Join(dir, "ca.crt")
		writeFile(t, certFile, o.TLS.CertPEM, 0o600)
		writeFile(t, keyFile, o.TLS.KeyPEM, 0o600)
		writeFile(t, s.CAFile, o.TLS.CAPEM, 0o644)
		argv = append(argv, "--cert", certFile, "--key", keyFile)
		s.Endpoint = "https://127.0.0.1:" + strconv.Itoa(port)
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(o.TLS.CAPEM) {
			t.Fatal("S3Options.TLS.CAPEM holds no certificate")
		}
		s.client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	}
	s.run = proc.Options{
		Name: "versitygw",
		Argv: append(argv, "posix", "--sidecar", meta, root),
		Env:  proc.CleanEnv(home, "ROOT_ACCESS_KEY_ID="+o.AccessKey, "ROOT_SECRET_ACCESS_KEY="+o.SecretKey),
		Log:  filepath.Join(dir, "versitygw.log"), Redactor: s.redact,
	}
	s.Start(t)
	if len(o.Buckets) > 0 {
		s.MakeBuckets(t, o.Buckets...)
	}
	return s
}

// Start runs the server (again, after Stop) on its port, over its
// buckets and objects, and waits until it answers; each run logs to a
// file of its own.
func (s *S3) Start(t testing.TB) {
	t.Helper()
	o := s.run
	if s.starts++; s.starts > 1 {
		o.Log = strings.TrimSuffix(o.Log, ".log") + "-" + strconv.Itoa(s.starts) + ".log"
	}
	s.proc = proc.Start(t, o)
	// Any HTTP answer means it serves; an unsigned GET / is refused (403).
	if _, err := s.proc.WaitFor(30*time.Second, "HTTP answer", s.answers); err != nil {
		t.Fatal(err)
	}
}

// Stop ends the server, as an outage of the store would: its port refuses
// connections until Start.
func (s *S3) Stop(t testing.TB) {
	t.Helper()
	if err := s.proc.Stop(); err != nil {
		t.Fatal(err)
	}
}

// answers is nil once the server answers GET / at all, over TLS verified
// with its CA when it serves TLS.
func (s *S3) answers() error {
	resp, err := s.client.Get(s.Endpoint + "/")
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

func writeFile(t testing.TB, path string, b []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, b, mode); err != nil {
		t.Fatal(err)
	}
}

// Redactor masks the secret key.
func (s *S3) Redactor() *proc.Redactor { return s.redact }

// Log is versitygw's log so far.
func (s *S3) Log() string { return s.proc.Log() }

// s3Script is a boto3 client (a second, independent S3 implementation) for
// making buckets and reading back what was stored.
const s3Script = `
import hashlib, json, os, sys
import boto3
from botocore.config import Config
c = boto3.client("s3", endpoint_url=os.environ["S3_ENDPOINT"], region_name=os.environ["S3_REGION"],
    verify=os.environ.get("S3_CA_FILE") or None,
    aws_access_key_id=os.environ["S3_ACCESS_KEY"], aws_secret_access_key=os.environ["S3_SECRET_KEY"],
    config=Config(signature_version="s3v4", s3={"addressing_style": "path"}, retries={"max_attempts": 2}))
cmd, buckets = sys.argv[1], sys.argv[2:]
out = {}
for b in buckets:
    if cmd == "mb":
        c.create_bucket(Bucket=b)
        continue
    objs = {}
    for page in c.get_paginator("list_objects_v2").paginate(Bucket=b):
        for o in page.get("Contents", []):
            body = c.get_object(Bucket=b, Key=o["Key"])["Body"].read()
            objs[o["Key"]] = {"size": o["Size"], "sha256": hashlib.sha256(body).hexdigest()}
    out[b] = objs
json.dump(out, sys.stdout)
`

// S3Object is what a bucket holds under a key.
type S3Object struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// ObjectOf is the S3Object bytes b make.
func ObjectOf(b []byte) S3Object {
	sum := sha256.Sum256(b)
	return S3Object{Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}
}

func (s *S3) boto(t testing.TB, args ...string) []byte {
	t.Helper()
	out, err := proc.Run(time.Minute, proc.Options{
		Argv: append([]string{s.python, "-c", s3Script}, args...),
		Dir:  s.home,
		Env: proc.CleanEnv(s.home, "S3_ENDPOINT="+s.Endpoint, "S3_REGION="+s.Region,
			"S3_ACCESS_KEY="+s.AccessKey, "S3_SECRET_KEY="+s.SecretKey, "S3_CA_FILE="+s.CAFile),
		Redactor: s.redact,
	})
	if err != nil {
		t.Fatalf("boto3 %v: %v\n%s", args, err, out)
	}
	return []byte(out)
}

// MakeBuckets creates buckets with the root key pair.
func (s *S3) MakeBuckets(t testing.TB, buckets ...string) {
	t.Helper()
	s.boto(t, append([]string{"mb"}, buckets...)...)
}

// Objects lists every bucket's objects with their size and sha256.
func (s *S3) Objects(t testing.TB, buckets ...string) map[string]map[string]S3Object {
	t.Helper()
	out := s.boto(t, append([]string{"ls"}, buckets...)...)
	var m map[string]map[string]S3Object
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("boto3 ls: %v: %s", err, out)
	}
	return m
}

// UnsignedStatus is what the server answers an anonymous request: proof it
// checks signatures at all.
func (s *S3) UnsignedStatus(t testing.TB, bucket string) int {
	t.Helper()
	resp, err := s.client.Get(s.Endpoint + "/" + bucket)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Version is versitygw's version line, e.g. "versitygw v1.8.0".
func (s *S3) Version(t testing.TB) string {
	t.Helper()
	out, _ := proc.Run(time.Minute, proc.Options{Argv: []string{s.versitygw, "--version"}, Dir: s.home, Env: proc.CleanEnv(s.home)})
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "Version" {
			return "versitygw " + strings.TrimSpace(v)
		}
	}
	return "versitygw (version unknown)"
}
