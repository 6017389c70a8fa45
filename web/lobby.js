// The lobby: signing up; one tap to a game against bots or a quick match, the full
// options folded away; the player's games, to go back to or leave.
import { ApiError, forgetPlayer, get, player, post, signUp } from "./api.js";
import { choose, field, flash, h, takeFlash } from "./dom.js";
import { keepNudge } from "./keep.js";
import { disablePush, enablePush, pushState } from "./push.js";
import { text } from "./text.js";
import { seeded } from "./verify.js";

// A <select> of `choices` ([value, label] pairs), `chosen` selected.
function select(id, choices, chosen, props = {}) {
  return h("select", { id, name: id, ...props }, choices.map(([value, label]) =>
    h("option", { value, selected: String(value) === String(chosen) }, label)));
}

const counts = (from, to) =>
  Array.from({ length: to - from + 1 }, (_, i) => [from + i, String(from + i)]);

// `invitation`: what an invite link's code leads to (`GET /games/join?code=`), told
// above the form: whose game the new player is about to join.
function signUpForm(main, go, invitation = null) {
  const name = h("input", { id: "name", name: "name", required: true, maxlength: 32,
                            autocomplete: "nickname" });
  const error = h("p", { class: "error", role: "alert" });
  const form = h("form", { class: "panel", "aria-labelledby": "signup-title" },
    takeFlash(),
    h("h1", { id: "signup-title" }, text.signUpTitle),
    invitation ? h("p", { class: "invitation", role: "status" }, invitation) : null,
    h("p", {}, invitation ? text.signUpToJoin : text.signUpIntro),
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

// What one tap starts: three casual bots, or a quick match of four, to 200 points.
const SHORT_GAME = 200, ONE_TAP_BOTS = 3, ONE_TAP_PLAYERS = 4;

// Creates a public game of the player and `bots` bots and starts it: its page.
// `deck`: the 112-card deck's options ({deck, shuffle_hands_last_card,
// wild_customizable}), left out for the classic deck.
async function botGame({ bots, strategy, target, rules = {}, timeout = null, friends = 0, deck = {} }) {
  const game = await post("/games", {
    max_players: bots + friends + 1, target_score: target, rules, turn_timeout: timeout,
    visibility: friends ? "private" : "public", ...deck,
  });
  for (let i = 0; i < bots; i += 1) await post(`/games/${game.id}/bots`, { strategy });
  // With friends the game is private: they join by its link, and its host starts it.
  if (!friends) await post(`/games/${game.id}/start`, seeded());
  return game;
}

function playNow(go) {
  const error = h("p", { class: "error", role: "alert" });
  const buttons = [];
  const tap = (action) => async () => {
    for (const b of buttons) b.disabled = true;
    error.textContent = text.creating;
    try {
      go(`/play/games/${(await action()).id}`);
    } catch (err) {
      error.textContent = text.error(err.message);
      for (const b of buttons) b.disabled = false;
    }
  };
  buttons.push(
    h("button", { type: "button", class: "big", "data-key": "play-bots", "aria-describedby": "play-bots-help",
                  onclick: tap(() => botGame({ bots: ONE_TAP_BOTS, strategy: "greedy", target: SHORT_GAME })) },
      text.playBots),
    h("button", { type: "button", class: "big", "data-key": "quick-match", "aria-describedby": "quick-help",
                  onclick: tap(() => post("/matchmaking", seeded({ max_players: ONE_TAP_PLAYERS, target_score: SHORT_GAME }))) },
      text.quickMatchTitle));
  return h("section", { class: "panel play-now", "aria-labelledby": "play-now-title" },
    h("h1", { id: "play-now-title" }, text.playNow),
    h("div", { class: "play-choices" },
      h("div", { class: "play-choice" }, buttons[0],
        h("p", { class: "help", id: "play-bots-help" }, text.playBotsHelp(ONE_TAP_BOTS, SHORT_GAME))),
      h("div", { class: "play-choice" }, buttons[1],
        h("p", { class: "help", id: "quick-help" }, text.quickHelp(ONE_TAP_PLAYERS, SHORT_GAME)))),
    error);
}

function newGameForm(go) {
  const bots = select("bots", counts(0, 9), 3);
  const friends = select("friends", counts(0, 9), 0, { "aria-describedby": "friends-help" });
  const strength = select("strength", Object.entries(text.strengths), "greedy");
  const target = h("input", { id: "target", name: "target", type: "number", min: 0,
                              max: 10000, step: 1, value: SHORT_GAME, "aria-describedby": "target-help" });
  const rules = Object.entries(text.rules).map(([rule, [label, help]]) =>
    h("div", { class: "rule" },
      h("input", { type: "checkbox", id: `rule-${rule}`, name: rule,
                   "aria-describedby": `rule-${rule}-help` }),
      h("label", { for: `rule-${rule}` }, label),
      h("p", { class: "help", id: `rule-${rule}-help` }, help)));
  const timeout = select("timeout", text.timeouts, "");
  // The deck; the 112-card deck's two options only with it (the service refuses them
  // with the classic deck).
  const deck = select("deck", text.decks, "classic_108", { "aria-describedby": "deck-help" });
  const shuffleLast = select("shuffle-last", text.shuffleLast, "redeal");
  const customizable = select("customizable", Object.entries(text.customizable), "wild");
  const modernOptions = h("div", { class: "fields modern-options" },
    field(text.customizableLabel, customizable), field(text.shuffleLastLabel, shuffleLast));
  const showDeck = () => {
    const modern = deck.value === "modern_112";
    modernOptions.hidden = !modern;
    shuffleLast.disabled = customizable.disabled = !modern;
  };
  deck.addEventListener("change", showDeck);
  showDeck();
  const error = h("p", { class: "error", role: "alert" });
  const submit = h("button", { type: "submit" }, text.create);
  const form = h("form", { class: "sub-panel", "aria-labelledby": "new-game-title" },
    h("h2", { id: "new-game-title" }, text.newGameTitle),
    h("p", { class: "help" }, text.botGamesUnrated),
    h("div", { class: "fields" },
      field(text.botsLabel, bots), field(text.strengthLabel, strength),
      field(text.friendsLabel, friends, text.friendsHelp),
      field(text.targetLabel, target, text.targetHelp), field(text.timeoutLabel, timeout)),
    h("div", { class: "fields" }, field(text.deckLabel, deck, text.deckHelp)), modernOptions,
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
      const modern = deck.value === "modern_112" ? { deck: deck.value,
        shuffle_hands_last_card: shuffleLast.value, wild_customizable: customizable.value } : {};
      const game = await botGame({ bots: count, strategy: strength.value, target: Number(target.value),
        rules: chosen, timeout: timeout.value ? Number(timeout.value) : null, friends: invited, deck: modern });
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
    main.replaceChildren(h("p", {}, text.loading));
    let said;
    try {
      const game = await get(`/games/join?code=${encodeURIComponent(code)}`);
      said = text.invitedBy(game.host.name, game.seats_taken, game.max_players);
    } catch (err) {
      said = text.cannotJoin(err.message);
    }
    return signUpForm(main, go, said);
  }
  signedIn(who, player(), go);
  main.replaceChildren(h("p", { role: "status" }, text.joining(code)));
  try {
    const game = await post("/games/join", seeded({ code }));
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
  const more = h("details", { class: "panel more-ways" },
    h("summary", {}, text.moreWays), h("div", { class: "more-ways-forms" }, newGameForm(go), quickMatchForm(go)));
  const shown = [notice, playNow(go), keepNudge(me), await yourGames(me, go), more, joinForm(go),
    await gamesToWatch(me), await notifications()];
  if (!player() || player().token !== token) return; // signed out meanwhile
  main.replaceChildren(h("div", { class: "lobby" }, shown));
}

function quickMatchForm(go) {
  const seats = select("qm-players", counts(2, 10), 4);
  const target = select("qm-target", text.quickTargets, SHORT_GAME);
  const error = h("p", { class: "error", role: "alert" });
  const submit = h("button", { type: "submit" }, text.findGame);
  const form = h("form", { class: "sub-panel", "aria-labelledby": "qm-title" },
    h("h2", { id: "qm-title" }, text.quickMatchTitle),
    h("p", { class: "help" }, text.quickMatchHelp),
    h("div", { class: "fields" }, field(text.playersLabel, seats), field(text.targetLabel, target)),
    submit, error);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    submit.disabled = true;
    try {
      const game = await post("/matchmaking", seeded({
        max_players: Number(seats.value), target_score: Number(target.value),
      }));
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

// A seat of a game summary's `players` by its name: the player's, or its bot's.
const seatName = (p) => (p.player ? p.player.name : text.botName(p.bot, p.seat));
const players = (g) => g.players.map(seatName).join(", ");
const opponents = (g, me) => g.players.filter((p) => !(p.player && p.player.id === me.id))
  .map(seatName).join(", ");

// One of the player's games: against whom, which round, whose turn, since when.
function gameLine(g, me) {
  const turn = g.status !== "playing" ? text.statuses[g.status]
    : g.your_turn ? text.yourTurn
      : g.to_act === null ? text.statuses.playing
        : text.turnOf(seatName(g.players.find((p) => p.seat === g.to_act)));
  return [h("span", { class: "game-with" }, text.against(opponents(g, me) || text.nobodyYet)),
    h("span", { class: "game-facts" },
      [g.round ? text.round(g.round) : null, turn, text.startedAt(text.date(g.created_at))]
        .filter(Boolean).join(" · "))];
}

// The games the player sits in that are not over, to go back to or to leave.
async function yourGames(me, go) {
  let games = [];
  try {
    for (const status of ["playing", "waiting"]) {
      games = games.concat((await get(`/games?mine=true&status=${status}`)).results);
    }
  } catch {
    return null;
  }
  const leave = (g) => async () => {
    const sure = await choose(text.leaveQuestion(g.status, g.rated), [
      { label: text.leaveConfirm, value: "leave", class: "danger" }], text.stay);
    if (!sure) return;
    try {
      await post(`/games/${g.id}/leave`);
      flash(text.youLeft);
    } catch (err) {
      flash(text.error(err.message), { error: true });
    }
    go("/play/", { replace: true });
  };
  return h("section", { class: "panel", "aria-labelledby": "your-games-title" },
    h("h2", { id: "your-games-title" }, text.yourGames),
    games.length === 0 ? h("p", { class: "games-empty" }, text.noGames) : h("ul", { class: "games mine" }, games.map((g) =>
      h("li", { "data-game": g.id, class: g.your_turn ? "your-turn" : null },
        h("div", { class: "game-line" }, gameLine(g, me)),
        h("div", { class: "row" },
          h("a", { href: `/play/games/${g.id}`, "data-link": true, class: "button",
                   "aria-label": `${text.openGame}: ${players(g)}` }, text.openGame),
          h("button", { type: "button", class: "secondary", "data-key": `leave-${g.id}`,
                        "aria-label": `${text.leave}: ${players(g)}`, onclick: leave(g) }, text.leave))))));
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
