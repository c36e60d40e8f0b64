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
	var c arrayCounter
	for _, b := range body {
		if c.inString {
			c.stringByte(b)
			continue
		}
		if b == ' ' || b == '\t' || b == '\n' || b == '\r' {
			continue
		}
		if c.expectItem && b != ']' {
			// The first character of an array's next item (expectItem is
			// reset below, as for every character).
			if err := c.item(); err != nil {
				return c.total, err
			}
		}
		c.expectItem = false
		c.structure(b)
	}
	return c.total, nil
}

// arrayCounter is countArrayItems' state between bytes.
type arrayCounter struct {
	// open[i] is true for an array, false for an object; items[i] counts
	// the array's items so far.
	open  []bool
	items []int
	total int
	// inString and escaped: within a string, after a backslash;
	// expectItem: the next character starts an item of the open array.
	inString, escaped, expectItem bool
}

// stringByte follows a string to its closing quote.
func (c *arrayCounter) stringByte(b byte) {
	switch {
	case c.escaped:
		c.escaped = false
	case b == '\\':
		c.escaped = true
	case b == '"':
		c.inString = false
	}
}

// item counts one item of the innermost array against the limits.
func (c *arrayCounter) item() error {
	c.items[len(c.items)-1]++
	c.total++
	if c.items[len(c.items)-1] > MaxArrayItems {
		return newHTTPError(http.StatusRequestEntityTooLarge, "request body holds an array of more than %d items", MaxArrayItems)
	}
	if c.total > MaxArrayItemsTotal {
		return newHTTPError(http.StatusRequestEntityTooLarge, "request body holds more than %d array items in all", MaxArrayItemsTotal)
	}
	return nil
}

// structure follows what opens and closes arrays, objects and strings, and
// the commas between an array's items.
func (c *arrayCounter) structure(b byte) {
	switch b {
	case '"':
		c.inString = true
	case '[':
		c.open = append(c.open, true)
		c.items = append(c.items, 0)
		c.expectItem = true
	case '{':
		c.open = append(c.open, false)
		c.items = append(c.items, 0)
	case ']', '}':
		if len(c.open) > 0 {
			c.open, c.items = c.open[:len(c.open)-1], c.items[:len(c.items)-1]
		}
	case ',':
		if len(c.open) > 0 && c.open[len(c.open)-1] {
			c.expectItem = true
		}
	}
}
