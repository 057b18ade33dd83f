/*
 * Switchboard embed: put the dashboard of a Switchboard relay in your page.
 *
 *   <div id="switchboard"></div>
 *   <script src="https://relay.example.com/embed.js"></script>
 *   <script>
 *     const sb = Switchboard.embed({
 *       container: "#switchboard",
 *       view: "questions",            // "dashboard" (default), "servers", "server" (with server: id) or "questions"
 *       token: () => fetch("/switchboard-token", {method: "POST"}).then(r => r.text()),
 *       theme: {colorScheme: "auto", properties: {"--sb-accent": "#0a7"}},
 *     });
 *     sb.on("questions", e => badge.textContent = e.count);
 *   </script>
 *
 * The frame asks for a token when it is ready and whenever its token is
 * refused or expired ("signed-out"); token() is also called shortly before
 * the current token expires, and the frame takes the fresh one without
 * reconnecting. Without a token function, hand tokens with sb.setToken().
 * Tokens go to the frame through postMessage, to the relay's origin only,
 * never in a URL; messages are taken only from the frame, with the relay's
 * origin.
 *
 * Events (sb.on(type, fn) or the onEvent option): ready, signed-out,
 * servers ({servers: [{id, name, state}]}), questions ({count}).
 */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !script.src) {
    throw new Error("Switchboard: load embed.js with a <script src> tag");
  }
  var relay = new URL(script.src).origin;
  var prefix = "switchboard:";
  var views = ["dashboard", "servers", "server", "questions"];
  var events = ["ready", "signed-out", "servers", "questions"];

  // expiresAt reads the expiry of a JWT, in ms; 0 when it has none.
  function expiresAt(token) {
    try {
      var part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
      var exp = JSON.parse(atob(part)).exp;
      return typeof exp === "number" ? exp * 1000 : 0;
    } catch (e) {
      return 0;
    }
  }

  function embed(opts) {
    opts = opts || {};
    var container = typeof opts.container === "string" ? document.querySelector(opts.container) : opts.container;
    if (!container) {
      throw new Error("Switchboard.embed: no container element");
    }
    var view = views.indexOf(opts.view) >= 0 ? opts.view : "dashboard";
    var src = new URL("/embed", relay);
    src.searchParams.set("view", view);
    if (view === "server") {
      src.searchParams.set("server", String(opts.server || ""));
    }
    src.searchParams.set("host", location.origin);

    var frame = document.createElement("iframe");
    frame.src = src.href;
    frame.title = opts.title || "Switchboard";
    frame.referrerPolicy = "origin";
    frame.style.border = "0";
    frame.style.width = "100%";
    frame.style.height = opts.height || "600px";
    container.appendChild(frame);

    var ready = false;
    var token = "";
    var theme = opts.theme || null;
    var listeners = {};
    var refreshTimer = null;
    var fetching = false;

    function post(msg) {
      if (ready && frame.contentWindow) {
        frame.contentWindow.postMessage(msg, relay);
      }
    }
    function emit(type, detail) {
      (listeners[type] || []).forEach(function (fn) { fn(detail); });
      if (typeof opts.onEvent === "function") {
        opts.onEvent(Object.assign({type: type}, detail));
      }
    }
    function schedule() {
      clearTimeout(refreshTimer);
      var exp = expiresAt(token);
      if (!exp || typeof opts.token !== "function") {
        return;
      }
      var left = exp - Date.now();
      refreshTimer = setTimeout(refresh, Math.max(0, left - Math.min(60000, left / 4)));
    }
    function setToken(t) {
      if (typeof t !== "string" || t === "") {
        return;
      }
      token = t;
      post({type: prefix + "token", token: t});
      schedule();
    }
    function refresh() {
      if (typeof opts.token !== "function" || fetching) {
        return;
      }
      fetching = true;
      Promise.resolve().then(opts.token).then(function (t) {
        fetching = false;
        setToken(t);
      }, function (err) {
        fetching = false;
        console.error("Switchboard: the token function failed:", err);
      });
    }
    function setTheme(t) {
      theme = t || null;
      if (theme) {
        post({type: prefix + "theme", properties: theme.properties || {}, colorScheme: theme.colorScheme || "auto"});
      }
    }
    function onMessage(ev) {
      var d = ev.data;
      if (ev.origin !== relay || ev.source !== frame.contentWindow || !d || typeof d.type !== "string" ||
          d.type.indexOf(prefix) !== 0) {
        return;
      }
      switch (d.type.slice(prefix.length)) {
      case "ready":
        ready = true;
        setTheme(theme);
        if (token && (!expiresAt(token) || expiresAt(token) > Date.now())) {
          post({type: prefix + "token", token: token});
        } else {
          refresh();
        }
        emit("ready", {});
        break;
      case "signed-out":
        emit("signed-out", {});
        refresh();
        break;
      case "servers":
        emit("servers", {servers: Array.isArray(d.servers) ? d.servers : []});
        break;
      case "questions":
        emit("questions", {count: typeof d.count === "number" ? d.count : 0});
        break;
      }
    }
    window.addEventListener("message", onMessage);

    return {
      frame: frame,
      setToken: setToken,
      setTheme: setTheme,
      on: function (type, fn) {
        if (events.indexOf(type) < 0) {
          throw new Error("Switchboard: no event " + type + "; there are " + events.join(", "));
        }
        (listeners[type] = listeners[type] || []).push(fn);
      },
      destroy: function () {
        clearTimeout(refreshTimer);
        window.removeEventListener("message", onMessage);
        frame.remove();
      }
    };
  }

  window.Switchboard = {embed: embed};
})();
