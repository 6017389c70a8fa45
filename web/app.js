// The client's routes: /play/ (the lobby), /play/games/<id> (a table, or a spectator's
// view of it), /play/games/<id>/replay, /play/players/<id> (a profile, `me` for the
// player's own), /play/leaderboard, /play/join/<code> (a private game's invite link),
// /play/account (the player's account), /play/sign-in (signing this browser in),
// /play/friends (friends and blocks) and /play/friends/<code> (a friend's link).
import { showAccount } from "./account.js";
import { SIGNED_OUT, player } from "./api.js";
import { flash, h } from "./dom.js";
import { addByLink, showFriends } from "./friends.js";
import { showLeaderboard } from "./leaderboard.js";
import { joinByLink, showLobby } from "./lobby.js";
import { showProfile } from "./profile.js";
import { showReplay } from "./replay.js";
import { finishProvider, providerReturn } from "./providers.js";
import { forgetPush, renewPush } from "./push.js";
import { showSignIn } from "./signin.js";
import { keepLobby } from "./social.js";
import { showTable } from "./table.js";
import { text } from "./text.js";

const main = document.getElementById("main");
const who = document.getElementById("who");
const nav = document.getElementById("nav");
let leave = null;

// The header's links, for a player signed up in this browser.
function links() {
  const here = location.pathname.replace(/\/$/, "");
  const link = (href, label) => h("a", { href, "data-link": true,
    "aria-current": here === href ? "page" : null }, label);
  nav.setAttribute("aria-label", text.nav);
  nav.replaceChildren(...(player()
    ? [link("/play/players/me", text.yourProfile), link("/play/friends", text.friendsNav),
       link("/play/leaderboard", text.leaderboard), link("/play/account", text.yourAccount)]
    : []));
}

function route() {
  if (leave) leave();
  leave = null;
  document.title = text.title;
  const game = location.pathname.match(/^\/play\/games\/([0-9a-f-]+)\/?$/);
  const join = location.pathname.match(/^\/play\/join\/([^/]+)\/?$/);
  const replay = location.pathname.match(/^\/play\/games\/([0-9a-f-]+)\/replay\/?$/);
  const profile = location.pathname.match(/^\/play\/players\/([^/]+)\/?$/);
  const board = /^\/play\/leaderboard\/?$/.test(location.pathname);
  const account = /^\/play\/account\/?$/.test(location.pathname);
  const signIn = /^\/play\/sign-in\/?$/.test(location.pathname);
  const friends = /^\/play\/friends\/?$/.test(location.pathname);
  const friendLink = location.pathname.match(/^\/play\/friends\/([^/]+)\/?$/);
  if (signIn && player()) history.replaceState(null, "", "/play/"); // signed in already
  const page = Math.max(1, Number(new URLSearchParams(location.search).get("page")) || 1);
  links();
  keepLobby(go);
  if ((game || replay || profile || board || account || friends || friendLink) && player()) {
    who.replaceChildren(text.signedInAs(player().name));
  }
  if (game && player()) leave = showTable(main, game[1], go);
  else if (replay && player()) leave = showReplay(main, replay[1]);
  else if (profile && player()) leave = showProfile(main, decodeURIComponent(profile[1]), page);
  else if (board && player()) leave = showLeaderboard(main, page);
  else if (account && player()) leave = showAccount(main);
  else if (friends && player()) leave = showFriends(main, go);
  else if (friendLink && player()) addByLink(main, decodeURIComponent(friendLink[1]), go);
  else if (signIn && !player()) {
    who.replaceChildren();
    showSignIn(main, go);
  } else if (join) joinByLink(main, who, decodeURIComponent(join[1]), go);
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
// This browser's player is gone (signed out, or the account deleted): its
// notifications stop, and the page goes back to signing up, saying why.
window.addEventListener(SIGNED_OUT, (e) => {
  forgetPush().catch(() => null);
  flash(e.detail);
  go("/play/", { replace: true });
});
// Back from Google or Apple with an ID token: what the person went there for is
// done before anything else is shown.
const back = providerReturn();
if (back) {
  main.replaceChildren(h("p", {}, text.loading));
  finishProvider(back, go);
} else {
  route();
}
// A registration that fails now is tried again at the next start.
renewPush().catch(() => null);
