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
	"unicode"
	"unicode/utf8"
)

// Unmarshal decodes data into v as encoding/json's Unmarshal does, with the
// same result and the same error. data must be valid JSON (see Scan): the
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

// Decode is Unmarshal without the fallback: it reports whether it decoded
// data into v exactly as encoding/json would; when it did not, v may hold
// part of the value and is to be decoded afresh.
func Decode(data []byte, v any) (ok bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false
	}
	// A value this package cannot read is left to encoding/json; a panic
	// would be a bug here, and encoding/json still gives the answer.
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return decodeInto(trim(data), rv.Elem())
}

// trim drops the blanks around a value.
func trim(data []byte) []byte {
	i := space(data, 0)
	j := len(data)
	for j > i && (data[j-1] == ' ' || data[j-1] == '\t' || data[j-1] == '\n' || data[j-1] == '\r') {
		j--
	}
	return data[i:j]
}

// decodeFunc decodes one JSON value (without blanks around it) into v, an
// addressable value of the type it was made for, or reports it cannot.
type decodeFunc func(data []byte, v reflect.Value) bool

var decoders sync.Map // reflect.Type -> decodeFunc

func decodeInto(data []byte, v reflect.Value) bool {
	return decoderOf(v.Type())(data, v)
}

func decoderOf(t reflect.Type) decodeFunc {
	if f, ok := decoders.Load(t); ok {
		return f.(decodeFunc)
	}
	// A recursive type refers to itself through a pointer, slice or map:
	// store an indirection first so its decoder can find itself.
	var f decodeFunc
	var once sync.WaitGroup
	once.Add(1)
	stub := decodeFunc(func(data []byte, v reflect.Value) bool { once.Wait(); return f(data, v) })
	if actual, loaded := decoders.LoadOrStore(t, stub); loaded {
		return actual.(decodeFunc)
	}
	f = newDecoder(t)
	once.Done()
	decoders.Store(t, f)
	return f
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// std decodes with encoding/json, into a value with methods of its own or
// of a kind this package does not read itself.
func std(data []byte, v reflect.Value) bool {
	return json.Unmarshal(data, v.Addr().Interface()) == nil
}

func newDecoder(t reflect.Type) decodeFunc {
	if reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
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
		switch t.Elem().Kind() {
		case reflect.Uint8: // base64 in a string, as encoding/json reads []byte
			return std
		case reflect.Interface: // encoding/json reads the whole value at once
			return std
		}
		return sliceDecoder(t)
	case reflect.Map:
		if t.Key().Kind() != reflect.String || reflect.PointerTo(t.Key()).Implements(textUnmarshalerType) ||
			t.Elem().Kind() == reflect.Interface {
			return std
		}
		return mapDecoder(t)
	case reflect.Struct:
		return structDecoder(t)
	}
	return std // floats, interfaces, arrays and the kinds encoding/json refuses
}

func decodeString(data []byte, v reflect.Value) bool {
	if IsNull(data) {
		return true
	}
	if s, ok := StringBytes(data); ok {
		v.SetString(string(s))
		return true
	}
	return len(data) > 0 && data[0] == '"' && std(data, v)
}

func decodeBool(data []byte, v reflect.Value) bool {
	switch string(data) {
	case "null":
	case "true":
		v.SetBool(true)
	case "false":
		v.SetBool(false)
	default:
		return false
	}
	return true
}

func decodeInt(data []byte, v reflect.Value) bool {
	if IsNull(data) {
		return true
	}
	n, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil || v.OverflowInt(n) {
		return false
	}
	v.SetInt(n)
	return true
}

func decodeUint(data []byte, v reflect.Value) bool {
	if IsNull(data) {
		return true
	}
	n, err := strconv.ParseUint(string(data), 10, 64)
	if err != nil || v.OverflowUint(n) {
		return false
	}
	v.SetUint(n)
	return true
}

func pointerDecoder(t reflect.Type) decodeFunc {
	elem := decoderOf(t.Elem())
	return func(data []byte, v reflect.Value) bool {
		if IsNull(data) {
			v.SetZero()
			return true
		}
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		return elem(data, v.Elem())
	}
}

func sliceDecoder(t reflect.Type) decodeFunc {
	elem := decoderOf(t.Elem())
	return func(data []byte, v reflect.Value) bool {
		if IsNull(data) {
			v.SetZero()
			return true
		}
		var items [][]byte
		if !Elements(data, func(item []byte) bool { items = append(items, item); return true }) {
			return false
		}
		// An empty array is an empty slice, not nil, as encoding/json has it.
		s := reflect.MakeSlice(t, len(items), len(items))
		for i, item := range items {
			if !elem(item, s.Index(i)) {
				return false
			}
		}
		v.Set(s)
		return true
	}
}

func mapDecoder(t reflect.Type) decodeFunc {
	elem := decoderOf(t.Elem())
	return func(data []byte, v reflect.Value) bool {
		if IsNull(data) {
			v.SetZero()
			return true
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(t))
		}
		e := reflect.New(t.Elem()).Elem()
		exact := true
		whole := Members(data, func(key []byte, plain bool, item []byte) bool {
			// A key with escapes or invalid UTF-8 is decoded by
			// encoding/json, the whole map with it.
			if exact = plain && utf8.Valid(key); !exact {
				return false
			}
			e.SetZero()
			if exact = elem(item, e); !exact {
				return false
			}
			v.SetMapIndex(reflect.ValueOf(string(key)).Convert(t.Key()), e)
			return true
		})
		return whole && exact
	}
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
	byName := make(map[string]*field, len(fields))
	folded := make(map[string]bool, len(fields))
	for i := range fields {
		fields[i].num = i
		byName[fields[i].name] = &fields[i]
		folded[strings.ToLower(fields[i].name)] = true
	}
	return func(data []byte, v reflect.Value) bool {
		if IsNull(data) {
			return true
		}
		exact := true
		var seen uint64
		whole := Members(data, func(key []byte, plain bool, item []byte) bool {
			if !plain || !isASCII(key) {
				exact = false
				return false
			}
			f := byName[string(key)]
			if f == nil {
				// A key that matches a field only when case is ignored
				// is that field's to encoding/json.
				exact = !folded[strings.ToLower(string(key))]
				return exact
			}
			if seen&(1<<f.num) != 0 {
				exact = false // given twice: encoding/json may merge the two
				return false
			}
			seen |= 1 << f.num
			exact = f.decode(item, v.FieldByIndex(f.index))
			return exact
		})
		return whole && exact
	}
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
	type candidate struct {
		name   string
		index  []int
		depth  int
		tagged bool
		typ    reflect.Type
	}
	type level struct {
		t     reflect.Type
		index []int
	}
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
				sf := l.t.Field(i)
				ft := sf.Type
				if sf.Anonymous {
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if slices.Contains(strings.Split(opts, ","), "string") {
					return nil, false
				}
				if !validTagName(name) {
					name = ""
				}
				index := append(slices.Clone(l.index), i)
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					if sf.Type.Kind() == reflect.Pointer {
						return nil, false
					}
					if embedded[ft]++; embedded[ft] > 1 {
						return nil, false
					}
					next = append(next, level{ft, index})
					continue
				}
				all = append(all, candidate{name: cmp.Or(name, sf.Name), index: index, depth: depth, tagged: name != "", typ: sf.Type})
			}
		}
		current = next
	}
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
				continue // encoding/json drops a name it cannot decide
			}
			winner = tagged[0]
		}
		if !isASCII([]byte(name)) {
			return nil, false
		}
		fields = append(fields, field{name: name, index: winner.index, decode: decoderOf(winner.typ)})
	}
	if len(fields) > 64 {
		return nil, false
	}
	lower := map[string]bool{}
	for _, f := range fields {
		if l := strings.ToLower(f.name); lower[l] {
			return nil, false
		} else {
			lower[l] = true
		}
	}
	return fields, true
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
