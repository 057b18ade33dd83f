package main

import (
	"os"
	"testing"
	"time"
)

func TestCPUTimeGrowsAsTheProcessComputes(t *testing.T) {
	before, ok := cpuTime(os.Getpid())
	if !ok {
		t.Skip("no /proc here")
	}
	x := 0
	for start := time.Now(); time.Since(start) < 5*time.Second; {
		for i := range 1_000_000 {
			x += i
		}
		if now, _ := cpuTime(os.Getpid()); now > before {
			return
		}
	}
	t.Errorf("CPU time stayed %v for 5 s of computing (%d)", before, x)
}
