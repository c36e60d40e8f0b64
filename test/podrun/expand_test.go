package podrun

import "testing"

func TestExpandFollowsTheKubeletsRules(t *testing.T) {
	vars := map[string]string{"VAR_A": "A", "VAR_B": "B", "EMPTY": "", "WITH_DOLLAR": "$(VAR_A)"}
	lookup := func(n string) (string, bool) { v, ok := vars[n]; return v, ok }
	cases := map[string]struct{ in, want string }{
		"plain text":                        {"no refs", "no refs"},
		"one reference":                     {"$(VAR_A)", "A"},
		"references inside text":            {"x$(VAR_A)-$(VAR_B)y", "xA-By"},
		"an empty value":                    {"[$(EMPTY)]", "[]"},
		"an unknown name stays":             {"$(NOPE)-$(VAR_A)", "$(NOPE)-A"},
		"$$ escapes the reference":          {"$$(VAR_A)", "$(VAR_A)"},
		"$$$ then a reference":              {"$$$(VAR_A)", "$A"},
		"$$$$ is two dollars":               {"$$$$(VAR_A)", "$$(VAR_A)"},
		"a lone $ stays":                    {"cost $5 $", "cost $5 $"},
		"$ before a letter stays":           {"$VAR_A", "$VAR_A"},
		"unclosed reference stays":          {"$(VAR_A", "$(VAR_A"},
		"a name runs to the first )":        {"$($(VAR_A)", "$($(VAR_A)"},
		"values are not expanded again":     {"$(WITH_DOLLAR)", "$(VAR_A)"},
		"empty name is unknown":             {"$()", "$()"},
		"nested parentheses end at first )": {"$(VAR_A))", "A)"},
		"trailing $$":                       {"a$$", "a$"},
	}
	for name, c := range cases {
		if got := Expand(c.in, lookup); got != c.want {
			t.Errorf("%s: Expand(%q) = %q, want %q", name, c.in, got, c.want)
		}
	}
}
