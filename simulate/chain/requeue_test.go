package chain

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// A hook call that fails is made again with the same request, up to the
// bound; one that keeps failing fails the walk with every error.
func TestRequeueRetriesFailedCalls(t *testing.T) {
	cases := map[string]struct {
		reason   string
		failures int
		attempts int
		wantErr  bool
		want     int
	}{
		"no failure":        {"a call that works is made once", 0, 3, false, 1},
		"one failure":       {"a failed call is made again and its answer is used", 1, 3, false, 2},
		"up to the bound":   {"the last allowed call may be the one that works", 2, 3, false, 3},
		"past the bound":    {"a call that keeps failing fails after the bound, not forever", 5, 3, true, 3},
		"no bound is given": {"zero attempts still calls once", 1, 0, true, 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var syncs, customizes int
			var seen []time.Time
			c := Requeue(Controller{
				Sync: func(_ *metacontroller.SyncRequest, now time.Time) (*metacontroller.SyncResponse, error) {
					syncs++
					seen = append(seen, now)
					if syncs <= tc.failures {
						return nil, errors.New("connection refused")
					}
					return &metacontroller.SyncResponse{ResyncAfterSeconds: 7}, nil
				},
				Customize: func(*metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error) {
					customizes++
					if customizes <= tc.failures {
						return nil, errors.New("connection reset")
					}
					return &metacontroller.CustomizeResponse{}, nil
				},
			}, tc.attempts)
			resp, err := c.Sync(&metacontroller.SyncRequest{}, t0)
			_, cerr := c.Customize(&metacontroller.CustomizeRequest{})
			if tc.wantErr {
				if err == nil || cerr == nil {
					t.Fatalf("%s: want errors, got %v and %v", tc.reason, err, cerr)
				}
			} else if err != nil || cerr != nil || resp.ResyncAfterSeconds != 7 {
				t.Fatalf("%s: got %v, %v, %+v", tc.reason, err, cerr, resp)
			}
			if diff := cmp.Diff([]int{tc.want, tc.want}, []int{syncs, customizes}); diff != "" {
				t.Errorf("%s: calls (-want +got):\n%s", tc.reason, diff)
			}
			for _, at := range seen {
				if !at.Equal(t0) {
					t.Errorf("%s: a retry is made at the same time, got %v", tc.reason, at)
				}
			}
		})
	}
}
