package main

import (
	"testing"
	"time"
)

func TestCallTimeoutAndResultLimitComeFromFlagsOrEnvironment(t *testing.T) {
	t.Setenv("SWITCHBOARD_CALL_TIMEOUT", "30s")
	t.Setenv("SWITCHBOARD_MAX_RESULT_BYTES", "8388608")
	fs := newFlagSet("serve")
	timeout := fs.Duration("call-timeout", time.Minute, "")
	limit := fs.Int("max-result-bytes", 1, "")
	if err := fs.parse(nil); err != nil || *timeout != 30*time.Second || *limit != 8<<20 {
		t.Fatalf("from the environment: %v, %d, %v", *timeout, *limit, err)
	}
	if err := checkLimits(*timeout, *limit); err != nil {
		t.Errorf("valid limits refused: %v", err)
	}

	fs = newFlagSet("serve")
	limit = fs.Int("max-result-bytes", 1, "")
	if err := fs.parse([]string{"--max-result-bytes", "65536"}); err != nil || *limit != 64<<10 {
		t.Fatalf("the flag beats the environment: %d, %v", *limit, err)
	}

	t.Setenv("SWITCHBOARD_MAX_RESULT_BYTES", "lots")
	fs = newFlagSet("serve")
	fs.Int("max-result-bytes", 1, "")
	if err := fs.parse(nil); err == nil {
		t.Error("a malformed $SWITCHBOARD_MAX_RESULT_BYTES was taken")
	}
	for _, bad := range []struct {
		timeout time.Duration
		limit   int
	}{{0, 4 << 20}, {time.Minute, 1000}, {time.Minute, 1 << 30}} {
		if err := checkLimits(bad.timeout, bad.limit); err == nil {
			t.Errorf("checkLimits(%v, %d) passed", bad.timeout, bad.limit)
		}
	}
}
