package hook

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func TestConditionMessagesAreCut(t *testing.T) {
	long := strings.Repeat("é", MaxConditionMessage) // two bytes each
	conds := Conditions(nil, 1, time.Unix(0, 0), Condition{Type: "A", Message: long}, Condition{Type: "B", Message: "short"})
	require.Len(t, conds, 2)
	assert.LessOrEqual(t, len(conds[0].Message), MaxConditionMessage)
	assert.True(t, utf8.ValidString(conds[0].Message), "cut on a character boundary")
	assert.True(t, strings.HasSuffix(conds[0].Message, fmt.Sprintf(" ... (cut, %d bytes in all)", len(long))))
	assert.Equal(t, "short", conds[1].Message)

	assert.Equal(t, "abc", Truncate("abc", 3))
	exact := strings.Repeat("x", 64)
	assert.Equal(t, exact, Truncate(exact, 64))
	assert.Len(t, Truncate(exact+"y", 64), 64)
}
