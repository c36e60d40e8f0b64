package server

import "net/http"

// Limits on the arrays of a request body. Decoding can make one small JSON
// item a large Go value (an empty object in a Deployment's container list
// becomes a whole container), so the memory a request needs follows the
// number of array items as much as its bytes. The API server's own objects
// stay far below both: conditions hold at most 16, a Glance's
// status.backends one item per attached backend, and a body of the largest
// size (8 MiB) holds a few hundred thousand items only when they are empty.
const (
	// MaxArrayItems is the most items one array may hold.
	MaxArrayItems = 10000
	// MaxArrayItemsTotal is the most items all arrays of a body may hold.
	MaxArrayItemsTotal = 200000
)

// countArrayItems counts the items of every array in a JSON body, refusing
// (413) a body over MaxArrayItems or MaxArrayItemsTotal. It only looks at
// the structure: a malformed body is left for the decoder to describe.
func countArrayItems(body []byte) (int, error) {
	// open[i] is true for an array, false for an object; items[i] counts
	// the array's items so far.
	var open []bool
	var items []int
	total := 0
	inString, escaped, expectItem := false, false, false
	for _, b := range body {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if expectItem && b != ']' {
			// The first character of an array's next item (expectItem is
			// reset below, as for every character).
			items[len(items)-1]++
			total++
			if items[len(items)-1] > MaxArrayItems {
				return total, newHTTPError(http.StatusRequestEntityTooLarge, "request body holds an array of more than %d items", MaxArrayItems)
			}
			if total > MaxArrayItemsTotal {
				return total, newHTTPError(http.StatusRequestEntityTooLarge, "request body holds more than %d array items in all", MaxArrayItemsTotal)
			}
		}
		expectItem = false
		switch b {
		case '"':
			inString = true
		case '[':
			open = append(open, true)
			items = append(items, 0)
			expectItem = true
		case '{':
			open = append(open, false)
			items = append(items, 0)
		case ']', '}':
			if len(open) > 0 {
				open, items = open[:len(open)-1], items[:len(items)-1]
			}
		case ',':
			if len(open) > 0 && open[len(open)-1] {
				expectItem = true
			}
		}
	}
	return total, nil
}
