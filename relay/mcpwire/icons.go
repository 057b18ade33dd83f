package mcpwire

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Icons. A browser that loads an icon from a server's URL tells that host
// who looks at the dashboard and when, and an SVG is a document that can
// carry scripts and references of its own. So the dashboard only ever gets
// icons as data: URIs of raster images: PNG, JPEG, GIF or WebP, whose bytes
// are checked to be of the declared type, each at most [wire.MaxIconBytes].
// A server's https icons are fetched by the relay, through the [Converter]'s
// HTTP client (the network guard, without the server's credentials), under
// a time and size limit, and inlined; http icons, SVG and anything else are
// dropped. Fetched icons are remembered by URL for the converter's life,
// failures included, so a listing again does not fetch them again.

// Caps on icons.
const (
	maxIconsPerItem  = 4
	maxIconSizes     = 8
	maxIconSizeRunes = 32
	// maxListIconBytes caps the icons of one list: past it, items go without.
	maxListIconBytes = 2 << 20
	// maxIconFetches caps the new URLs fetched for one listing, and
	// iconFetchBudget the time they take together.
	maxIconFetches    = 32
	iconFetchBudget   = 5 * time.Second
	iconFetchParallel = 4
	maxIconCache      = 512
	maxIconRedirects  = 3
)

// iconTypes are the image types an icon may have.
var iconTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// maxIconData is the most image bytes whose data: URI fits in MaxIconBytes.
const maxIconData = (wire.MaxIconBytes - len("data:image/webp;base64,")) / 4 * 3

// convertIcons keeps the icons that can be shown: data: URIs that pass
// [dataIcon], and https URLs, which [Converter.inlineIcons] must replace
// before the list is shown.
func convertIcons(icons []mcp.Icon) []wire.Icon {
	var out []wire.Icon
	for _, ic := range icons {
		if len(out) == maxIconsPerItem {
			break
		}
		w := wire.Icon{Sizes: iconSizes(ic.Sizes)}
		if th := string(ic.Theme); th == "light" || th == "dark" {
			w.Theme = th
		}
		switch {
		case strings.HasPrefix(ic.Source, "data:"):
			src, typ, ok := dataIcon(ic.Source)
			if !ok {
				continue
			}
			w.Src, w.MIMEType = src, typ
		case isHTTPS(ic.Source):
			w.Src = ic.Source
		default:
			continue
		}
		out = append(out, w)
	}
	return out
}

func iconSizes(sizes []string) []string {
	var out []string
	for _, s := range sizes {
		if s = line(s, maxIconSizeRunes); s != "" && len(out) < maxIconSizes {
			out = append(out, s)
		}
	}
	return out
}

func isHTTPS(src string) bool {
	u, err := url.Parse(src)
	return err == nil && u.Scheme == "https" && u.Host != "" && len(src) <= maxURIRunes
}

// dataIcon checks a data: URI: base64 data of an allowed image type whose
// bytes are of that type, within MaxIconBytes. It returns the URI in a
// canonical form, and the type.
func dataIcon(src string) (string, string, bool) {
	if len(src) > wire.MaxIconBytes+64 {
		return "", "", false
	}
	meta, data, ok := strings.Cut(strings.TrimPrefix(src, "data:"), ",")
	if !ok {
		return "", "", false
	}
	params := strings.Split(meta, ";")
	if params[len(params)-1] != "base64" {
		return "", "", false
	}
	declared, _, err := mime.ParseMediaType(params[0])
	if err != nil {
		return "", "", false
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(b) > maxIconData {
		return "", "", false
	}
	return imageURI(b, declared)
}

// imageURI is the data: URI of image bytes b, when they are of an allowed
// type and match the declared type (when there is one).
func imageURI(b []byte, declared string) (string, string, bool) {
	sniffed := http.DetectContentType(b)
	if !iconTypes[sniffed] || (declared != "" && declared != sniffed) {
		return "", "", false
	}
	return "data:" + sniffed + ";base64," + base64.StdEncoding.EncodeToString(b), sniffed, true
}

// iconCache remembers fetched icons by URL: the data: URI, or "" for an
// icon that could not be used. The zero value is ready; it is safe for
// concurrent use.
type iconCache struct {
	mu sync.Mutex
	m  map[string]string
}

func (ic *iconCache) get(u string) (string, bool) {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	v, ok := ic.m[u]
	return v, ok
}

func (ic *iconCache) put(u, v string) {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	if ic.m == nil {
		ic.m = map[string]string{}
	}
	if len(ic.m) < maxIconCache {
		ic.m[u] = v
	}
}

// inlineIcons replaces the https icons of a list's items (each given by a
// pointer to its icons) by data: URIs, fetching the ones not fetched
// before, and drops those it cannot use and those past the list's icon
// budget. Afterwards every icon of the items is a data: URI.
func (cv *Converter) inlineIcons(ctx context.Context, items []*[]wire.Icon) {
	cv.fetchIcons(ctx, items)
	budget := maxListIconBytes
	for _, icons := range items {
		var kept []wire.Icon
		for _, ic := range *icons {
			if !strings.HasPrefix(ic.Src, "data:") {
				v, _ := cv.cache.get(ic.Src)
				if v == "" {
					continue
				}
				ic.Src = v
				ic.MIMEType = strings.TrimPrefix(v[:strings.IndexByte(v, ';')], "data:")
			}
			if len(ic.Src) > budget {
				continue
			}
			budget -= len(ic.Src)
			kept = append(kept, ic)
		}
		*icons = kept
	}
}

// iconsOf returns pointers to the icons of each item of a list.
func iconsOf[T any](items []T, icons func(*T) *[]wire.Icon) []*[]wire.Icon {
	out := make([]*[]wire.Icon, len(items))
	for i := range items {
		out[i] = icons(&items[i])
	}
	return out
}

// fetchIcons fetches the https icons of items not fetched before, at most
// maxIconFetches, a few at a time, within iconFetchBudget.
func (cv *Converter) fetchIcons(ctx context.Context, items []*[]wire.Icon) {
	var todo []string
	seen := map[string]bool{}
	for _, icons := range items {
		for _, ic := range *icons {
			if strings.HasPrefix(ic.Src, "data:") || seen[ic.Src] {
				continue
			}
			seen[ic.Src] = true
			if _, ok := cv.cache.get(ic.Src); !ok && len(todo) < maxIconFetches {
				todo = append(todo, ic.Src)
			}
		}
	}
	if len(todo) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, iconFetchBudget)
	defer cancel()
	urls := make(chan string)
	var wg sync.WaitGroup
	for range min(iconFetchParallel, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range urls {
				v, err := cv.fetchIcon(ctx, u)
				if err != nil {
					cv.log.Debug("icon not used", "error", wire.Sanitize(err.Error(), wire.MaxErrorMessage))
				}
				cv.cache.put(u, v)
			}
		}()
	}
	for _, u := range todo {
		urls <- u
	}
	close(urls)
	wg.Wait()
}

// errNotHTTPS refuses a redirect of an icon to anything but https, or one
// too many.
var errNotHTTPS = errors.New("an icon is fetched over https only, through few redirects")

// errNoIconClient fails the fetch of a converter without an HTTP client.
var errNoIconClient = errors.New("the relay fetches no icons without its guarded HTTP client")

// fetchIcon fetches one icon and returns its data: URI.
func (cv *Converter) fetchIcon(ctx context.Context, u string) (string, error) {
	if cv.icons == nil {
		return "", errNoIconClient
	}
	hc := *cv.icons
	guard := hc.CheckRedirect // the network guard's, kept
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Scheme != "https" || len(via) >= maxIconRedirects {
			return errNotHTTPS
		}
		if guard != nil {
			return guard(req, via)
		}
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "image/png, image/jpeg, image/gif, image/webp")
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("icon: HTTP %d", resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, int64(maxIconData)+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxIconData {
		return "", fmt.Errorf("icon over %d bytes", maxIconData)
	}
	declared, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if !iconTypes[declared] {
		declared = "" // a server's generic type; the bytes decide
	}
	src, _, ok := imageURI(b, declared)
	if !ok {
		return "", errors.New("icon: not a PNG, JPEG, GIF or WebP image")
	}
	return src, nil
}
