// Package catalogs holds the cross-check of the option catalog generator
// (hack/optioncatalog) against Debian's glance: the catalog the generator
// makes from the sources of the versions Debian 12 ships (testdata) must
// agree with oslo-config-generator run on the installed packages.
//
// The test skips when the packages are not installed (`make
// datapath-deps` installs them), unless REQUIRE_SERVICES is set, as `make
// test` sets it; then that is a failure.
package catalogs
