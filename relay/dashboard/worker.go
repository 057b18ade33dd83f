package dashboard

import (
	"errors"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// workerFetch is the fetch handler of go-app's service worker, which
// answers every request it has cached (the app's code) from the cache.
const workerFetch = `self.addEventListener("fetch", (event) => {
  event.respondWith(fetchWithCache(event.request));
});`

// workerFetchEdited leaves navigations to the network (the page always
// comes from the relay, with the person's state), and answers the requests
// of a framed page (an embedded dashboard, where the browser shares the
// worker a top-level dashboard of the relay registered) from the network
// only, so that an embed never runs code older than the relay that serves
// it. The rest comes from the cache.
const workerFetchEdited = `self.addEventListener("fetch", (event) => {
  if (event.request.mode === "navigate") {
    return;
  }
  event.respondWith(fetchFor(event));
});

async function fetchFor(event) {
  const client = event.clientId ? await self.clients.get(event.clientId) : null;
  if (client && client.frameType !== "top-level") {
    return fetch(event.request);
  }
  return fetchWithCache(event.request);
}`

// workerEdits are what the relay changes in go-app's service worker: it
// never stores "/" when it installs, and fetches as workerFetchEdited says.
var workerEdits = []struct{ from, to string }{
	{
		"const resourcesToCache = {{.ResourcesToCache}};",
		`const resourcesToCache = {{.ResourcesToCache}}.filter((url) => url !== "/");`,
	},
	{workerFetch, workerFetchEdited},
}

// serviceWorker returns go-app's service worker template with workerEdits;
// it fails if go-app's worker no longer has what they replace, rather than
// serve a worker that caches pages or embeds.
func serviceWorker() (string, error) {
	s := app.DefaultAppWorkerJS
	for _, e := range workerEdits {
		if strings.Count(s, e.from) != 1 {
			return "", errors.New("dashboard: go-app's service worker changed; review workerEdits")
		}
		s = strings.Replace(s, e.from, e.to, 1)
	}
	return s, nil
}
