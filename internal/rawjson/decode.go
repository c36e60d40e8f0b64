package rawjson

import (
	"cmp"
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Unmarshal decodes data into v as encoding/json's Unmarshal does, with the
// same result and the same error. Strings in v may share data's memory
// instead of copying it, so data must not change while v, or a string taken
// from it, is in use: a request's bytes stay as they arrived until its
// answer is written. data must be valid JSON (see Scan): the
// members of an object that v has no field for are stepped over without
// being read, and the rest is decoded without a validating pass first, so
// a Kubernetes object whose status or managed fields a hook does not read
// costs little more than finding where they end. Where this package cannot
// tell what encoding/json would make of a value (see Field), and wherever
// encoding/json would fail, v is decoded again from scratch by
// encoding/json itself. v must point to a zero value, as it does when a
// hook decodes into a fresh variable.
func Unmarshal(data []byte, v any) error {
	if Decode(data, v) {
		return nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv.Elem().SetZero()
	}
	return json.Unmarshal(data, v)
}

// fallbacks counts the values Decode left to encoding/json, panics those of
// them it left because reading them panicked. A fallback is not an error
// (encoding/json gives the answer) but is never silent: a steady stream of
// them means the fast path stopped paying, and a panic is a bug here.
var fallbacks, panics atomic.Uint64

// Fallbacks reports how many values Decode has left to encoding/json since
// the process started, and how many of them because reading them panicked.
func Fallbacks() (total, panicked uint64) { return fallbacks.Load(), panics.Load() }

// Decode is Unmarshal without the fallback: it reports whether it decoded
// data into v exactly as encoding/json would; when it did not, v may hold
// part of the value and is to be decoded afresh.
func Decode(data []byte, v any) (ok bool) {
	defer func() {
		if !ok {
			fallbacks.Add(1)
		}
	}()
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false
	}
	// A value this package cannot read is left to encoding/json; a panic
	// would be a bug here, and encoding/json still gives the answer.
	defer func() {
		if recover() != nil {
			panics.Add(1)
			ok = false
		}
	}()
	end, ok := decoderOf(rv.Elem().Type())(data, space(data, 0), rv.Elem())
	return ok && space(data, end) == len(data)
}

// decodeFunc decodes the value that starts at data[i] into v, an
// addressable value of the type it was made for, and returns the index
// after the value; ok is false when it cannot. Each value is read once:
// a struct's decoder hands each member's start to the field's decoder and
// steps over the members it has no field for.
type decodeFunc func(data []byte, i int, v reflect.Value) (end int, ok bool)

var decoders sync.Map // reflect.Type -> decodeFunc

func decoderOf(t reflect.Type) decodeFunc {
	if f, ok := decoders.Load(t); ok {
		return f.(decodeFunc)
	}
	// A recursive type refers to itself through a pointer, slice or map:
	// store an indirection first so its decoder can find itself.
	var f decodeFunc
	var built sync.WaitGroup
	built.Add(1)
	stub := decodeFunc(func(data []byte, i int, v reflect.Value) (int, bool) { built.Wait(); return f(data, i, v) })
	if actual, loaded := decoders.LoadOrStore(t, stub); loaded {
		return actual.(decodeFunc)
	}
	f = newDecoder(t)
	built.Done()
	decoders.Store(t, f)
	return f
}

// ValueDecoder is a type that reads its value where Decode finds it, in
// the same pass: DecodeJSONAt gets the data and the index the value starts
// at, and returns the index after the value, ok false where it cannot
// tell what encoding/json makes of it. A json.Unmarshaler gets the value's
// bytes, so Decode finds where the value ends first and the type reads it
// a second time. Decode prefers DecodeJSONAt; encoding/json, which knows
// nothing of it, calls the type's UnmarshalJSON, which it must have as
// well, failing where it cannot give encoding/json's answer.
type ValueDecoder interface {
	DecodeJSONAt(data []byte, i int) (end int, ok bool)
}

var (
	valueDecoderType    = reflect.TypeFor[ValueDecoder]()
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// std decodes with encoding/json, into a value with methods of its own or
// of a kind this package does not read itself.
func std(data []byte, i int, v reflect.Value) (int, bool) {
	end, ok := SkipValue(data, i)
	return end, ok && json.Unmarshal(data[i:end], v.Addr().Interface()) == nil
}

// null reports whether the value at data[i] is null.
func null(data []byte, i int) bool { return len(data)-i >= 4 && string(data[i:i+4]) == "null" }

// unmarshaler hands the value to the type's own UnmarshalJSON, as
// encoding/json does with the same bytes (the value without the blanks
// around it; null included); through json.Unmarshal the value would be
// validated again first.
func unmarshaler(data []byte, i int, v reflect.Value) (int, bool) {
	end, ok := SkipValue(data, i)
	return end, ok && v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(data[i:end]) == nil
}

// valueDecoder hands the value's start to the type's DecodeJSONAt.
func valueDecoder(data []byte, i int, v reflect.Value) (int, bool) {
	return v.Addr().Interface().(ValueDecoder).DecodeJSONAt(data, i)
}

func newDecoder(t reflect.Type) decodeFunc {
	if t == metaTimeType {
		return decodeMetaTime
	}
	if reflect.PointerTo(t).Implements(valueDecoderType) && reflect.PointerTo(t).Implements(unmarshalerType) {
		return valueDecoder
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return unmarshaler
	}
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return std
	}
	switch t.Kind() {
	case reflect.String:
		return decodeString
	case reflect.Bool:
		return decodeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return decodeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return decodeUint
	case reflect.Pointer:
		return pointerDecoder(t)
	case reflect.Slice:
		return newSliceDecoder(t)
	case reflect.Map:
		return newMapDecoder(t)
	case reflect.Struct:
		return structDecoder(t)
	}
	return std // floats, interfaces, arrays and the kinds encoding/json refuses
}

func newSliceDecoder(t reflect.Type) decodeFunc {
	switch t.Elem().Kind() {
	case reflect.Uint8: // base64 in a string, as encoding/json reads []byte
		return std
	case reflect.Interface: // encoding/json reads the whole value at once
		return std
	}
	return sliceDecoder(t)
}

// newMapDecoder reads maps by string keys; text-unmarshaled keys and
// values of any type are encoding/json's.
func newMapDecoder(t reflect.Type) decodeFunc {
	if t.Key().Kind() != reflect.String || reflect.PointerTo(t.Key()).Implements(textUnmarshalerType) ||
		t.Elem().Kind() == reflect.Interface {
		return std
	}
	return mapDecoder(t)
}

func decodeString(data []byte, i int, v reflect.Value) (int, bool) {
	if null(data, i) {
		return i + 4, true
	}
	if i >= len(data) || data[i] != '"' {
		return i, false
	}
	end, escaped, ok := skipString(data, i)
	if !ok {
		return end, false
	}
	content := data[i+1 : end-1]
	if !escaped && utf8.Valid(content) {
		v.SetString(alias(content))
		return end, true
	}
	// Escapes or invalid UTF-8: unquote decodes into a buffer of its own,
	// which nothing else refers to, so the string can be that buffer.
	s, ok := unquote(content)
	v.SetString(alias(s))
	return end, ok
}

// alias is b as a string without a copy: decoded strings share the
// memory of the JSON they come from (see Unmarshal), which is what spares
// a hook one allocation per string of every object it reads.
func alias(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// literalAt is the number or literal at data[i].
func literalAt(data []byte, i int) ([]byte, int, bool) {
	end, ok := SkipValue(data, i)
	return data[i:end], end, ok
}

func decodeBool(data []byte, i int, v reflect.Value) (int, bool) {
	lit, end, ok := literalAt(data, i)
	switch string(lit) {
	case "null":
	case "true":
		v.SetBool(true)
	case "false":
		v.SetBool(false)
	default:
		return end, false
	}
	return end, ok
}

func decodeInt(data []byte, i int, v reflect.Value) (int, bool) {
	return decodeNumber(data, i, func(lit string) bool {
		n, err := strconv.ParseInt(lit, 10, 64)
		if err != nil || v.OverflowInt(n) {
			return false
		}
		v.SetInt(n)
		return true
	})
}

func decodeUint(data []byte, i int, v reflect.Value) (int, bool) {
	return decodeNumber(data, i, func(lit string) bool {
		n, err := strconv.ParseUint(lit, 10, 64)
		if err != nil || v.OverflowUint(n) {
			return false
		}
		v.SetUint(n)
		return true
	})
}

// decodeNumber hands the number at data[i] to set, which reports whether
// it fits; null leaves the value as it is.
func decodeNumber(data []byte, i int, set func(lit string) bool) (int, bool) {
	lit, end, ok := literalAt(data, i)
	if !ok || string(lit) == "null" {
		return end, ok
	}
	return end, set(string(lit))
}

func pointerDecoder(t reflect.Type) decodeFunc {
	elem := decoderOf(t.Elem())
	return func(data []byte, i int, v reflect.Value) (int, bool) {
		if null(data, i) {
			v.SetZero()
			return i + 4, true
		}
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		return elem(data, i, v.Elem())
	}
}

func sliceDecoder(t reflect.Type) decodeFunc {
	elem := decoderOf(t.Elem())
	scratch := sync.Pool{New: func() any { return &items{reflect.New(t).Elem()} }}
	return func(data []byte, i int, v reflect.Value) (int, bool) {
		if null(data, i) {
			v.SetZero()
			return i + 4, true
		}
		// Items are decoded in place into a slice kept between arrays of
		// the type, which grows by one zero item, not by appending a copy
		// of one; the array's slice is then made of its length, once: a
		// slice grown as it is decoded is made two or three times over
		// (a backend's six conditions: four, then eight). An empty array
		// is an empty slice, not nil, as encoding/json has it.
		buf := scratch.Get().(*items)
		defer scratch.Put(buf)
		defer buf.clear()
		s := buf.s
		end, ok := walkArray(data, i, func(start int) (int, bool) {
			n := s.Len()
			if n == s.Cap() {
				s.Grow(1)
			}
			s.SetLen(n + 1)
			return elem(data, start, s.Index(n))
		})
		if ok {
			out := reflect.MakeSlice(t, s.Len(), s.Len())
			reflect.Copy(out, s)
			v.Set(out)
		}
		return end, ok
	}
}

// items is the slice a slice decoder decodes an array's items into
// before it makes the array's own.
type items struct{ s reflect.Value }

// clear zeroes the items decoded, so the kept slice holds nothing of the
// data, and empties it.
func (b *items) clear() {
	b.s.Clear()
	b.s.SetLen(0)
}

// stringMap is the map type Kubernetes objects hold most (labels,
// annotations, a ConfigMap's data), decoded without reflection.
var stringMap = reflect.TypeFor[map[string]string]()

func mapDecoder(t reflect.Type) decodeFunc {
	if t.ConvertibleTo(stringMap) && t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.String &&
		t.Key().PkgPath() == "" && t.Elem().PkgPath() == "" {
		return decodeStringMap
	}
	elem := decoderOf(t.Elem())
	return func(data []byte, i int, v reflect.Value) (int, bool) {
		if null(data, i) {
			v.SetZero()
			return i + 4, true
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(t))
		}
		e := reflect.New(t.Elem()).Elem()
		return WalkObject(data, i, func(key []byte, plain bool, start int) (int, bool) {
			key, ok := MapKey(key, plain)
			if !ok {
				return start, false
			}
			e.SetZero()
			end, ok := elem(data, start, e)
			if ok {
				v.SetMapIndex(reflect.ValueOf(string(key)).Convert(t.Key()), e)
			}
			return end, ok
		})
	}
}

// decodeStringMap is mapDecoder for a map[string]string, or a named type of
// one: its keys and values set directly.
func decodeStringMap(data []byte, i int, v reflect.Value) (int, bool) {
	if null(data, i) {
		v.SetZero()
		return i + 4, true
	}
	m := (*map[string]string)(v.Addr().UnsafePointer())
	if *m == nil {
		*m = map[string]string{}
	}
	var s string
	str := reflect.ValueOf(&s).Elem()
	return WalkObject(data, i, func(key []byte, plain bool, start int) (int, bool) {
		key, ok := MapKey(key, plain)
		if !ok {
			return start, false
		}
		s = ""
		end, ok := decodeString(data, start, str)
		if ok {
			(*m)[alias(key)] = s
		}
		return end, ok
	})
}

// MapKey is a map key as encoding/json decodes it: as written when it
// needs no decoding, unquoted otherwise.
func MapKey(key []byte, plain bool) ([]byte, bool) {
	if plain && utf8.Valid(key) {
		return key, true
	}
	return unquote(key)
}

// MapKeyString is MapKey as a string that shares the memory MapKey's
// bytes are in: the key as written, in the data it was read from (which
// must not change while the string is in use, as for Unmarshal), or the
// buffer unquoting it made. A map keyed by the names of a request's
// objects costs no copy of each name.
func MapKeyString(key []byte, plain bool) (string, bool) {
	k, ok := MapKey(key, plain)
	return alias(k), ok
}

// field is one JSON member a struct decodes: where its value goes.
type field struct {
	name   string
	num    int // its bit in a struct decoder's set of fields seen
	index  []int
	decode decodeFunc
}

func structDecoder(t reflect.Type) decodeFunc {
	fields, ok := jsonFields(t)
	if !ok {
		return std
	}
	names := newFieldNames(fields)
	return func(data []byte, i int, v reflect.Value) (int, bool) {
		if null(data, i) {
			return i + 4, true
		}
		var seen uint64
		return WalkObject(data, i, func(key []byte, plain bool, start int) (int, bool) {
			if !plain {
				var ok bool
				if key, ok = unquote(key); !ok {
					return start, false
				}
			}
			// A key that is not ASCII may fold to a field's name in ways
			// this package does not follow.
			if !isASCII(key) {
				return start, false
			}
			f, foldsToOne := names.find(key)
			switch {
			case foldsToOne:
				// A key that matches a field only when case is ignored
				// is that field's to encoding/json.
				return start, false
			case f == nil:
				return SkipValue(data, start)
			case seen&(1<<f.num) != 0:
				return start, false // given twice: encoding/json may merge the two
			}
			seen |= 1 << f.num
			if len(f.index) == 1 { // the common case, without FieldByIndex's loop
				return f.decode(data, start, v.Field(f.index[0]))
			}
			return f.decode(data, start, v.FieldByIndex(f.index))
		})
	}
}

// fieldNames finds a struct's field by a key's bytes. A struct has a few
// dozen fields at most and few of them share a length, so comparing the
// names of the key's length is quicker than hashing the key for a map, and
// it answers the case-folding question with the same few names.
type fieldNames struct {
	byLength [][]*field
}

func newFieldNames(fields []field) fieldNames {
	var n fieldNames
	for i := range fields {
		f := &fields[i]
		f.num = i
		for len(n.byLength) <= len(f.name) {
			n.byLength = append(n.byLength, nil)
		}
		n.byLength[len(f.name)] = append(n.byLength[len(f.name)], f)
	}
	return n
}

// find returns the field named key, or nil; foldsToOne is true when key is
// no field's name but equals one when case is ignored.
func (n fieldNames) find(key []byte) (f *field, foldsToOne bool) {
	if len(key) >= len(n.byLength) {
		return nil, false
	}
	same := n.byLength[len(key)]
	for _, f := range same {
		if f.name == string(key) {
			return f, false
		}
	}
	for _, f := range same {
		if strings.EqualFold(f.name, string(key)) {
			return nil, true
		}
	}
	return nil, false
}

// jsonFields lists the members encoding/json decodes into a struct, by its
// rules: exported fields by their valid tag name or their own name, the
// fields of embedded structs promoted, of two fields with one name the
// shallower one, or at equal depth the only tagged one, and neither
// otherwise. ok is false for what this package leaves to encoding/json: an
// embedded pointer (decoding allocates it), one struct type embedded twice
// at one depth, a field with the string option, two names that differ only
// in case, a name that is not ASCII, more than 64 fields.
func jsonFields(t reflect.Type) ([]field, bool) {
	all, ok := candidates(t)
	if !ok {
		return nil, false
	}
	fields, ok := dominantFields(all)
	if !ok || len(fields) > 64 || !caseUnique(fields) {
		return nil, false
	}
	return fields, true
}

// candidate is a member that may decode a name: its name, its index path,
// the depth of embedding it is at, and whether a tag named it.
type candidate struct {
	name   string
	index  []int
	depth  int
	tagged bool
	typ    reflect.Type
}

// level is a struct whose fields are candidates, at its index path.
type level struct {
	t     reflect.Type
	index []int
}

// candidates walks the struct and its embedded structs breadth first, one
// depth at a time, as encoding/json does.
func candidates(t reflect.Type) ([]candidate, bool) {
	var all []candidate
	current := []level{{t, nil}}
	visited := map[reflect.Type]bool{}
	for depth := 0; len(current) > 0; depth++ {
		var next []level
		embedded := map[reflect.Type]int{}
		for _, l := range current {
			if visited[l.t] {
				continue
			}
			visited[l.t] = true
			for i := 0; i < l.t.NumField(); i++ {
				c, promoted, ok := fieldCandidate(l, i, depth)
				switch {
				case !ok:
					return nil, false
				case promoted != nil:
					if embedded[promoted.t]++; embedded[promoted.t] > 1 {
						return nil, false
					}
					next = append(next, *promoted)
				case c != nil:
					all = append(all, *c)
				}
			}
		}
		current = next
	}
	return all, true
}

// fieldCandidate reads field i of the level: a candidate, an embedded
// struct whose fields are promoted, or neither (unexported, or tagged
// "-"); ok is false for what this package leaves to encoding/json.
func fieldCandidate(l level, i, depth int) (c *candidate, promoted *level, ok bool) {
	sf := l.t.Field(i)
	ft := sf.Type
	if sf.Anonymous {
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if !sf.IsExported() && ft.Kind() != reflect.Struct {
			return nil, nil, true
		}
	} else if !sf.IsExported() {
		return nil, nil, true
	}
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return nil, nil, true
	}
	name, opts, _ := strings.Cut(tag, ",")
	if slices.Contains(strings.Split(opts, ","), "string") {
		return nil, nil, false
	}
	if !validTagName(name) {
		name = ""
	}
	index := append(slices.Clone(l.index), i)
	if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
		if sf.Type.Kind() == reflect.Pointer {
			return nil, nil, false
		}
		return nil, &level{ft, index}, true
	}
	return &candidate{name: cmp.Or(name, sf.Name), index: index, depth: depth, tagged: name != "", typ: sf.Type}, nil, true
}

// dominantFields picks, per name in the order first seen, the shallowest
// candidate, or at equal depth the only tagged one; a name with neither
// is dropped, as encoding/json drops a name it cannot decide.
func dominantFields(all []candidate) ([]field, bool) {
	var fields []field
	var order []string
	byName := map[string][]candidate{}
	for _, c := range all {
		if _, ok := byName[c.name]; !ok {
			order = append(order, c.name)
		}
		byName[c.name] = append(byName[c.name], c)
	}
	for _, name := range order {
		cs := byName[name]
		depth := slices.MinFunc(cs, func(a, b candidate) int { return a.depth - b.depth }).depth
		var top, tagged []candidate
		for _, c := range cs {
			if c.depth == depth {
				top = append(top, c)
				if c.tagged {
					tagged = append(tagged, c)
				}
			}
		}
		winner := top[0]
		if len(top) > 1 {
			if len(tagged) != 1 {
				continue
			}
			winner = tagged[0]
		}
		if !isASCII([]byte(name)) {
			return nil, false
		}
		fields = append(fields, field{name: name, index: winner.index, decode: decoderOf(winner.typ)})
	}
	return fields, true
}

// caseUnique reports whether no two names differ only in case.
func caseUnique(fields []field) bool {
	lower := map[string]bool{}
	for _, f := range fields {
		l := strings.ToLower(f.name)
		if lower[l] {
			return false
		}
		lower[l] = true
	}
	return true
}

// validTagName is encoding/json's rule for a tag name it uses.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
