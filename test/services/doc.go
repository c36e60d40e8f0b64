// Package services starts the real servers Glance talks to, on loopback, for
// tests: MariaDB and memcached (Debian's packages), Keystone (Debian's
// keystone under Debian's uWSGI, bootstrapped with keystone-manage) and an
// S3 server (versitygw, which checks SigV4 signatures). Each runs on free
// loopback ports with data directories of its own, logs into a file shown
// with its secrets masked when the test fails, and is stopped and removed by
// t.Cleanup. Every wait is bounded.
//
// A server that is not installed skips the test, saying what to install,
// unless REQUIRE_SERVICES is set (`make test` sets it), in which case it is
// a failure. hack/install-services.sh installs the Debian packages;
// hack/install-versitygw.sh builds versitygw.
//
//	db := services.StartMariaDB(t)
//	db.CreateDatabase(t, "glance")
//	db.CreateUser(t, "glance", password, "glance")
//	url := db.URL("glance", password, "glance") // mysql+pymysql://…?charset=utf8
//	ks := services.StartKeystone(t, db)
//	ks.ServiceUser(t, "glance", servicePassword)
//	token := ks.Token(t, services.Credentials{User: "glance", Password: servicePassword, Project: "service"})
package services
