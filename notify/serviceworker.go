package notify

// ServiceWorkerJS is the service worker the dashboard serves at /sw.js
// (Content-Type: text/javascript, Service-Worker-Allowed: /), registered
// with the scope / by the settings page. It shows Taasky's pushes (PushPayload) with a "Review" action
// on requests and reminders (its label the payload's, in the reader's language), and opens the payload's link on a tap: the
// one-tap page, which only shows the card until the human presses a button.
const ServiceWorkerJS = `// Taasky service worker: shows pushes, opens their link on a tap.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let p = {};
  try { p = event.data ? event.data.json() : {}; } catch (e) { p = { title: "Taasky", body: event.data ? event.data.text() : "" }; }
  const ask = p.kind === "request" || p.kind === "reminder";
  event.waitUntil(self.registration.showNotification(p.title || "Taasky", {
    body: p.body || "",
    tag: p.tag || "taasky",
    renotify: true,
    requireInteraction: ask,
    data: { url: p.url || "/" },
    actions: ask ? [{ action: "review", title: p.action || "Review" }] : [],
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL((event.notification.data && event.notification.data.url) || "/", self.location.origin);
  if (url.origin !== self.location.origin) return; // only our own pages
  event.waitUntil((async () => {
    const wins = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    for (const w of wins) {
      if (w.url === url.href && "focus" in w) return w.focus();
    }
    return self.clients.openWindow(url.href);
  })());
});

self.addEventListener("pushsubscriptionchange", (event) => {
  // The browser replaced the subscription: the settings page subscribes
  // again on its next visit; nothing to do here without a session.
});
`
