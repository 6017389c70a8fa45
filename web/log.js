// What happened at the table: the game's events, read from /events when the table
// opens (so that a reload shows the same log as before it) and kept up from the
// stream, each told in one line, oldest or newest first as the player chose.
import { get } from "./api.js";
import { h } from "./dom.js";
import { text } from "./text.js";

const SHOWN_LINES = 200;
const ORDER_KEY = "uno.logNewestFirst";

// Every event of the game so far, a page of /events at a time.
export async function eventsSoFar(gameId) {
  let after = 0, events = [];
  for (;;) {
    const page = await get(`/games/${gameId}/events?after=${after}`);
    events = events.concat(page.events);
    if (!page.events.length || page.events[page.events.length - 1].seq >= page.last_seq) return events;
    after = page.events[page.events.length - 1].seq;
  }
}

// The lines of `events`, oldest first: a UNO said with a card is told with the card,
// not again on a line of its own.
export function lines(events, name) {
  const told = [];
  events.forEach((event, i) => {
    const before = events[i - 1];
    if (event.type === "uno_called" && before && before.type === "card_played" &&
        before.seat === event.seat && before.data.uno) return;
    const line = text.event[event.type];
    const said = line && line(name(event.seat), event.data, name);
    if (said) told.push({ seq: event.seq, said });
  });
  return told.slice(-SHOWN_LINES);
}

const newestFirst = () => localStorage.getItem(ORDER_KEY) === "true";

// The log's panel: its lines, in the order chosen, and the switch of that order.
// `changed` redraws the table once the order is switched.
export function logPanel(events, name, changed) {
  const told = lines(events, name);
  const newest = newestFirst();
  const shown = newest ? told.slice().reverse() : told;
  // Where the player had scrolled the list being replaced: kept, unless at its end.
  const old = document.getElementById("log-list");
  const atEnd = !old || old.scrollTop + old.clientHeight >= old.scrollHeight - 4;
  const atTop = !old || old.scrollTop <= 4;
  const list = h("ol", { id: "log-list", tabindex: 0, "data-key": "log", "aria-labelledby": "log-title",
                         class: newest ? "newest-first" : "oldest-first" },
    shown.map((l) => h("li", { "data-seq": l.seq }, l.said)));
  const order = h("button", {
    type: "button", class: "link small", "data-key": "log-order", "aria-pressed": newest ? "true" : "false",
    onclick: () => {
      localStorage.setItem(ORDER_KEY, String(!newest));
      changed();
    },
  }, text.newestFirst);
  // The newest line stays in sight (at the end, oldest first) unless the player
  // scrolled away from it to read.
  const top = old ? old.scrollTop : 0;
  requestAnimationFrame(() => {
    list.scrollTop = (newest ? atTop : atEnd) ? (newest ? 0 : list.scrollHeight) : top;
  });
  return h("section", { class: "log", "aria-labelledby": "log-title" },
    h("div", { class: "log-head" }, h("h2", { id: "log-title" }, text.log), order),
    // The log role on a wrapper: on the list itself it would hide that it is a list.
    // The list scrolls, so the keyboard can reach it (its data-key keeps the focus).
    h("div", { role: "log" }, list));
}
