package mcpwire

// Caps on what a server can make a dashboard show; see the package
// documentation.
const (
	maxKeyRunes          = 256  // tool, prompt and argument names
	maxURIRunes          = 2048 // resource URIs and URI templates
	maxTitleRunes        = 256
	maxVersionRunes      = 64
	maxMIMERunes         = 128
	maxDescriptionRunes  = 8192
	maxInstructionsRunes = 8192
	maxProgressRunes     = 500
	maxPromptArguments   = 64
	maxSchemaBytes       = 64 << 10
	maxAnnotationsBytes  = 4 << 10
)
