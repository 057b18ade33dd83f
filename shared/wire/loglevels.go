package wire

import "slices"

// LogLevel is the severity of a server's log message (MCP logging, the
// RFC 5424 severities), and the lowest severity a person asks a server for.
type LogLevel string

// Log levels, least severe first.
const (
	LevelDebug     LogLevel = "debug"     // detail for debugging
	LevelInfo      LogLevel = "info"      // an ordinary message
	LevelNotice    LogLevel = "notice"    // normal but significant
	LevelWarning   LogLevel = "warning"   // something may be wrong
	LevelError     LogLevel = "error"     // something failed
	LevelCritical  LogLevel = "critical"  // a part of the server failed
	LevelAlert     LogLevel = "alert"     // someone must act now
	LevelEmergency LogLevel = "emergency" // the server is unusable
)

// LogLevels lists the levels least severe first.
var LogLevels = []LogLevel{LevelDebug, LevelInfo, LevelNotice, LevelWarning, LevelError, LevelCritical, LevelAlert, LevelEmergency}

// LevelRank orders levels: debug is 0, emergency 7, an unknown level -1.
func LevelRank(level LogLevel) int { return slices.Index(LogLevels, level) }
