// Runs a service worker's script (the file named by the first argument)
// under a minimal ServiceWorkerGlobalScope, delivers it one push whose
// data is stdin, and writes what it asked the browser to show, as JSON:
// {"title": …, "options": {…}}. Used by notify's tests (node, no
// dependencies): the script is Taasky's own /sw.js, as served.
import { readFileSync } from "node:fs";
import vm from "node:vm";

const source = readFileSync(process.argv[2], "utf8");
let data = "";
for await (const chunk of process.stdin) data += chunk;

const handlers = {};
let shown = null;
const self = {
  addEventListener: (type, fn) => { handlers[type] = fn; },
  skipWaiting: () => Promise.resolve(),
  clients: { claim: () => Promise.resolve(), matchAll: async () => [], openWindow: async () => null },
  location: { origin: "https://taasky.example" },
  registration: { showNotification: async (title, options) => { shown = { title, options }; } },
};
vm.runInNewContext(source, { self, URL, console });
const waits = [];
handlers.push({
  data: { json: () => JSON.parse(data), text: () => data },
  waitUntil: (p) => waits.push(p),
});
await Promise.all(waits);
process.stdout.write(JSON.stringify(shown));
