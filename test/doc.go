// Package test holds the JSON fixture tests of every hook and the HTTP-level
// tests of the transport. Fixtures live in fixtures/<hook>/<case>/ as
// request.json (the body posted) and response.json (the status code and body
// the service answers); see fixtures/README.md.
package test
