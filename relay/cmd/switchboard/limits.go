package main

import (
	"fmt"
	"time"
)

// Bounds of --max-result-bytes: below, ordinary results would fail; above,
// one result could hold a dashboard's memory hostage.
const (
	minResultBytes = 64 << 10
	maxResultBytes = 256 << 20
)

// checkLimits checks --call-timeout and --max-result-bytes.
func checkLimits(callTimeout time.Duration, maxResult int) error {
	if callTimeout <= 0 {
		return fmt.Errorf("--call-timeout %v: must be positive", callTimeout)
	}
	if maxResult < minResultBytes || maxResult > maxResultBytes {
		return fmt.Errorf("--max-result-bytes %d: must be between %d and %d", maxResult, minResultBytes, maxResultBytes)
	}
	return nil
}
