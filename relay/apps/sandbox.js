// The MCP Apps sandbox proxy (served by the relay on the Apps origin). It
// tells the host it is ready, frames the view the host sends (srcdoc, in a
// sandbox without allow-same-origin, under this page's policy), then
// forwards every other message both ways, unchanged. It hears only the host
// (its parent, from the dashboard's origin) and the view's frame, and caps
// what the view sends: a view that floods is stopped.
(function () {
  "use strict";
  var MAX_BYTES = 1 << 20; // one message of the view, as JSON
  var MAX_PER_SECOND = 200; // messages of the view in a second; one more stops it
  var q = new URLSearchParams(location.search);
  var host = q.get("host");
  var allow = q.getAll("allow").filter(function (a) {
    return ["camera", "microphone", "geolocation", "clipboard-write"].indexOf(a) >= 0;
  });
  var frame = null;
  var windowStart = 0, inWindow = 0, stopped = false;

  function toHost(msg) {
    window.parent.postMessage(msg, host);
  }

  function notify(method, params) {
    toHost({ jsonrpc: "2.0", method: method, params: params || {} });
  }

  function fromView(data) {
    if (data && typeof data.method === "string" && data.method.indexOf("ui/notifications/sandbox-") === 0) {
      return; // the proxy's own messages: never the view's to send
    }
    var now = Date.now();
    if (now - windowStart >= 1000) {
      windowStart = now;
      inWindow = 0;
    }
    if (++inWindow > MAX_PER_SECOND) {
      stop();
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

  // stop removes a flooding view's frame, which ends its scripts (dropping
  // only its messages would leave it free to keep the browser busy), and
  // tells the host once.
  function stop() {
    stopped = true;
    frame.remove();
    frame = null;
    notify("ui/notifications/sandbox-flood", { limit: MAX_PER_SECOND });
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
      frame.contentWindow.postMessage(data, "*");
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
