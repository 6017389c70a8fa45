// The web client's service worker: the browser runs it when a push comes, page closed
// or not (docs/api.md, "Push notifications"). Served at /play/sw.js, so that its scope
// is the client's own pages; a plain script, not a module, as every browser that
// has Web Push runs it. The notification's words are the service's (`text` in the
// payload); "UNO" is the game's name in every language.

// A new version takes over at once, and the pages already open (the one that
// registered it among them) become its clients: a click can then take one to a game.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

// One notification per game (its tag): a newer one replaces the older.
self.addEventListener("push", (event) => {
  if (!event.data) return;
  const note = event.data.json();
  event.waitUntil(self.registration.showNotification("UNO", {
    body: note.text,
    tag: note.game,
    renotify: note.kind === "your_turn",
    requireInteraction: note.kind === "your_turn",
    data: note,
  }));
});

// A click opens the game (`path`, /play/games/<id>): a window of the client already
// on it, else one of the client's windows taken there, else a new one.
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const path = (event.notification.data && event.notification.data.path) || "/play/";
  const url = new URL(path, self.location.origin).href;
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true })
    .then((windows) => {
      const open = windows.find((client) => client.url === url);
      if (open) return open.focus();
      const ours = windows.find((client) => client.url.startsWith(self.registration.scope));
      if (!ours) return self.clients.openWindow(url);
      return ours.focus().then((client) => client.navigate(url))
        .catch(() => self.clients.openWindow(url));
    }));
});
