// The MCP Apps sandbox proxy (served by the relay on the Apps origin). It
// tells the host it is ready, frames the view the host sends (srcdoc, in a
// sandbox without allow-same-origin, under this page's policy), then
// forwards every other message both ways, unchanged. It hears only the host
// (its parent, from the dashboard's origin) and the view's frame, and caps
// what the view sends: a view that floods is stopped.
//
// The dashboard frames this page sandboxed without allow-same-origin too:
// its origin is opaque, and it needs nothing of the Apps origin's (no
// storage, no cookies). Chromium runs sandboxed frames of one site in one
// process, so the view runs in this page's process and on its thread: what
// the view posts reaches this script without crossing the browser's
// process, and stop() removes the view's frame before the view runs again:
// a flooding view ends within its first burst, whatever the load.
(function () {
  "use strict";
  var MAX_BYTES = 1 << 20; // one message of the view, as JSON
  // A view may send BURST messages at once and RATE a second for as long
  // as it likes; one more stops it. The rate is low: a browser that runs
  // the view in another process than this page queues what the view posts
  // faster in its own, and hands the messages over more slowly than they
  // come, so that a cap on what arrives in a second may never be reached
  // while the browser falls behind for good.
  var BURST = 200, RATE = 50;
  // Of what the view may send, this page passes on at most PASS messages a
  // second, as it posts them: the host reads no more. Of the rest, a
  // request gets the host's refusal and anything else is dropped.
  // The host counts too, but on its own clock: a host slowed down (a
  // loaded machine) gets a burst spread out, as if the view kept to the
  // rate, and would read and run all of it.
  var PASS = 50;
  // Of those, the ones that cost the relay a request pass at most REQUESTS
  // a second, and the view gets the host's refusal for the rest: the
  // host's own cap on them (maxViewRequests and reachesRelay in
  // web/app_bridge.go), on the view's clock.
  var REQUESTS = 10;
  var RELAYED = { "tools/call": true, "resources/read": true, "notifications/message": true };
  var q = new URLSearchParams(location.search);
  var host = q.get("host");
  var allow = q.getAll("allow").filter(function (a) {
    return ["camera", "microphone", "geolocation", "clipboard-write"].indexOf(a) >= 0;
  });
  var frame = null;
  var budget = BURST, lastTick = Date.now(), stopped = false;
  // The second whose messages are counted, and how many of them passed.
  var second = 0, passed = 0, requested = 0;

  function toHost(msg) {
    window.parent.postMessage(msg, host);
  }

  function toView(msg) {
    frame.contentWindow.postMessage(msg, "*");
  }

  function notify(method, params) {
    toHost({ jsonrpc: "2.0", method: method, params: params || {} });
  }

  function fromView(data) {
    if (data && typeof data.method === "string" && data.method.indexOf("ui/notifications/sandbox-") === 0) {
      return; // the proxy's own messages: never the view's to send
    }
    var now = Date.now();
    budget = Math.min(BURST, budget + (now - lastTick) * RATE / 1000);
    lastTick = now;
    if (--budget < 0) {
      stop();
      return;
    }
    if (now - second >= 1000) {
      second = now;
      passed = requested = 0;
    }
    if (++passed > PASS || (data && RELAYED[data.method] === true && ++requested > REQUESTS)) {
      refuse(data);
      return;
    }
    var size;
    try {
      size = JSON.stringify(data).length;
    } catch (e) {
      return;
    }
    if (!(size <= MAX_BYTES)) {
      return;
    }
    toHost(data);
  }

  // refuse answers a request the view may not make now with the host's
  // refusal (web/app_bridge.go), so that the view's call ends; the rest
  // of what it sends past the caps is dropped.
  function refuse(data) {
    if (data && typeof data.method === "string" && data.id !== undefined) {
      toView({ jsonrpc: "2.0", id: data.id, error: { code: -32000, message: "The view asks too often; try again in a moment." } });
    }
  }

  // stop removes a flooding view's frame, which ends its scripts (dropping
  // only its messages would leave it free to keep the browser busy), and
  // tells the host once.
  function stop() {
    stopped = true;
    frame.remove();
    frame = null;
    notify("ui/notifications/sandbox-flood", { burst: BURST, rate: RATE });
  }

  function createFrame(params) {
    if (stopped || frame || !params || typeof params.html !== "string") {
      return;
    }
    frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "allow-scripts allow-forms");
    frame.setAttribute("allow", allow.map(function (a) { return a + " *"; }).join("; "));
    frame.setAttribute("title", "View");
    frame.srcdoc = params.html;
    document.body.appendChild(frame);
  }

  window.addEventListener("message", function (event) {
    if (frame && event.source === frame.contentWindow) {
      fromView(event.data);
      return;
    }
    if (event.source !== window.parent || event.origin !== host) {
      return;
    }
    var data = event.data;
    if (data && data.method === "ui/notifications/sandbox-resource-ready") {
      createFrame(data.params);
      return;
    }
    if (frame && frame.contentWindow) {
      toView(data);
    }
  });

  function ready() {
    notify("ui/notifications/sandbox-proxy-ready");
  }
  if (document.body) {
    ready();
  } else {
    document.addEventListener("DOMContentLoaded", ready);
  }
})();
