package hook

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestConditionsKeepTransitionTimeWhenStatusUnchanged(t *testing.T) {
	then := metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	now := time.Date(2026, 1, 1, 0, 0, 0, 500, time.UTC)
	observed := []metav1.Condition{
		{Type: "A", Status: metav1.ConditionTrue, LastTransitionTime: then, Reason: "Old", Message: "old"},
		{Type: "B", Status: metav1.ConditionTrue, LastTransitionTime: then},
	}
	got := Conditions(observed, 3, now,
		Condition{Type: "A", Status: true, Reason: "New", Message: "new"},
		Condition{Type: "B", Status: false, Reason: "Down"},
		Condition{Type: "C", Status: true, Reason: "Fresh"})
	assert.Equal(t, then, got[0].LastTransitionTime, "same status keeps its time, even with a new reason")
	assert.Equal(t, "New", got[0].Reason)
	assert.Equal(t, metav1.NewTime(now.Truncate(time.Second)), got[1].LastTransitionTime, "a changed status takes now")
	assert.Equal(t, metav1.ConditionFalse, got[1].Status)
	assert.Equal(t, metav1.NewTime(now.Truncate(time.Second)), got[2].LastTransitionTime)
	for _, c := range got {
		assert.EqualValues(t, 3, c.ObservedGeneration)
	}
	assert.Equal(t, []string{"A", "B", "C"}, []string{got[0].Type, got[1].Type, got[2].Type}, "order as given")
}
