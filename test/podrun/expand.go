package podrun

import "strings"

// Expand replaces $(NAME) references the way the kubelet does in a
// container's env values, command and args:
//
//   - $(NAME) becomes the value lookup finds; a name lookup does not know
//     stays as written, $(NAME) included;
//   - $$ is an escaped $: $$(NAME) becomes the literal $(NAME);
//   - a $ before anything else, and a $( that is never closed, stay as
//     written.
func Expand(s string, lookup func(name string) (string, bool)) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch next := s[i+1]; {
		case next == '$':
			b.WriteByte('$')
			i++
		case next == '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				// Unclosed: "$(" is kept and scanning goes on after it.
				b.WriteString("$(")
				i++
				continue
			}
			name := s[i+2 : i+2+end]
			if v, ok := lookup(name); ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + name + ")")
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}
