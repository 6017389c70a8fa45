// Follows one game live: a ticket, then an EventSource; on a drop a new ticket after
// a growing pause, resuming after the last seq seen (docs/api.md, "Web clients"), and
// after the last table message seen, so that none comes twice.
import { API, player } from "./api.js";

export const EVENT_TYPES = [
  "player_joined", "player_left", "bot_added", "seats_arranged", "seat_taken_by_bot", "seat_resumed",
  "game_started", "round_started", "card_played", "cards_drawn", "turn_passed",
  "uno_called", "player_skipped", "direction_changed", "color_chosen", "uno_caught",
  "challenged", "hand_revealed", "hands_swapped", "hands_shuffled", "cards_discarded",
  "turn_timed_out", "round_ended",
  "game_ended", "game_paused", "game_resumed", "game_abandoned", "game_rated",
  "rematch_offered",
];
const FIRST_DELAY = 1000, MOST_DELAY = 30000;

// on.view(view), on.event(event), on.message(message), on.end(end),
// on.stop(status, error), on.drop(). `after`: the last seq already read (from
// /events), to begin right after it.
// Returns a function that stops following.
export function follow(gameId, on, { after = null } = {}) {
  let delay = FIRST_DELAY, lastSeq = after, lastMessage = null, source = null, timer = null;
  let stopped = false;

  function retry(retryAfter) {
    if (stopped) return;
    on.drop();
    const wait = Math.max(Number(retryAfter) * 1000 || 0, Math.random() * delay);
    delay = Math.min(delay * 2, MOST_DELAY);
    timer = setTimeout(open, wait);
  }

  async function open() {
    if (stopped) return;
    let res;
    try {
      res = await fetch(`${API}/games/${gameId}/stream-ticket`, {
        method: "POST",
        headers: { Authorization: `Bearer ${player().token}` },
      });
    } catch {
      return retry();
    }
    if (!res.ok) {
      const body = await res.json().catch(() => null);
      if ([401, 403, 404].includes(res.status)) return on.stop(res.status, body && body.error);
      return retry(res.headers.get("Retry-After"));
    }
    const { ticket } = await res.json();
    if (stopped) return;
    const resume = (lastSeq === null ? "" : `&after=${lastSeq}`) +
      (lastMessage === null ? "" : `&messages_after=${lastMessage}`);
    source = new EventSource(
      `${API}/games/${gameId}/stream?ticket=${encodeURIComponent(ticket)}${resume}`);
    source.addEventListener("game", (e) => {
      delay = FIRST_DELAY;
      lastSeq = Number(e.lastEventId);
      on.view(JSON.parse(e.data));
    });
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (e) => {
        lastSeq = Number(e.lastEventId);
        on.event(JSON.parse(e.data));
      });
    }
    // Table talk: frames without an id (they are not events of the game).
    source.addEventListener("message", (e) => {
      const message = JSON.parse(e.data);
      if (lastMessage === null || message.id > lastMessage) lastMessage = message.id;
      if (on.message) on.message(message);
    });
    source.addEventListener("end", (e) => {
      source.close();
      on.end(JSON.parse(e.data));
    });
    source.onerror = () => {  // a ticket opens one stream: a new one, after a pause
      source.close();
      retry();
    };
  }

  open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    if (source) source.close();
  };
}
