// The client's routes: /play/ (the lobby), /play/games/<id> (a table) and
// /play/join/<code> (a private game's invite link).
import { player } from "./api.js";
import { joinByLink, showLobby } from "./lobby.js";
import { renewPush } from "./push.js";
import { showTable } from "./table.js";
import { text } from "./text.js";

const main = document.getElementById("main");
const who = document.getElementById("who");
let leave = null;

function route() {
  if (leave) leave();
  leave = null;
  document.title = text.title;
  const game = location.pathname.match(/^\/play\/games\/([0-9a-f-]+)\/?$/);
  const join = location.pathname.match(/^\/play\/join\/([^/]+)\/?$/);
  if (game && player()) {
    who.replaceChildren(text.signedInAs(player().name));
    leave = showTable(main, game[1], go);
  }
  else if (join) joinByLink(main, who, decodeURIComponent(join[1]), go);
  else showLobby(main, who, go);
}

// `replace`: the page left is not one to come back to (an invite link once used).
export function go(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  route();
  main.focus();
}

document.addEventListener("click", (e) => {
  const link = e.target.closest("a[data-link]");
  if (!link || e.ctrlKey || e.metaKey || e.shiftKey) return;
  e.preventDefault();
  go(link.getAttribute("href"));
});
window.addEventListener("popstate", route);
route();
// A registration that fails now is tried again at the next start.
renewPush().catch(() => null);
