package glancestack

import (
	"sync"
	"testing"

	"github.com/c5c3/glance-hooks/test/services"
)

// Services are the servers every stack of a test shares: one MariaDB (each
// stack gets a database and user of its own on it), Keystone (its own
// database on the same MariaDB) and memcached.
type Services struct {
	DB        *services.MariaDB
	Keystone  *services.Keystone
	Memcached *services.Memcached

	mu        sync.Mutex
	databases map[string]bool
	users     map[string]services.Credentials
}

// StartServices starts MariaDB, Keystone (bootstrapped; admin, public and
// internal identity endpoints) and memcached, all stopped by t's cleanup.
// Start them in the test whose subtests run the stacks.
func StartServices(t testing.TB) *Services {
	t.Helper()
	db := services.StartMariaDB(t)
	return &Services{
		DB:        db,
		Keystone:  services.StartKeystone(t, db),
		Memcached: services.StartMemcached(t),
		databases: map[string]bool{},
		users:     map[string]services.Credentials{},
	}
}

// Password is a password for a test that holds every character known to
// break something on the way to glance-api: '@' ':' '/' '%' (URL user
// info) and '$', which oslo.config reads as an interpolation in files and
// in OS_<GROUP>__<OPTION> environment values alike.
func Password() string { return services.RandomSecret() + "$pass" }

// claimDatabase records that a stack uses a database and a database user,
// so two stacks on the shared MariaDB never share either (a second
// CreateUser would change the first stack's password).
func (s *Services) claimDatabase(t testing.TB, database, user string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.databases["database "+database] || s.databases["user "+user] {
		t.Fatalf("glancestack: database %s or user %s is used by another stack; give Options.Database and DBUser names of their own", database, user)
	}
	s.databases["database "+database], s.databases["user "+user] = true, true
}

// ServiceUser is a Keystone service user as the guide's standalone section
// makes it (project service, role service), with a Password, made once per
// name: stacks naming the same user share it.
func (s *Services) ServiceUser(t testing.TB, name string) services.Credentials {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.users[name]; ok {
		return c
	}
	c := s.Keystone.ServiceUser(t, name, Password())
	s.users[name] = c
	return c
}
