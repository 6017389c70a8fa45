// The client's routes: /play/ (the lobby) and /play/games/<id> (a table).
import { player } from "./api.js";
import { showLobby } from "./lobby.js";
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
  if (game && player()) {
    who.replaceChildren(text.signedInAs(player().name));
    leave = showTable(main, game[1]);
  }
  else showLobby(main, who, go);
}

export function go(path) {
  history.pushState(null, "", path);
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
