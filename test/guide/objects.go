package guide

import (
	"strings"

	"sigs.k8s.io/yaml"
)

// Objects are the objects of a YAML stream of the guide (documents split by
// "---" lines), in order.
func Objects(docs string) ([]map[string]any, error) {
	var out []map[string]any
	for _, doc := range strings.Split(docs, "\n---\n") {
		var o map[string]any
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			return nil, err
		}
		if o != nil {
			out = append(out, o)
		}
	}
	return out, nil
}

// Secrets are the Secrets the guide has its reader create in namespace,
// with stand-in values: the S3 credentials, the database's and the service
// user's.
func Secrets(namespace string) []map[string]any {
	secret := func(name string, data map[string]any) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": name, "namespace": namespace}, "stringData": data}
	}
	return []map[string]any{
		secret("garage-s3-credentials", map[string]any{"access-key-id": "GKexample0001", "secret-access-key": "secretexample0001"}),
		secret("glance-db", map[string]any{"username": "glance", "password": "db-secret-0001"}),
		secret("glance-service-user", map[string]any{"password": "service-secret-0001"}),
	}
}
