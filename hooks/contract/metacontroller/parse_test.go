package metacontroller

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/c5c3/glance-hooks/internal/rawjson"
)

// checkParse holds ParseSyncRequest and ParseCustomizeRequest to
// encoding/json on one body: where they answer, their request is the one
// encoding/json decodes.
func checkParse(t *testing.T, body []byte) (syncOK, customizeOK bool) {
	t.Helper()
	_, ends, valid := rawjson.ScanEnds(body, 4)
	if !valid {
		return false, false // the transport parses only what Scan found valid
	}
	// The objects stepped over by the ends a scan kept are the objects
	// stepped over one by one.
	with, withOK := ParseSyncRequestWith(body, ends)
	without, withoutOK := ParseSyncRequest(body)
	if withOK != withoutOK || withOK && !reflect.DeepEqual(*with, *without) {
		t.Fatalf("ParseSyncRequestWith(%s) = %v, %v; ParseSyncRequest = %v, %v", body, with, withOK, without, withoutOK)
	}
	withC, withCOK := ParseCustomizeRequestWith(body, ends)
	withoutC, withoutCOK := ParseCustomizeRequest(body)
	if withCOK != withoutCOK || withCOK && !reflect.DeepEqual(*withC, *withoutC) {
		t.Fatalf("ParseCustomizeRequestWith(%s) = %v, %v; ParseCustomizeRequest = %v, %v", body, withC, withCOK, withoutC, withoutCOK)
	}
	var wantSync SyncRequest
	syncErr := json.Unmarshal(body, &wantSync)
	if got, ok := ParseSyncRequest(body); ok {
		if syncErr != nil {
			t.Fatalf("ParseSyncRequest read %s, which encoding/json refuses: %v", body, syncErr)
		}
		if !reflect.DeepEqual(*got, wantSync) {
			t.Fatalf("ParseSyncRequest(%s):\n got %#v\nwant %#v", body, *got, wantSync)
		}
		syncOK = true
	}
	var wantCustomize CustomizeRequest
	customizeErr := json.Unmarshal(body, &wantCustomize)
	if got, ok := ParseCustomizeRequest(body); ok {
		if customizeErr != nil {
			t.Fatalf("ParseCustomizeRequest read %s, which encoding/json refuses: %v", body, customizeErr)
		}
		if !reflect.DeepEqual(*got, wantCustomize) {
			t.Fatalf("ParseCustomizeRequest(%s):\n got %#v\nwant %#v", body, *got, wantCustomize)
		}
		customizeOK = true
	}
	return syncOK, customizeOK
}

func TestParseRequests(t *testing.T) {
	cases := map[string]struct {
		body string
		sync bool
	}{
		"Sync":            {`{"controller":{"x":1},"parent":{"kind":"Glance"},"children":{"Secret.v1":{"a":{"k":1},"b":null}},"related":{"ConfigMap.v1":null},"finalizing":true}`, true},
		"Empty":           {`{}`, true},
		"NullMaps":        {`{"parent":null,"children":null,"related":{}}`, true},
		"LastNameWins":    {`{"children":{"Secret.v1":{"a":1,"a":2}}}`, true},
		"LastKindWins":    {`{"children":{"Secret.v1":{"a":1},"Secret.v1":{"b":2}}}`, true},
		"Unknown":         {`{"parent":{},"extra":[1,{"parent":2}]}`, true},
		"FoldedField":     {`{"Parent":{}}`, false},
		"TwiceField":      {`{"children":{"A":{"a":1}},"children":{"B":{"b":2}}}`, false},
		"EscapedName":     {`{"children":{"Secret.v1":{"\u0061":1}}}`, true},
		"ChildrenArray":   {`{"children":[]}`, false},
		"KindArray":       {`{"children":{"Secret.v1":[]}}`, false},
		"FinalizingWrong": {`{"finalizing":"yes"}`, false},
		"NotObject":       {`[{}]`, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if syncOK, _ := checkParse(t, []byte(tc.body)); syncOK != tc.sync {
				t.Errorf("ParseSyncRequest answered %v, want %v", syncOK, tc.sync)
			}
		})
	}
}

func TestParsedObjectsCannotGrowIntoTheBody(t *testing.T) {
	body := []byte(`{"parent":{"a":1},"children":{"K.v1":{"n":{"b":2}}}}`)
	req, ok := ParseSyncRequest(body)
	if !ok {
		t.Fatal("not parsed")
	}
	_ = append(req.Parent, 'x')
	_ = append(req.Children["K.v1"]["n"], 'x')
	if string(body) != `{"parent":{"a":1},"children":{"K.v1":{"n":{"b":2}}}}` {
		t.Errorf("appending to a parsed object wrote into the body: %s", body)
	}
}

// TestParsedNamesShareTheBody holds the ObjectMap's keys to the body's
// memory where they are written plain, and to their decoded text where
// they are escaped.
func TestParsedNamesShareTheBody(t *testing.T) {
	body := []byte(`{"related":{"K.v1":{"plain":{},"\u0065sc":{}}}}`)
	req, ok := ParseSyncRequest(body)
	if !ok {
		t.Fatal("not parsed")
	}
	inBody := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		start := uintptr(unsafe.Pointer(&body[0]))
		return p >= start && p < start+uintptr(len(body))
	}
	for kind, byName := range req.Related {
		if !inBody(kind) {
			t.Errorf("kind %q is a copy", kind)
		}
		for name := range byName {
			if want := name == "plain"; inBody(name) != want {
				t.Errorf("name %q in the body: %v, want %v", name, inBody(name), want)
			}
		}
	}
	if _, ok := req.Related["K.v1"]["esc"]; !ok {
		t.Errorf("escaped name not decoded: %v", req.Related)
	}
}

// FuzzParseRequests holds the parsers to encoding/json on the fixtures'
// requests and what the fuzzer makes of them.
func FuzzParseRequests(f *testing.F) {
	files, _ := filepath.Glob("../../../test/fixtures/*/*/request.json")
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if len(raw) < 64<<10 {
			f.Add(raw)
		}
	}
	f.Add([]byte(`{"parent":{},"children":{"a":{"b":"` + strings.Repeat("c", 40) + `"}}}`))
	f.Fuzz(func(t *testing.T, body []byte) { checkParse(t, body) })
}
