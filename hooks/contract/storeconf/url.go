package storeconf

import "github.com/c5c3/glance-hooks/hooks/contract/inivalue"

// URLProblems is inivalue.URLProblems, under the name storeconf's callers
// know: the API package's spec parts check URLs with it too, and may not
// import this package.
func URLProblems(v, credentialsFrom string) []string { return inivalue.URLProblems(v, credentialsFrom) }
