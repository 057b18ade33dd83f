package web

// Paths of the dashboard's static files, as the page asks for them. The
// relay serves /web/... from package static.
const (
	StylesheetPath = "/web/switchboard.css"
	IconSVGPath    = "/web/icons/icon.svg"
	IconPath       = "/web/icons/icon-192.png"
	IconLargePath  = "/web/icons/icon-512.png"
)
