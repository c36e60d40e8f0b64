// Package contenthash names content-addressed objects. The hash is SHA-256
// over the data's keys in byte order, each key and value prefixed by its
// length (so no two different maps can frame to the same bytes), cut to its
// first 10 hex digits: 40 bits, plenty to tell a Glance's few live revisions
// apart, short enough to keep object names readable.
package contenthash

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"sort"
)

// Length is the number of hex digits in a hash.
const Length = 10

// Of hashes string data (ConfigMap data, or Secret data before base64).
func Of(data map[string]string) string {
	return sum(sha256.New(), data)
}

// Keyed is Of as an HMAC-SHA256 keyed by key: for a name that must change
// with secret data without letting whoever reads the name test guesses of
// that data, which only the holder of key can.
func Keyed(key string, data map[string]string) string {
	return sum(hmac.New(sha256.New, []byte(key)), data)
}

// sum writes data into h in key order, each key and value prefixed by its
// length, and returns the first Length hex digits.
func sum(h hash.Hash, data map[string]string) string {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		frame(h, []byte(k))
		frame(h, []byte(data[k]))
	}
	return digits(h.Sum(nil))
}

// OfOne is Of of a map that holds one key, for a caller that hashes one
// value per object of a request (a store's spec) or one large value (a
// backends.conf): the same framing without the map, its sort, a copy of
// the value and the full hex string. The hash is written to here, not
// through frame: behind the hash.Hash interface the hash, the lengths and
// the key escaped, four allocations per call; here none.
func OfOne(key string, value []byte) string {
	h := sha256.New()
	keyLen, valueLen := length(key), length(value)
	h.Write(keyLen[:])
	h.Write([]byte(key))
	h.Write(valueLen[:])
	h.Write(value)
	var sum [sha256.Size]byte
	return digits(h.Sum(sum[:0]))
}

// frame writes b to h behind its length.
func frame(h hash.Hash, b []byte) {
	n := length(b)
	h.Write(n[:])
	h.Write(b)
}

// length is the frame's length prefix of b.
func length[B string | []byte](b B) [8]byte {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	return n
}

// digits is the hash's first Length hex digits.
func digits(sum []byte) string {
	var out [Length]byte
	hex.Encode(out[:], sum[:Length/2])
	return string(out[:])
}

// Name is "<prefix>-<hash of data>".
func Name(prefix string, data map[string]string) string {
	return prefix + "-" + Of(data)
}
