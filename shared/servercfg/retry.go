package servercfg

import (
	"fmt"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Bounds of retry settings. Zero fields take the relay's defaults.
const (
	MaxRetryAttempts = 1000
	MinRetryDelayMS  = 100
	MaxRetryDelayMS  = 3_600_000 // an hour
)

// CheckRetry checks retry settings a person chose.
func CheckRetry(r wire.Retry) error {
	switch {
	case r.Attempts < 0 || r.Attempts > MaxRetryAttempts:
		return fmt.Errorf("attempts must be between 1 and %d (0 for the default)", MaxRetryAttempts)
	case r.BaseDelayMS != 0 && (r.BaseDelayMS < MinRetryDelayMS || r.BaseDelayMS > MaxRetryDelayMS):
		return fmt.Errorf("the first delay must be between %d ms and %d ms (0 for the default)", MinRetryDelayMS, MaxRetryDelayMS)
	case r.MaxDelayMS != 0 && (r.MaxDelayMS < MinRetryDelayMS || r.MaxDelayMS > MaxRetryDelayMS):
		return fmt.Errorf("the longest delay must be between %d ms and %d ms (0 for the default)", MinRetryDelayMS, MaxRetryDelayMS)
	case r.BaseDelayMS != 0 && r.MaxDelayMS != 0 && r.MaxDelayMS < r.BaseDelayMS:
		return fmt.Errorf("the longest delay is shorter than the first")
	}
	return nil
}
