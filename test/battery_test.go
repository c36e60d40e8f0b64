package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/transport/server"
)

// echoValue goes where a request value was: long, and full of what a log
// reader or a terminal takes for something else (NUL, an escape sequence, a
// line break, a line separator, a bidi override). No error answer or log
// line may carry more of it than an excerpt: at most a name's 253 bytes.
var echoValue = "ECHO\x00\x1b[2J\r\n\u2028\u202e" + strings.Repeat("m", 4000)

// hugeNumber is a number no field holds, as long as echoValue.
var hugeNumber = json.RawMessage("9" + strings.Repeat("9", 4000))

// leafMutations replace one value of a fixture request: by echoValue, a
// huge number, null, an object, a lone quote (which oslo.config reads back
// empty) and a URL that does not parse (a percent escape that is none and a
// port that is not a number, hiding user info).
var leafMutations = []struct {
	name  string
	value json.RawMessage
}{
	{"echo", mustJSON(echoValue)},
	{"huge number", hugeNumber},
	{"null", json.RawMessage("null")},
	{"object", json.RawMessage(`{"x":{}}`)},
	{"lone quote", mustJSON(`"`)},
	{"unparsable URL", mustJSON("http://user:pa%zzss@s3.example:39x0/")},
}

func mustJSON(v any) json.RawMessage {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return raw
}

// batteryInput is one bad request.
type batteryInput struct {
	path, what string
	body       []byte
}

// battery is every fixture request with each of its values (up to
// leavesPerFixture of them, spread over the request), in turn, replaced by
// each leaf mutation, one object key per map renamed to echoValue, and the
// body cut short at a few places.
func battery(t testing.TB, leavesPerFixture int) []batteryInput {
	t.Helper()
	var out []batteryInput
	for _, dir := range fixtureCases(t) {
		raw, err := os.ReadFile(filepath.Join(dir, "request.json"))
		require.NoError(t, err)
		path := hookPath(filepath.Base(filepath.Dir(dir)))
		var doc any
		require.NoError(t, json.Unmarshal(raw, &doc))
		var leaves, maps [][]string
		walk(doc, nil, &leaves, &maps)
		step := max(1, len(leaves)/leavesPerFixture)
		for i := 0; i < len(leaves); i += step {
			for _, m := range leafMutations {
				out = append(out, batteryInput{path, dir + " " + strings.Join(leaves[i], ".") + " " + m.name, replaced(t, doc, leaves[i], m.value)})
			}
		}
		for i := 0; i < len(maps); i += max(1, len(maps)/leavesPerFixture) {
			out = append(out, batteryInput{path, dir + " key of " + strings.Join(maps[i], "."), renamedKey(t, doc, maps[i])})
		}
		for _, frac := range []int{1, 3, 5, 7, 9} {
			out = append(out, batteryInput{path, fmt.Sprintf("%s cut at %d/10", dir, frac), raw[:len(raw)*frac/10]})
		}
	}
	return out
}

// walk lists the paths of every scalar and of every non-empty object.
func walk(v any, at []string, leaves, maps *[][]string) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 {
			*maps = append(*maps, at)
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walk(x[k], append(append([]string(nil), at...), k), leaves, maps)
		}
	case []any:
		for i, e := range x {
			walk(e, append(append([]string(nil), at...), fmt.Sprint(i)), leaves, maps)
		}
	default:
		*leaves = append(*leaves, at)
	}
}

// replaced is doc with the value at path set to raw, as JSON.
func replaced(t testing.TB, doc any, path []string, raw json.RawMessage) []byte {
	t.Helper()
	return edited(t, doc, path, func(parent any, key string) {
		switch p := parent.(type) {
		case map[string]any:
			p[key] = raw
		case []any:
			var i int
			fmt.Sscan(key, &i)
			p[i] = raw
		}
	})
}

// renamedKey is doc with the first key of the object at path renamed to
// echoValue.
func renamedKey(t testing.TB, doc any, path []string) []byte {
	t.Helper()
	return edited(t, doc, append(append([]string(nil), path...), ""), func(parent any, _ string) {
		m := parent.(map[string]any)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		m[echoValue] = m[keys[0]]
		delete(m, keys[0])
	})
}

// edited deep-copies doc, calls change with the parent of path's last
// element, and encodes the result.
func edited(t testing.TB, doc any, path []string, change func(parent any, key string)) []byte {
	t.Helper()
	raw, err := json.Marshal(doc)
	require.NoError(t, err)
	var cp any
	require.NoError(t, json.Unmarshal(raw, &cp))
	parent := cp
	for _, k := range path[:len(path)-1] {
		switch p := parent.(type) {
		case map[string]any:
			parent = p[k]
		case []any:
			var i int
			fmt.Sscan(k, &i)
			parent = p[i]
		}
	}
	change(parent, path[len(path)-1])
	out, err := json.Marshal(cp)
	require.NoError(t, err)
	return out
}

// echoProblem says what in a message shows more of echoValue or hugeNumber
// than an excerpt, or anything a log reader takes for a control: "" when
// nothing does.
func echoProblem(msg string) string {
	switch {
	case strings.Contains(msg, strings.Repeat("m", 254)):
		return "more than 253 bytes of a value"
	case strings.Contains(msg, strings.Repeat("9", 254)):
		return "more than 253 digits of a number"
	case strings.ContainsAny(msg, "\x00\x1b\r\n\u2028\u2029\u202e"):
		return "a control character, line break or bidi override"
	case !utf8.ValidString(msg):
		return "invalid UTF-8"
	}
	return ""
}

// TestBattery posts every battery input to its hook and holds every answer
// to what the README promises: never a 5xx, an answer within AnswerBound,
// an error answer of one line of JSON whose message quotes no more than an
// excerpt of any value, and one JSON log line per request that does not
// either. It prints the inputs tried and the status histogram (the README's
// Reliability section).
func TestBattery(t *testing.T) {
	inputs := battery(t, 40)
	var logs bytes.Buffer
	h := newTestServer(t, &logs)
	histogram := map[int]int{}
	failures := 0
	for _, in := range inputs {
		logs.Reset()
		rec := post(h, in.path, in.body)
		histogram[rec.Code]++
		for _, p := range brokenPromises(in.body, rec.Code, rec.Body.Bytes(), logs.String()) {
			failures++
			if failures <= 20 {
				t.Errorf("%s %s: %s", in.path, in.what, p)
			}
		}
	}
	codes := make([]int, 0, len(histogram))
	for c := range histogram {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	var parts []string
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("%d: %d", c, histogram[c]))
	}
	t.Logf("%d inputs tried; statuses %s", len(inputs), strings.Join(parts, ", "))
	require.Zero(t, failures, "%d inputs broke a promise", failures)
}

// brokenPromises holds one answer (its status, body and the request's log
// output) to what the README promises for any request: never a 5xx, an
// answer within AnswerBound, an error answer of one line of JSON whose
// message shows no more than an excerpt of any value, and one JSON log line
// that does not either.
func brokenPromises(body []byte, code int, answer []byte, logs string) []string {
	var out []string
	if code >= 500 {
		out = append(out, fmt.Sprintf("answered %d: %.200q", code, answer))
	}
	if len(answer) > AnswerBound(len(body)) {
		out = append(out, fmt.Sprintf("answer of %d bytes to a %d-byte request", len(answer), len(body)))
	}
	if code >= 400 {
		var e struct {
			Error string `json:"error"`
		}
		switch err := json.Unmarshal(answer, &e); {
		case err != nil || e.Error == "":
			out = append(out, fmt.Sprintf("error answer is not {\"error\": ...}: %.200q", answer))
		case echoProblem(e.Error) != "":
			out = append(out, fmt.Sprintf("error message holds %s: %.300q", echoProblem(e.Error), e.Error))
		case len(e.Error) > server.MaxErrorMessage:
			out = append(out, fmt.Sprintf("error message of %d bytes", len(e.Error)))
		}
	}
	line := strings.TrimSuffix(logs, "\n")
	var entry map[string]any
	if strings.Contains(line, "\n") || json.Unmarshal([]byte(line), &entry) != nil {
		return append(out, fmt.Sprintf("not one JSON log line: %.200q", line))
	}
	for k, v := range entry {
		if s, ok := v.(string); ok && echoProblem(s) != "" {
			out = append(out, fmt.Sprintf("log field %s holds %s: %.300q", k, echoProblem(s), s))
		}
	}
	if len(line) > 2*server.MaxErrorMessage {
		out = append(out, fmt.Sprintf("log line of %d bytes", len(line)))
	}
	return out
}
