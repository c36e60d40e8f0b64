package rawjson

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// arraysOf counts what Scan counts, from the decoded value.
func arraysOf(v any) Arrays {
	var a Arrays
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case []any:
			a.Items += len(t)
			a.Longest = max(a.Longest, len(t))
			for _, e := range t {
				walk(e)
			}
		case map[string]any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
	return a
}

func checkScan(t *testing.T, data []byte) {
	t.Helper()
	got, ok := Scan(data)
	if want := json.Valid(data); ok != want {
		t.Fatalf("Scan(%q) valid = %v, encoding/json says %v", data, ok, want)
	}
	for depth := 1; depth <= 5; depth++ {
		checkEnds(t, data, depth, got, ok)
	}
	if !ok {
		return
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // valid numbers may not fit a float64
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	if want := arraysOf(v); got != want {
		t.Fatalf("Scan(%q) counts %+v, decoded %+v", data, got, want)
	}
}

// checkEnds holds ScanEnds to Scan's answer and each end it keeps to
// SkipValue's, and checks it keeps every object and array opening down to
// depth but the empty ones.
func checkEnds(t *testing.T, data []byte, depth int, want Arrays, valid bool) {
	t.Helper()
	got, ends, ok := ScanEnds(data, depth)
	if ok != valid || got != want {
		t.Fatalf("ScanEnds(%q, %d) = %+v, %v; Scan says %+v, %v", data, depth, got, ok, want, valid)
	}
	if !ok {
		return
	}
	kept := 0
	walkValues(data, space(data, 0), 1, depth+1, func(start, d int) {
		end, ok := SkipValue(data, start)
		if got, _ := ends.Skip(data, start); !ok || got != end {
			t.Fatalf("ScanEnds(%q, %d): the value at %d ends at %d, SkipValue says %d", data, depth, start, got, end)
		}
		if c := data[start]; (c == '{' || c == '[') && d <= depth && data[space(data, start+1)] != c+2 {
			kept++
		}
	})
	if kept != len(ends.starts) {
		t.Fatalf("ScanEnds(%q, %d) kept %d ends, want %d", data, depth, len(ends.starts), kept)
	}
}

// walkValues calls fn with the start and depth of the value at data[i] and
// of every value in it down to depth most.
func walkValues(data []byte, i, depth, most int, fn func(start, depth int)) {
	fn(i, depth)
	if depth == most {
		return
	}
	switch data[i] {
	case '{':
		WalkObject(data, i, func(_ []byte, _ bool, start int) (int, bool) {
			walkValues(data, start, depth+1, most, fn)
			return SkipValue(data, start)
		})
	case '[':
		walkArray(data, i, func(start int) (int, bool) {
			walkValues(data, start, depth+1, most, fn)
			return SkipValue(data, start)
		})
	}
}

func TestScan(t *testing.T) {
	for _, s := range []string{
		``, ` `, `{}`, `[]`, `[[]]`, `[{}]`, `{"a":[1,2,[3]],"b":{"c":[]}}`, ` [ 1 , 2 ] `, `"x"`, `-0.5e+7`, `0`, `01`, `-`, `1.`, `.5`, `1e`,
		`true`, `tru`, `nul`, `falsey`, `[1,]`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{1:2}`, `[1 2]`, `{} {}`, `{"a":1}x`,
		`"\u00e9\n\t\"\\\/"`, `"\u12G4"`, `"\x"`, "\"a\x01b\"", "\"a\x7fb\"", "\"\xff\xfe\"", `"unterminated`, `"ends with \"`,
		`"0123456789abcdefghij\"klmnop"`, `["` + strings.Repeat(`\\`, 9) + `"]`, `{"a":"` + strings.Repeat("x", 100) + `"}`,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000), strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat(`{"a":`, 10000) + `1` + strings.Repeat("}", 10000),
	} {
		checkScan(t, []byte(s))
	}
}

// TestScanFixtures scans every request of the fixtures and their cuts.
func TestScanFixtures(t *testing.T) {
	files, err := filepath.Glob("../../test/fixtures/*/*/request.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixture requests: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkScan(t, data)
		for _, cut := range []int{1, len(data) / 3, len(data) / 2, len(data) - 2} {
			checkScan(t, data[:cut])
		}
	}
}

// FuzzScan holds Scan to encoding/json's Valid and to the arrays of the
// decoded value.
func FuzzScan(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":"c\"d"}]}`, `[1e5,-0,"\u0041",true,false,null]`, "\"\x1f\"", `{"a":"` + strings.Repeat("y", 17) + `"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkScan(t, data) })
}

// TestFirstFlaggedIsFirstSpecial holds the word masks to what the string
// readers rely on: a word has a flag exactly when it holds a byte looked
// for, and its lowest flag is the first such byte, whatever borrows the
// bytes around it make. Bytes are drawn from those at the edges of each
// test, every position at once.
func TestFirstFlaggedIsFirstSpecial(t *testing.T) {
	alphabet := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, '"', '#', '\\', ']', 'a', 0x7f, 0x80, 0x9f, 0xa0, 0xdc, 0xff}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var w [8]byte
		for i := range w {
			w[i] = alphabet[rng.IntN(len(alphabet))]
		}
		x := binary.LittleEndian.Uint64(w[:])
		check := func(name string, mask uint64, looked func(byte) bool) {
			first := -1
			for i, c := range w {
				if looked(c) {
					first = i
					break
				}
			}
			switch {
			case first < 0 && mask != 0, first >= 0 && mask == 0:
				t.Fatalf("%s % x: mask %x, first byte looked for at %d", name, w, mask, first)
			case first >= 0 && firstFlagged(mask) != first:
				t.Fatalf("%s % x: first flag at %d, first byte looked for at %d", name, w, firstFlagged(mask), first)
			}
		}
		check("specials", specials(x), func(c byte) bool { return c < 0x20 || c == '"' || c == '\\' })
		check("quotesOrBackslashes", quotesOrBackslashes(x), func(c byte) bool { return c == '"' || c == '\\' })
	}
}
