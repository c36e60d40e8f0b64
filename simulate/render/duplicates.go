package render

import (
	"fmt"

	yamlv3 "go.yaml.in/yaml/v3"
)

// checkDuplicateKeys refuses a document that sets one key twice in a
// mapping. The YAML reader (and encoding/json) keep the last value without
// a word, so `replicas: 1` ... `replicas: 3` would render one of them while
// the reader believes the other; kubectl apply refuses such a file too.
// Both lines are named, counted from the file (the document starts at
// firstLine). A document that does not parse is left to the reader, which
// says why.
func checkDuplicateKeys(text []byte, name string, firstLine int) error {
	var root yamlv3.Node
	if yamlv3.Unmarshal(text, &root) != nil {
		return nil
	}
	return duplicateIn(&root, nil, name, firstLine)
}

func duplicateIn(n *yamlv3.Node, path fieldPath, name string, firstLine int) error {
	switch n.Kind {
	case yamlv3.DocumentNode:
		for _, c := range n.Content {
			if err := duplicateIn(c, path, name, firstLine); err != nil {
				return err
			}
		}
	case yamlv3.SequenceNode:
		for i, c := range n.Content {
			if err := duplicateIn(c, path.child(i), name, firstLine); err != nil {
				return err
			}
		}
	case yamlv3.MappingNode:
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yamlv3.ScalarNode && k.Tag != "!!merge" {
				at := firstLine + k.Line - 1
				if first, ok := seen[k.Value]; ok {
					return inputErr(fmt.Sprintf("%s:%d", name, at), "duplicate key %s: set at line %d and again at line %d; only one may be given",
						path.child(k.Value), first, at)
				}
				seen[k.Value] = at
			}
			if err := duplicateIn(n.Content[i+1], path.child(k.Value), name, firstLine); err != nil {
				return err
			}
		}
	}
	return nil
}
