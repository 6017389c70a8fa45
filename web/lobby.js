// The lobby: signing up, and a new game against bots.
import { ApiError, forgetPlayer, get, player, post, signUp } from "./api.js";
import { field, h, takeFlash } from "./dom.js";
import { keepNudge } from "./keep.js";
import { disablePush, enablePush, pushState } from "./push.js";
import { text } from "./text.js";

// A <select> of `choices` ([value, label] pairs), `chosen` selected.
function select(id, choices, chosen, props = {}) {
  return h("select", { id, name: id, ...props }, choices.map(([value, label]) =>
    h("option", { value, selected: String(value) === String(chosen) }, label)));
}

const counts = (from, to) =>
  Array.from({ length: to - from + 1 }, (_, i) => [from + i, String(from + i)]);

function signUpForm(main, go) {
  const name = h("input", { id: "name", name: "name", required: true, maxlength: 32,
                            autocomplete: "nickname" });
  const error = h("p", { class: "error", role: "alert" });
  const form = h("form", { class: "panel", "aria-labelledby": "signup-title" },
    takeFlash(),
    h("h1", { id: "signup-title" }, text.signUpTitle),
    h("p", {}, text.signUpIntro),
    field(text.nameLabel, name),
    h("button", { type: "submit" }, text.signUp), error,
    h("p", { class: "signin-offer" }, text.signInOffer, " ",
      h("a", { href: "/play/sign-in", "data-link": true }, text.signInLink)));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await signUp(name.value.trim());
      go(location.pathname);
    } catch (err) {
      error.textContent = text.error(err.message);
    }
  });
  main.replaceChildren(form);
  name.focus();
}

function newGameForm(go) {
  const bots = select("bots", counts(0, 9), 3);
  const friends = select("friends", counts(0, 9), 0, { "aria-describedby": "friends-help" });
  const strength = select("strength", Object.entries(text.strengths), "greedy");
  const target = h("input", { id: "target", name: "target", type: "number", min: 0,
                              max: 10000, step: 1, value: 500, "aria-describedby": "target-help" });
  const rules = Object.entries(text.rules).map(([rule, [label, help]]) =>
    h("div", { class: "rule" },
      h("input", { type: "checkbox", id: `rule-${rule}`, name: rule,
                   "aria-describedby": `rule-${rule}-help` }),
      h("label", { for: `rule-${rule}` }, label),
      h("p", { class: "help", id: `rule-${rule}-help` }, help)));
  const timeout = select("timeout", text.timeouts, "");
  const error = h("p", { class: "error", role: "alert" });
  const submit = h("button", { type: "submit" }, text.create);
  const form = h("form", { class: "panel", "aria-labelledby": "new-game-title" },
    h("h2", { id: "new-game-title" }, text.newGameTitle),
    h("div", { class: "fields" },
      field(text.botsLabel, bots), field(text.strengthLabel, strength),
      field(text.friendsLabel, friends, text.friendsHelp),
      field(text.targetLabel, target, text.targetHelp), field(text.timeoutLabel, timeout)),
    h("fieldset", {}, h("legend", {}, text.rulesTitle), rules),
    submit, error);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    submit.disabled = true;
    error.textContent = text.creating;
    try {
      const chosen = Object.fromEntries(
        Object.keys(text.rules).map((rule) => [rule, form.elements[rule].checked]));
      const count = Number(bots.value), invited = Number(friends.value);
      if (count + invited < 1 || count + invited > 9) {
        error.textContent = text.seatsWrong;
        submit.disabled = false;
        return;
      }
      // With friends the game is private: they join by its link, and its host starts it.
      const game = await post("/games", {
        max_players: count + invited + 1, target_score: Number(target.value), rules: chosen,
        turn_timeout: timeout.value ? Number(timeout.value) : null,
        visibility: invited ? "private" : "public",
      });
      for (let i = 0; i < count; i += 1) {
        await post(`/games/${game.id}/bots`, { strategy: strength.value });
      }
      if (!invited) await post(`/games/${game.id}/start`);
      go(`/play/games/${game.id}`);
    } catch (err) {
      error.textContent = text.error(err.message);
      submit.disabled = false;
    }
  });
  return form;
}

function signedIn(who, me, go) {
  who.replaceChildren(
    h("span", {}, text.signedInAs(me.name)),
    h("button", { type: "button", class: "link", onclick: newPlayer(go) }, text.newPlayer));
}

// This browser's notifications were the player's leaving it: they stop first.
function newPlayer(go) {
  return async () => {
    await disablePush().catch(() => null);
    forgetPlayer();
    go("/play/");
  };
}

// /play/join/<code>: a friend's private game, joined by its invite link.
export async function joinByLink(main, who, code, go) {
  if (!player()) {
    who.replaceChildren();
    return signUpForm(main, go);
  }
  signedIn(who, player(), go);
  main.replaceChildren(h("p", { role: "status" }, text.joining(code)));
  try {
    const game = await post("/games/join", { code });
    go(`/play/games/${game.id}`, { replace: true });
  } catch (err) {
    main.replaceChildren(h("div", { class: "panel" },
      h("p", { class: "error", role: "alert" }, text.cannotJoin(err.message)),
      h("a", { href: "/play/", "data-link": true, class: "button" }, text.backToLobby)));
  }
}

export async function showLobby(main, who, go) {
  if (!player()) {
    who.replaceChildren();
    return signUpForm(main, go);
  }
  const notice = takeFlash();
  const token = player().token;
  main.replaceChildren(h("p", {}, text.loading));
  let me;
  try {
    me = await get("/players/me");
    signedIn(who, me, go);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      // A token signed out was forgotten already, and the page went to signing up.
      if (!player() || player().token !== token) return;
      forgetPlayer();
      return signUpForm(main, go);
    }
    main.replaceChildren(h("p", { class: "error", role: "alert" }, text.error(err.message)));
    return;
  }
  const shown = [notice, keepNudge(me), newGameForm(go), quickMatchForm(go), joinForm(go),
    await yourGames(), await gamesToWatch(me), await notifications()];
  if (!player() || player().token !== token) return; // signed out meanwhile
  main.replaceChildren(h("div", { class: "lobby" }, shown));
}

function quickMatchForm(go) {
  const seats = select("qm-players", counts(2, 10), 4);
  const target = select("qm-target", text.quickTargets, 500);
  const error = h("p", { class: "error", role: "alert" });
  const submit = h("button", { type: "submit" }, text.findGame);
  const form = h("form", { class: "panel", "aria-labelledby": "qm-title" },
    h("h2", { id: "qm-title" }, text.quickMatchTitle),
    h("p", { class: "help" }, text.quickMatchHelp),
    h("div", { class: "fields" }, field(text.playersLabel, seats), field(text.targetLabel, target)),
    submit, error);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    submit.disabled = true;
    try {
      const game = await post("/matchmaking", {
        max_players: Number(seats.value), target_score: Number(target.value),
      });
      go(`/play/games/${game.id}`);
    } catch (err) {
      error.textContent = text.error(err.message);
      submit.disabled = false;
    }
  });
  return form;
}

function joinForm(go) {
  const code = h("input", { id: "code", name: "code", required: true, maxlength: 32,
                            autocomplete: "off", "aria-describedby": "code-help" });
  const form = h("form", { class: "panel", "aria-labelledby": "join-title" },
    h("h2", { id: "join-title" }, text.joinTitle),
    field(text.codeLabel, code, text.codeHelp),
    h("button", { type: "submit" }, text.join));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    go(`/play/join/${encodeURIComponent(code.value.trim())}`);
  });
  return form;
}

const players = (g) => g.players.map((p) => (p.player ? p.player.name : text.botName(p.bot, p.seat)))
  .join(", ");

// The games the player sits in that are not over, to go back to.
async function yourGames() {
  let games = [];
  try {
    for (const status of ["playing", "waiting"]) {
      games = games.concat((await get(`/games?mine=true&status=${status}`)).results);
    }
  } catch {
    return null;
  }
  return h("section", { class: "panel", "aria-labelledby": "your-games-title" },
    h("h2", { id: "your-games-title" }, text.yourGames),
    games.length === 0 ? h("p", { class: "games-empty" }, text.noGames) : h("ul", { class: "games" }, games.map((g) =>
      h("li", {}, h("span", {}, text.gameLine(g, players(g))),
        h("a", { href: `/play/games/${g.id}`, "data-link": true, class: "button",
                 "aria-label": `${text.openGame}: ${players(g)}` }, text.openGame)))));
}

// A few public games being played that the player holds no seat in, to watch.
const TO_WATCH = 5;

async function gamesToWatch(me) {
  let games;
  try {
    games = (await get("/games?status=playing")).results;
  } catch {
    return null;
  }
  games = games.filter((g) => g.visibility === "public" &&
    !g.players.some((p) => p.player && p.player.id === me.id)).slice(0, TO_WATCH);
  return h("section", { class: "panel", "aria-labelledby": "watch-title" },
    h("h2", { id: "watch-title" }, text.gamesToWatch),
    games.length === 0 ? h("p", { class: "watch-empty" }, text.noGamesToWatch)
      : h("ul", { class: "games watch" }, games.map((g) =>
        h("li", {}, h("span", {}, players(g)),
          h("a", { href: `/play/games/${g.id}`, "data-link": true, class: "button",
                   "aria-label": `${text.watch}: ${players(g)}` }, text.watch)))));
}

// The toggle of Web Push, shown only where the browser and the service both have it.
async function notifications() {
  let state;
  try {
    state = await pushState();
  } catch {
    return null;
  }
  if (state === "unsupported" || state === "off") return null;
  const button = h("button", { type: "button", "data-key": "push" });
  const status = h("p", { class: "push-status", role: "status" });
  const show = (now, problem) => {
    state = now;
    button.textContent = state === "on" ? text.pushOff : text.pushOn;
    button.disabled = false;
    problem = problem || (state === "denied" ? text.pushDenied : "");
    status.className = problem ? "push-status error" : "push-status";
    status.textContent = problem || (state === "on" ? text.pushIsOn : "");
  };
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = text.pushWorking;
    try {
      show(state === "on" ? await disablePush() : await enablePush());
    } catch (err) {
      show(state, text.error(err.message));
    }
  });
  show(state);
  return h("section", { class: "panel", "aria-labelledby": "push-title" },
    h("h2", { id: "push-title" }, text.pushTitle),
    h("p", { class: "help" }, text.pushHelp), button, status);
}
