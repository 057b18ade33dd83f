package netguard

import "strings"

// reasonMetadataName is why a metadata host name is refused.
const reasonMetadataName = "cloud metadata host name"

// metadataHosts are names that cloud platforms resolve to their instance
// metadata services. They are refused before any resolution; the addresses
// they resolve to are blocked as well.
var metadataHosts = map[string]bool{
	"metadata":                   true, // GCE short name
	"metadata.google.internal":   true, // GCE
	"metadata.goog":              true, // GCE
	"instance-data":              true, // AWS EC2
	"instance-data.ec2.internal": true, // AWS EC2
	"metadata.tencentyun.com":    true, // Tencent Cloud
}

// checkHostName returns a [*BlockedError] if host names a metadata service.
// Case and a trailing dot do not matter.
func checkHostName(host string) error {
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if metadataHosts[name] {
		return &BlockedError{Host: host, Reason: reasonMetadataName}
	}
	return nil
}
