package server

import (
	"encoding/binary"
	"encoding/hex"
	"net/http"
	"strings"

	"lukechampine.com/blake3"
)

// Metacontroller (v4.x, a hook's webhook.etag) keeps each hook's last
// answer per parent (its kind, namespace and name) with the answer's ETag,
// sends that ETag back as If-None-Match on the next call for the parent,
// and takes a 304 (or a 412) to such a call as "the answer you have is
// still the answer". A hook's answer here is a pure function of the request
// URI, the body and the build, so its ETag is a digest of the three: a call
// that carries the ETag of the same request to the same build is answered
// 304 as soon as its body is read and hashed, before it is decoded. A
// resync of an unchanged parent then costs a body read and a hash.

const headerETag = "ETag"

// answerTag is the ETag of the answer to a request: a strong entity tag
// holding the BLAKE3 digest (256 bits) of the build, the request URI and the
// body, each length-prefixed so no two requests can run together into one
// input. A cryptographic digest, because whoever may edit an object a hook
// reads must not be able to make a changed request look unchanged; BLAKE3,
// because it is the whole cost of a 304 and takes about half the time
// SHA-256 does on a large body (docs/performance.md).
//
// lukechampine.com/blake3 stays at v1.3: from v1.4 its Write starts a
// goroutine for every 16 KiB of a large input, so a 304 of a 5 MB body
// took both cores and 60-80% more CPU (about 300 goroutines and 700
// allocations), and its time depended on whether the other core was free.
// v1.3 hashes on the caller's goroutine with the same AVX-512 code
// (TestAnswerTagStaysOnItsGoroutine).
func answerTag(build, uri string, body []byte) string {
	t := newTagHash(build, uri, int64(len(body)))
	t.write(body)
	return t.tag()
}

// tagHash computes answerTag while the body arrives: the build, the URI
// and the body's length first, then each piece of the body as it is read
// (body.rest). The hash of a piece then runs while the client still sends
// the next, so a large body costs its transfer and the hash of its last
// piece in time instead of the two one after the other, and each piece is
// hashed while it is still in the cache it was read into.
//
// The hasher is a value (16 KiB of buffer) kept in its caller's frame: a
// hasher behind a pointer that outlives the call escapes to the heap, 18 KB
// for every request.
type tagHash struct{ h blake3.Hasher }

// newTagHash starts the tag of a request whose body is size bytes.
func newTagHash(build, uri string, size int64) tagHash {
	t := tagHash{h: *blake3.New(32, nil)}
	t.part([]byte(build))
	t.part([]byte(uri))
	t.length(size)
	return t
}

// part hashes a whole part, length first.
func (t *tagHash) part(p []byte) {
	t.length(int64(len(p)))
	t.write(p)
}

func (t *tagHash) length(n int64) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	t.h.Write(b[:])
}

// write hashes the next piece of the body; a nil tagHash (a route that
// tags nothing) hashes nothing.
func (t *tagHash) write(p []byte) {
	if t != nil {
		t.h.Write(p)
	}
}

// tag is the ETag, once the whole body was written.
func (t *tagHash) tag() string { return `"` + hex.EncodeToString(t.h.Sum(nil)) + `"` }

// notModified reports whether the request's If-None-Match lists tag, by the
// weak comparison RFC 9110 prescribes for If-None-Match (a W/ prefix does
// not matter). "*" (any answer at all) matches nothing here: Metacontroller
// sends only a tag it was given, and an answer is always computed for a
// request this build has not seen.
func notModified(h http.Header, tag string) bool {
	for _, v := range h.Values("If-None-Match") {
		for t := range strings.SplitSeq(v, ",") {
			if strings.TrimPrefix(strings.TrimSpace(t), "W/") == tag {
				return true
			}
		}
	}
	return false
}
