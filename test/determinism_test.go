package test

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// shuffledJSON re-encodes a JSON document with every object's keys in a
// random order, as another client (or another Go map iteration) could send it.
func shuffledJSON(t *testing.T, r *rand.Rand, raw []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v))
	var buf bytes.Buffer
	var write func(v any)
	write = func(v any) {
		switch o := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(o))
			for k := range o {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
			buf.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					buf.WriteByte(',')
				}
				kb, _ := json.Marshal(k)
				buf.Write(kb)
				buf.WriteByte(':')
				write(o[k])
			}
			buf.WriteByte('}')
		case []any:
			buf.WriteByte('[')
			for i, e := range o {
				if i > 0 {
					buf.WriteByte(',')
				}
				write(e)
			}
			buf.WriteByte(']')
		default:
			b, _ := json.Marshal(o)
			buf.Write(b)
		}
	}
	write(v)
	return buf.Bytes()
}

// TestShuffledKeyOrderGivesIdenticalBytes posts every fixture request with
// its object keys (children and related maps included) in several random
// orders: every answer is byte-identical to the one for the file as written.
func TestShuffledKeyOrderGivesIdenticalBytes(t *testing.T) {
	h := newTestServer(t, nil)
	r := rand.New(rand.NewSource(1))
	for _, dir := range fixtureCases(t) {
		body, err := os.ReadFile(filepath.Join(dir, "request.json"))
		require.NoError(t, err)
		path := hookPath(filepath.Base(filepath.Dir(dir)))
		want := post(h, path, body).Body.String()
		for i := 0; i < 3; i++ {
			got := post(h, path, shuffledJSON(t, r, body)).Body.String()
			require.Equal(t, want, got, "%s: the answer depends on the order of keys in the request", dir)
		}
	}
}
