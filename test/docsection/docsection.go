// Package docsection reads a part of a project document for the tests that
// hold code and docs in step.
package docsection

import (
	"os"
	"strings"
	"testing"
)

// After is what file (a path from the test's package) says after heading,
// to its end; the test fails when the file or the heading is missing.
func After(t testing.TB, file, heading string) string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("reading %s: %v", file, err)
	}
	_, rest, ok := strings.Cut(string(raw), heading)
	if !ok {
		t.Fatalf("%s has no %q", file, heading)
	}
	return rest
}

// MakeWords are the words a Makefile (a path from the test's package) sets
// variable to on its line `variable := word word ...`; the test fails when
// the file or the line is missing.
func MakeWords(t testing.TB, makefile, variable string) []string {
	t.Helper()
	line, _, _ := strings.Cut(After(t, makefile, "\n"+variable+" := "), "\n")
	return strings.Fields(line)
}
