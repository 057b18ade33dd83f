package dashboard

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// workerFetch is the fetch handler of go-app's service worker, which
// answers every request it has cached (the app's code) from the cache.
const workerFetch = `self.addEventListener("fetch", (event) => {
  event.respondWith(fetchWithCache(event.request));
});`

// workerFetchFramed answers the requests of a framed page (an embedded
// dashboard, where the browser shares the worker a top-level dashboard of
// the relay registered) from the network only, so that an embed never runs
// code older than the relay that serves it.
const workerFetchFramed = `self.addEventListener("fetch", (event) => {
  event.respondWith(fetchFor(event));
});

async function fetchFor(event) {
  if (event.request.mode === "navigate" && event.request.destination !== "document") {
    return fetch(event.request);
  }
  const client = event.clientId ? await self.clients.get(event.clientId) : null;
  if (client && client.frameType !== "top-level") {
    return fetch(event.request);
  }
  return fetchWithCache(event.request);
}`

// serviceWorker is go-app's worker with workerFetchFramed for its fetch
// handler. New panics if go-app's worker no longer has the handler this
// replaces, rather than serve a worker that caches embeds.
var serviceWorker = func() string {
	if strings.Count(app.DefaultAppWorkerJS, workerFetch) != 1 {
		panic("dashboard: go-app's service worker changed: its fetch handler is not the one replaced")
	}
	return strings.Replace(app.DefaultAppWorkerJS, workerFetch, workerFetchFramed, 1)
}()
