package datapath

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// s3Server is a versitygw on loopback with one root key pair.
type s3Server struct {
	endpoint, region string
	access, secret   string
	proc             *proc
	python           string
	home             string
}

// startS3 runs versitygw's posix backend in dir. The key pair goes in the
// environment, not on the command line.
func startS3(t *testing.T, tl tools, dir, region, access, secret string) *s3Server {
	t.Helper()
	root, meta, home := filepath.Join(dir, "root"), filepath.Join(dir, "meta"), filepath.Join(dir, "home")
	for _, d := range []string{root, meta, home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)
	env := append(baseEnv(home), "ROOT_ACCESS_KEY_ID="+access, "ROOT_SECRET_ACCESS_KEY="+secret)
	p := startProc(t, "versitygw", filepath.Join(dir, "versitygw.log"), env, []string{secret},
		tl.versitygw, "--port", "127.0.0.1:"+strconv.Itoa(port), "--region", region,
		"posix", "--sidecar", meta, root)
	s := &s3Server{endpoint: "http://127.0.0.1:" + strconv.Itoa(port), region: region,
		access: access, secret: secret, proc: p, python: tl.python, home: home}
	// Any HTTP answer means it serves; an unsigned GET / is refused (403).
	p.waitHTTP(t, s.endpoint+"/", func(int) bool { return true }, 30*time.Second)
	return s
}

// s3Script is a boto3 client (a second, independent S3 implementation) for
// making buckets and reading back what glance-api stored.
const s3Script = `
import hashlib, json, os, sys
import boto3
from botocore.config import Config
c = boto3.client("s3", endpoint_url=os.environ["S3_ENDPOINT"], region_name=os.environ["S3_REGION"],
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

type s3Object struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

func (s *s3Server) boto(t *testing.T, args ...string) []byte {
	t.Helper()
	env := append(baseEnv(s.home), "S3_ENDPOINT="+s.endpoint, "S3_REGION="+s.region,
		"S3_ACCESS_KEY="+s.access, "S3_SECRET_KEY="+s.secret)
	out, err := runOnce(t, time.Minute, env, s.home, append([]string{s.python, "-c", s3Script}, args...)...)
	if err != nil {
		t.Fatalf("boto3 %v: %v\n%s", args, err, out)
	}
	return []byte(out)
}

func (s *s3Server) makeBuckets(t *testing.T, buckets ...string) {
	t.Helper()
	s.boto(t, append([]string{"mb"}, buckets...)...)
}

// objects lists every bucket's objects with their size and sha256.
func (s *s3Server) objects(t *testing.T, buckets ...string) map[string]map[string]s3Object {
	t.Helper()
	out := s.boto(t, append([]string{"ls"}, buckets...)...)
	var m map[string]map[string]s3Object
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("boto3 ls: %v: %s", err, out)
	}
	return m
}

// unsignedStatus is what the server answers an anonymous request: proof it
// checks signatures at all.
func (s *s3Server) unsignedStatus(t *testing.T, bucket string) int {
	t.Helper()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(fmt.Sprintf("%s/%s", s.endpoint, bucket))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
