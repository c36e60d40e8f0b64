package spelling

import "testing"

func TestClosest(t *testing.T) {
	known := []string{"barbican", "glance", "horizon", "keystone", "placement"}
	cases := map[string]struct {
		reason, name, want string
	}{
		"typo":      {"one letter off names the service", "glanse", "glance"},
		"case":      {"case does not count", "Keystone", "keystone"},
		"two edits": {"two edits still suggest", "plcaement", "placement"},
		"far":       {"a name near nothing suggests nothing", "nova", ""},
		"short":     {"edits must be fewer than half the letters", "gl", ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Closest(c.name, known); got != c.want {
				t.Errorf("%s: Closest(%q) = %q, want %q", c.reason, c.name, got, c.want)
			}
		})
	}
}

func TestClosestField(t *testing.T) {
	known := []string{"bucket", "bucketURLFormat", "host", "region"}
	for name, want := range map[string]string{"regon": "region", "bucketUrlFormat": "bucketURLFormat", "hx": "", "zzzzzz": ""} {
		if got := Closest(name, known); got != want {
			t.Errorf("Closest(%q) = %q, want %q", name, got, want)
		}
	}
}
