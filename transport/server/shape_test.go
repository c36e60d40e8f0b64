package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCountArrayItems(t *testing.T) {
	for body, want := range map[string]int{
		`{}`:                       0,
		`[]`:                       0,
		`[ ]`:                      0,
		`[1]`:                      1,
		`[1, 2 ,3]`:                3,
		`{"a":[{},{"b":[1,2]}]}`:   4,
		`["[,,]", "\"[", "]"]`:     3,
		`[[],[[]],[1]]`:            5,
		`{"a":"[1,2,3]","b":[""]}`: 1,
		`[1,2`:                     2,
		`]]][`:                     0,
	} {
		got, err := countArrayItems([]byte(body))
		require.NoError(t, err, body)
		assert.Equal(t, want, got, body)
	}
}

func TestCountArrayItemsLimits(t *testing.T) {
	one := "[" + strings.TrimSuffix(strings.Repeat("{},", MaxArrayItems), ",") + "]"
	n, err := countArrayItems([]byte(one))
	require.NoError(t, err, "an array of exactly the limit")
	assert.Equal(t, MaxArrayItems, n)

	_, err = countArrayItems([]byte("[" + strings.Repeat("0,", MaxArrayItems) + "0]"))
	var he *httpError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, http.StatusRequestEntityTooLarge, he.code)
	assert.Contains(t, he.msg, "an array of more than 10000 items")

	arrays := MaxArrayItemsTotal/MaxArrayItems + 1
	_, err = countArrayItems([]byte("[" + strings.TrimSuffix(strings.Repeat(one+",", arrays), ",") + "]"))
	require.ErrorAs(t, err, &he)
	assert.Contains(t, he.msg, "more than 200000 array items in all")
}

// countArrayItems agrees with decoding: for any JSON it accepts, it counts
// the items of every array, as a walk of the decoded value does.
func FuzzCountArrayItems(f *testing.F) {
	for _, s := range []string{`{}`, `[1,[2,3],{"a":[]}]`, `["[,]","\\"",{"b":[{},{}]}]`, `[ 1 , 2 ]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var v any
		if json.Unmarshal(body, &v) != nil {
			return
		}
		want := walkItems(v)
		got, err := countArrayItems(body)
		if want > MaxArrayItemsTotal || err != nil {
			return
		}
		if got != want {
			t.Fatalf("%q: counted %d array items, decoding finds %d", body, got, want)
		}
	})
}

func walkItems(v any) int {
	switch x := v.(type) {
	case []any:
		n := len(x)
		for _, e := range x {
			n += walkItems(e)
		}
		return n
	case map[string]any:
		n := 0
		for _, e := range x {
			n += walkItems(e)
		}
		return n
	}
	return 0
}
