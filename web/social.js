// The lobby stream (docs/api.md, "The lobby stream"), followed on every page while a
// player is signed in here: what it brings is handed to the pages that listen
// (`onLobby`), and an invitation to a game is shown above any page, with a Join.
// A ticket, then an EventSource; on a drop a new ticket after a growing pause.
import { API, ApiError, player, post } from "./api.js";
import { h } from "./dom.js";
import { text } from "./text.js";
import { seeded } from "./verify.js";

export const LOBBY_TYPES = [
  "friend_request", "friend_accepted", "friend_online", "friend_offline", "friend_in_game",
  "game_invite", "talk_warning",
];
const FIRST_DELAY = 1000, MOST_DELAY = 30000;
const listeners = new Set();
let feed = null; // {token, stop}
let goTo = null;

// `handler(type, data)` for each event of LOBBY_TYPES; returns what stops it.
export function onLobby(handler) {
  listeners.add(handler);
  return () => listeners.delete(handler);
}

function tell(type, data) {
  if (type === "game_invite") showInvite(data);
  else if (type === "friend_request") showNotice(text.friendRequestFrom(data.from.name),
    h("a", { href: "/play/friends", "data-link": true, class: "button" }, text.seeRequests));
  else if (type === "friend_accepted") showNotice(text.friendAccepted(data.friend.name));
  else if (type === "talk_warning") showNotice(text.talkWarning(data.reason));
  for (const handler of listeners) handler(type, data);
}

function follow(token) {
  let delay = FIRST_DELAY, source = null, timer = null, stopped = false;

  function retry(retryAfter) {
    if (stopped) return;
    const wait = Math.max(Number(retryAfter) * 1000 || 0, Math.random() * delay);
    delay = Math.min(delay * 2, MOST_DELAY);
    timer = setTimeout(open, wait);
  }

  async function open() {
    if (stopped) return;
    let res;
    try {
      res = await fetch(`${API}/players/me/stream-ticket`, {
        method: "POST", headers: { Authorization: `Bearer ${token}` },
      });
    } catch {
      return retry();
    }
    if (res.status === 401 || res.status === 403) return; // this player is gone
    if (!res.ok) return retry(res.headers.get("Retry-After"));
    const { ticket } = await res.json();
    if (stopped) return;
    source = new EventSource(`${API}/players/me/stream?ticket=${encodeURIComponent(ticket)}`);
    source.addEventListener("hello", () => { delay = FIRST_DELAY; });
    for (const type of LOBBY_TYPES) {
      source.addEventListener(type, (e) => tell(type, JSON.parse(e.data)));
    }
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

// Follows the lobby stream of the player signed in here (again for another one),
// or stops when there is none. `go` opens a page of the client.
export function keepLobby(go) {
  goTo = go;
  const me = player();
  const token = me ? me.token : null;
  if (feed && feed.token === token) return;
  if (feed) feed.stop();
  feed = token ? { token, stop: follow(token) } : null;
  if (!token) notices().replaceChildren();
}

const notices = () => document.getElementById("notices");

// A line above the page, with `actions`, and a button that dismisses it.
function showNotice(message, ...actions) {
  const item = h("li", { class: "notice" });
  const dismiss = h("button", { type: "button", class: "secondary",
                                onclick: () => item.remove() }, text.dismiss);
  item.append(h("p", {}, message), h("div", { class: "row" }, ...actions, dismiss));
  notices().append(item);
  return item;
}

// A friend's invitation: joined by the game's id (an invitation lets one into a
// private game without its code), else by its code when it came with one.
function showInvite(invite) {
  for (const old of notices().querySelectorAll(`[data-invite="${CSS.escape(invite.game)}"]`)) {
    old.remove();
  }
  const error = h("p", { class: "error", role: "alert" });
  const join = h("button", { type: "button", "data-key": "join-invite" }, text.joinInvite);
  const item = showNotice(text.invitedBy(invite.by.name, invite.players, invite.max_players),
    join);
  item.dataset.invite = invite.game;
  item.classList.add("invitation");
  item.append(error);
  join.addEventListener("click", async () => {
    join.disabled = true;
    try {
      const game = await joinInvited(invite);
      item.remove();
      if (goTo) goTo(`/play/games/${game}`);
    } catch (err) {
      error.textContent = text.cannotJoin(err.message);
      join.disabled = false;
    }
  });
}

async function joinInvited(invite) {
  try {
    return (await post(`/games/${invite.game}/join`, seeded())).id;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && invite.code) {
      return (await post("/games/join", seeded({ code: invite.code }))).id;
    }
    throw err;
  }
}
