package chain

// Condition is the status condition of a type of an object in the JSON
// shape the World keeps it, and whether the object has one.
func Condition(o Object, typ string) (map[string]any, bool) {
	st, _ := o["status"].(map[string]any)
	conds, _ := st["conditions"].([]any)
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return m, true
		}
	}
	return nil, false
}
