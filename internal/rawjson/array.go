package rawjson

// walkArray walks the array that starts at data[i] as WalkObject walks an
// object: fn gets the index each item starts at and returns the index
// after it.
func walkArray(data []byte, i int, fn func(start int) (end int, ok bool)) (int, bool) {
	if i >= len(data) || data[i] != '[' {
		return i, false
	}
	i = space(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1, true
	}
	for i < len(data) {
		var ok bool
		if i, ok = fn(i); !ok {
			return i, false
		}
		var more bool
		if i, more, ok = afterItem(data, i, ']'); !more {
			return i, ok
		}
	}
	return i, false
}
