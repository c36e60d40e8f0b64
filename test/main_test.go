package test

import (
	"os"
	"testing"

	"github.com/c5c3/glance-hooks/test/testbin"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}
