// Preloaded into the npm servers of the tests (node --require), the
// everything server and the Apps example server: their transports
// listen on every interface, so every listen without a host is bound to
// 127.0.0.1, and the port it got is printed to stderr as
// "switchboard-listening <port>" for the harness to read.
"use strict";
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (args.length > 0 && (typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0])))) {
    if (args.length === 1 || typeof args[1] === "function") {
      args.splice(1, 0, "127.0.0.1");
    }
  }
  this.once("listening", () => {
    const a = this.address();
    if (a && typeof a === "object") {
      process.stderr.write(`switchboard-listening ${a.port}\n`);
    }
  });
  return listen.apply(this, args);
};
