package metacontroller

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAsLastAppliedReturnsTheRecord(t *testing.T) {
	observed := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","uid":"u","resourceVersion":"7",
	  "annotations":{"metacontroller.k8s.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"},\"data\":{\"k\":\"v\"},\"x-unknown\":{\"kept\":true}}"}},
	  "data":{"k":"v"}}`
	got, err := AsLastApplied(json.RawMessage(observed))
	require.NoError(t, err)
	assert.JSONEq(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"},"x-unknown":{"kept":true}}`, string(got),
		"fields this service does not know survive")
}

func TestAsLastAppliedWithoutRecordDropsServerFields(t *testing.T) {
	observed := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","uid":"u","resourceVersion":"7","managedFields":[],
	  "ownerReferences":[{"uid":"p"}],"creationTimestamp":"2026-01-01T00:00:00Z","labels":{"a":"b"}},"data":{"k":"v"},"status":{"x":1}}`
	got, err := AsLastApplied(json.RawMessage(observed))
	require.NoError(t, err)
	assert.JSONEq(t, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"b"}},"data":{"k":"v"}}`, string(got))
}

func TestAsLastAppliedRejectsGarbage(t *testing.T) {
	_, err := AsLastApplied(json.RawMessage(`[1]`))
	assert.Error(t, err)
	_, err = AsLastApplied(json.RawMessage(`{"metadata":{"annotations":{"metacontroller.k8s.io/last-applied-configuration":"{"}}}`))
	assert.Error(t, err)
}
