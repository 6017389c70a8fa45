// A game's table: the seats, the pile, the player's hand and moves, the log, the
// results; kept up to date from the game's stream.
import { ApiError, get, player, post } from "./api.js";
import { cardElement } from "./cards.js";
import { choose, h, replace } from "./dom.js";
import { inviteControl } from "./friends.js";
import { follow } from "./stream.js";
import { tableTalk } from "./talk.js";
import { text } from "./text.js";
import { waitingRoom } from "./waiting.js";

const LOG_LINES = 40;
const COLORS = ["red", "yellow", "green", "blue"];

export function showTable(main, gameId, go) {
  const state = {
    view: null, busy: false, unoArmed: false, log: [], loggedSeq: 0,
    results: null, end: null, note: "", stopped: null, rematchBy: null, left: false,
  };
  // The status line stays one element, so that screen readers announce its changes.
  const statusLine = h("p", { class: "status", role: "status" });
  const content = h("div", { class: "table-content" });
  const root = h("div", { class: "table", "aria-busy": "true" }, statusLine, content);
  main.replaceChildren(root);
  // Table talk, and a waiting game's invitations of friends: drawn once, kept across views.
  const talk = tableTalk(gameId, { changed: () => render() });
  let invite = null;

  // The player's own seat is theirs by their id, not by the view's `you`, which a
  // bot holding it after their timeouts leaves empty: the log names them alike.
  const signedIn = player();
  // The log and the prompts name a player by name alone, with the tag only where
  // another seat has the same name; the seats' list shows every tag beside the name.
  const namesake = (s) => state.view.seats.some((o) => o !== s && o.player
    && o.player.name.toLowerCase() === s.player.name.toLowerCase());
  const name = (seat) => {
    const s = state.view && state.view.seats[seat];
    if (!s) return `#${seat}`;
    const base = !s.player ? text.botName(s.bot, seat)
      : namesake(s) ? text.tagged(s.player.name, s.player.tag) : s.player.name;
    return s.player && signedIn && s.player.id === signedIn.id ? `${base} (${text.you})` : base;
  };

  // The seats' list: the name, its tag (muted) and whether it is the player's own.
  function seatName(s) {
    if (!s.player) return [name(s.seat)];
    const mine = signedIn && s.player.id === signedIn.id;
    return [s.player.name, s.player.tag ? h("span", { class: "tag" }, text.tag(s.player.tag)) : null,
      mine ? ` (${text.you})` : null];
  }

  function applyView(view) {
    if (state.view && view.version < state.view.version) return;
    if (!state.view || view.version !== state.view.version) state.unoArmed = false;
    state.view = view;
  }

  function logEvents(events) {
    for (const event of events) {
      if (event.seq <= state.loggedSeq) continue;
      state.loggedSeq = event.seq;
      if (event.type === "rematch_offered") state.rematchBy = event.data.by;
      if (event.type === "round_ended") {
        state.results = { round: event.round, seat: event.seat, ...event.data };
      }
      const line = text.event[event.type];
      const said = line && line(name(event.seat), event.data, name);
      if (said) state.log.push({ seq: event.seq, said });
    }
    state.log = state.log.slice(-LOG_LINES);
  }

  async function refresh() {
    try {
      applyView(await get(`/games/${gameId}`));
    } catch (err) {
      state.note = text.error(err.message);
    }
    render();
  }

  async function send(move) {
    if (state.busy) return;
    const body = { ...move };
    if (body.action === "play" && state.unoArmed) body.uno = true;
    state.busy = true;
    render();
    try {
      const answer = await post(`/games/${gameId}/moves`, body);
      applyView(answer.game);
      logEvents(answer.events);
      state.note = "";
    } catch (err) {
      // Someone moved first (or the table changed): read it again and decide afresh.
      if (err instanceof ApiError && err.status === 409) await refresh();
      else state.note = text.error(err.message);
    }
    state.busy = false;
    render();
  }

  async function playCard(card, moves) {
    let chosen = moves;
    if (moves.some((m) => m.color)) {
      const color = await choose(text.chooseColor, COLORS
        .filter((c) => moves.some((m) => m.color === c))
        .map((c) => ({ label: text.colors[c], value: c, class: `swatch card-${c}` })), text.cancel);
      if (!color) return;
      chosen = moves.filter((m) => m.color === color);
    }
    if (chosen.length > 1 && chosen.some((m) => m.target !== undefined)) {
      const target = await choose(text.chooseTarget, chosen.map((m) =>
        ({ label: name(m.target), value: String(m.target) })), text.cancel);
      if (target === null) return;
      chosen = chosen.filter((m) => String(m.target) === target);
    }
    send(chosen[0]);
  }

  async function chooseColor(moves) {
    const color = await choose(text.chooseColor, moves.map((m) =>
      ({ label: text.colors[m.color], value: m.color, class: `swatch card-${m.color}` })), text.cancel);
    if (color) send(moves.find((m) => m.color === color));
  }

  function seatsList(view) {
    return h("ol", { class: "seats", "aria-label": text.seats }, view.seats.map((s) => {
      const turn = view.current_seat === s.seat;
      const deadline = turn && view.turn_deadline;
      return h("li", { class: `seat${turn ? " turn" : ""}`, "aria-current": turn ? "true" : null },
        h("span", { class: "seat-name" }, ...seatName(s)),
        h("span", { class: "seat-cards" }, text.cards(s.card_count)),
        h("span", { class: "seat-score" }, text.points(s.score)),
        s.said_uno ? h("span", { class: "badge uno" }, text.saidUno) : null,
        talk.bubble(s.seat),
        s.online ? null : h("span", { class: "badge away" }, text.offline),
        turn ? h("span", { class: "badge turn" }, text.toAct) : null,
        deadline ? h("span", { class: "countdown", "data-deadline": deadline }) : null);
    }));
  }

  function pile(view) {
    if (!view.top_card) return h("div", { class: "pile" }, h("p", {}, text.waitingToStart));
    return h("div", { class: "pile", "aria-label": text.pile, role: "group" },
      cardElement("div", view.top_card, { "aria-label": `${text.pile}: ${text.cardName(view.top_card)}`,
                                          role: "img", "data-card": view.top_card.id }),
      h("div", { class: "pile-info" },
        h("p", { class: `current-color color-${view.current_color || "none"}` },
          text.currentColor(view.current_color)),
        h("p", {}, text.drawPile(view.draw_pile_count)),
        h("p", {}, `${text.round(view.round)} · ${text.direction[view.direction]}`)));
  }

  function actions(view, legal) {
    const by = (action) => legal.filter((m) => m.action === action);
    const button = (key, label, onclick, extra = {}) => h("button", {
      type: "button", "data-key": key, disabled: state.busy, onclick, ...extra }, label);
    const drawnCard = view.pending && view.pending.type === "drawn_card" && view.you &&
      view.pending.seat === view.you.seat;
    const list = [];
    for (const m of by("draw")) list.push(button("draw", text.draw, () => send(m)));
    for (const m of by("pass")) list.push(button("pass", drawnCard ? text.keep : text.pass, () => send(m)));
    const colors = by("choose_color");
    if (colors.length) list.push(button("choose-color", text.chooseColor, () => chooseColor(colors)));
    for (const m of by("challenge")) list.push(button("challenge", text.challenge, () => send(m)));
    for (const m of by("accept")) list.push(button("accept", text.accept, () => send(m)));
    const call = by("call_uno")[0];
    const canArm = view.you && view.you.hand.length === 2 && by("play").length > 0;
    if (call) list.push(button("uno", text.uno, () => send(call), { class: "uno-button" }));
    else if (canArm) {
      list.push(button("uno", state.unoArmed ? text.unoArmed : text.uno, () => {
        state.unoArmed = !state.unoArmed;
        render();
      }, { class: "uno-button", "aria-pressed": state.unoArmed ? "true" : "false",
           title: text.unoHelp }));
    }
    for (const m of by("catch_uno")) {
      list.push(button(`catch-${m.target}`, text.catchUno(name(m.target)), () => send(m)));
    }
    return h("div", { class: "actions", role: "group", "aria-label": text.actions }, list);
  }

  function hand(view, legal) {
    if (!view.you) return null;
    return h("section", { class: "hand-area", "aria-labelledby": "hand-title" },
      h("h2", { id: "hand-title", class: "visually-hidden" }, text.yourHand),
      h("ul", { class: "hand" }, view.you.hand.map((card) => {
        const moves = legal.filter((m) => m.action === "play" && m.card === card.id);
        // While a move is on its way the cards keep their look; `send` ignores clicks.
        const playable = moves.length > 0;
        return h("li", {}, cardElement("button", card, {
          type: "button", "data-key": `card-${card.id}`, "data-card": card.id,
          class: playable ? "playable" : "dimmed",
          "aria-disabled": playable ? null : "true",
          onclick: () => { if (playable && !state.busy) playCard(card, moves); },
        }, playable ? text.playCard(text.cardName(card)) : text.cannotPlay(text.cardName(card))));
      })));
  }

  // A spectator: no seat of theirs at this table, not even one a bot took.
  function watching(view) {
    const me = player();
    return !view.you && !(me && view.seats.some((s) => s.player && s.player.id === me.id));
  }

  function status(view) {
    let said;
    if (view.status === "waiting") said = text.waitingForPlayers;
    else if (view.status !== "playing") said = view.status === "abandoned" ? text.abandoned : text.gameOver;
    else if (view.you && view.current_seat === view.you.seat) said = text.yourTurn;
    else said = text.waitingFor(name(view.current_seat));
    if (watching(view)) said = `${text.watching} ${said}`;
    const line = state.note ? `${said} ${state.note}` : said;
    if (statusLine.textContent !== line) statusLine.textContent = line;
  }

  function results(view) {
    const over = view.status === "finished" || view.status === "abandoned";
    if (!state.results && !over) return null;
    const parts = [];
    if (over) {
      parts.push(h("h2", { id: "over-title" }, text.gameOver),
        h("p", { class: "winner" }, view.winner === null ? text.abandoned : text.winner(name(view.winner))));
    }
    const r = state.results;
    if (r) {
      parts.push(h("h3", {}, text.resultsTitle(r.round)),
        h("p", {}, text.roundWinner(name(r.seat), r.points)),
        h("table", {}, h("caption", { class: "visually-hidden" }, text.scoresTitle),
          h("tbody", {}, view.seats.map((s) => h("tr", {},
            h("th", { scope: "row" }, name(s.seat)),
            h("td", {}, (r.hands && r.hands[String(s.seat)] || []).map(text.cardName).join(", ") ||
              "—"),
            h("td", {}, text.points(r.scores[s.seat])))))));
    }
    if (over) {
      const me = player();
      if (state.rematchBy && me && state.rematchBy.id !== me.id) {
        parts.push(h("p", { class: "rematch", role: "status" }, text.rematchOffered(state.rematchBy.name)));
      }
      parts.push(h("div", { class: "host-actions" },
        view.status === "finished" && view.you ? h("button", {
          type: "button", "data-key": "rematch", disabled: state.busy, onclick: rematch,
        }, text.playAgain) : null,
        h("a", { href: `/play/games/${gameId}/replay`, "data-link": true, class: "button secondary",
                 "data-key": "replay" }, text.replay),
        h("a", { href: "/play/", "data-link": true, class: "button" }, text.backToLobby)));
    }
    return h("section", { class: `results${over ? " over" : ""}`, "aria-live": "polite" }, parts);
  }

  // A seat a bot took after the player's turns ran out: theirs to take back.
  function resumeOffer(view) {
    const me = player();
    const mine = view.status === "playing" && !view.you && me &&
      view.seats.find((s) => s.player && s.player.id === me.id && s.bot);
    if (!mine) return null;
    return h("div", { class: "notice" }, h("p", {}, text.botHasSeat),
      h("button", { type: "button", "data-key": "resume", disabled: state.busy, onclick: () => act("/resume") },
        text.resume));
  }

  async function cancel() {
    await post("/matchmaking/cancel").catch(() => null);
    go("/play/");
  }

  // The next game with the same players: made by the first to ask, joined by the others.
  async function rematch() {
    if (state.busy) return;
    state.busy = true;
    render();
    try {
      const next = await post(`/games/${gameId}/rematch`);
      go(`/play/games/${next.id}`);
      return;
    } catch (err) {
      state.note = text.error(err.message);
    }
    state.busy = false;
    render();
  }

  // Once the game is over its stream has closed: a long poll hears of a rematch.
  async function awaitRematch(after) {
    while (!state.left && !state.rematchBy) {
      try {
        const answer = await get(`/games/${gameId}/events?after=${after}&wait=30`);
        logEvents(answer.events);
        if (answer.events.length) after = answer.events[answer.events.length - 1].seq;
        if (state.rematchBy) await refresh();
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 10000));
      }
    }
  }

  // An action on the game that answers its view: resume, add a bot, start.
  async function act(path, body) {
    if (state.busy) return;
    state.busy = true;
    render();
    try {
      applyView(await post(`/games/${gameId}${path}`, body));
      state.note = "";
    } catch (err) {
      state.note = text.error(err.message);
    }
    state.busy = false;
    render();
  }

  function logList() {
    return h("section", { class: "log", "aria-labelledby": "log-title" },
      h("h2", { id: "log-title" }, text.log),
      // The log role on a wrapper: on the list itself it would hide that it is a list.
      // The list scrolls, so the keyboard can reach it (its data-key keeps the focus).
      h("div", { role: "log" }, h("ol", { tabindex: 0, "data-key": "log", "aria-labelledby": "log-title" },
        state.log.slice().reverse().map((l) => h("li", {}, l.said)))));
  }

  function render() {
    const view = state.view;
    if (!view) return;
    const legal = view.you && view.status === "playing" ? view.you.legal_moves : [];
    root.setAttribute("aria-busy", state.busy ? "true" : "false");
    root.dataset.status = view.status;
    root.classList.toggle("watching", watching(view));
    const over = view.status === "finished" || view.status === "abandoned";
    status(view);
    talk.update(view, watching(view));
    // A seated player may invite friends while the game waits with a seat free.
    const inviting = view.status === "waiting" && view.you && !view.quick_match &&
      view.seats.length < view.max_players;
    if (inviting && !invite) invite = inviteControl(gameId);
    if (invite) invite.update(view);
    replace(content,
      state.stopped ? h("p", { class: "error", role: "alert" }, text.stopped) : null,
      resumeOffer(view),
      view.status === "waiting" ? waitingRoom(view, { busy: state.busy, post: act, cancel,
                                                      invite: inviting ? invite.element : null }) : null,
      over ? results(view) : null,
      seatsList(view),
      h("div", { class: "middle" }, pile(view), watching(view) ? null : actions(view, legal)),
      hand(view, legal),
      over ? null : results(view),
      h("div", { class: "talk-and-log" }, talk.element, logList()));
    tick();
  }

  function tick() {
    for (const el of content.querySelectorAll("[data-deadline]")) {
      const left = Math.max(0, Math.round((Date.parse(el.dataset.deadline) - Date.now()) / 1000));
      el.textContent = text.secondsLeft(left);
    }
  }
  const clock = setInterval(tick, 1000);

  const stop = follow(gameId, {
    view(view) { state.note = ""; applyView(view); render(); },
    event(event) { logEvents([event]); },
    message(message) { talk.take(message); },
    end(end) {
      state.end = end;
      awaitRematch(end.last_seq);
      if (!state.view || state.view.status === "playing") refresh();
      else render();
    },
    stop(status, error) {
      state.stopped = { status, error };
      if (!state.view) main.replaceChildren(h("p", { class: "error", role: "alert" }, text.notFound));
      else render();
    },
    drop() { state.note = text.reconnecting; render(); },
  });
  return () => {
    state.left = true;
    stop();
    clearInterval(clock);
    talk.stop();
    if (invite) invite.stop();
  };
}
