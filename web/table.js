// A game's table: the seats around the pile, the player's hand and moves, what
// happened, the ends of rounds and of the game; kept up to date from the game's
// stream. Moves are sent the moment they are chosen; what moves on the screen
// (web/motion.js) follows them and never holds one back.
import { ApiError, get, player, post } from "./api.js";
import { choose, flash, h, replace } from "./dom.js";
import { gameOver, showRoundEnd } from "./ends.js";
import { centre, customizableNote, handElement, places, seatAfter, seatElement } from "./felt.js";
import { inviteControl } from "./friends.js";
import { eventsSoFar, logPanel } from "./log.js";
import { showEffects } from "./effects.js";
import { motionLayer } from "./motion.js";
import { follow } from "./stream.js";
import { tableTalk } from "./talk.js";
import { text } from "./text.js";
import { waitingRoom } from "./waiting.js";
import { seeded } from "./verify.js";

const KEPT_EVENTS = 1000;
const COLORS = ["red", "yellow", "green", "blue"];

export function showTable(main, gameId, go) {
  const state = {
    view: null, busy: false, unoArmed: false, events: [], lastSeq: 0, fresh: [],
    results: null, lastPlayed: null, note: "", stopped: null, rematchBy: null, left: false,
    drawn: new Set(), landing: new Set(), ahead: null, closeRoundEnd: null,
  };
  // The status line stays one element, so that screen readers announce its changes.
  const statusLine = h("p", { class: "status", role: "status" });
  const leaveButton = h("button", { type: "button", class: "secondary leave", "data-key": "leave",
                                    hidden: true, onclick: () => leave() }, text.leave);
  const content = h("div", { class: "table-content" });
  const roundEnd = h("dialog", { class: "round-end", "aria-labelledby": "round-end-title" });
  const layer = motionLayer();
  const root = h("div", { class: "table", "aria-busy": "true" },
    h("div", { class: "table-bar" }, statusLine, leaveButton), content, roundEnd, layer);
  main.replaceChildren(root);
  // Table talk, and a waiting game's invitations of friends: drawn once, kept across views.
  const talk = tableTalk(gameId, { changed: () => render() });
  let invite = null;

  // The player's own seat is theirs by their id, not by the view's `you`, which a
  // bot holding it after their timeouts leaves empty: the log names them alike.
  const signedIn = player();
  const isMe = (p) => Boolean(p && signedIn && p.id === signedIn.id);
  // The log and the prompts name a player by name alone, with the tag only where
  // another seat has the same name; the seats show every tag beside the name.
  const namesake = (s) => state.view.seats.some((o) => o !== s && o.player
    && o.player.name.toLowerCase() === s.player.name.toLowerCase());
  const name = (seat) => {
    const s = state.view && state.view.seats[seat];
    if (!s) return `#${seat}`;
    const base = !s.player ? text.botName(s.bot, seat)
      : namesake(s) ? text.tagged(s.player.name, s.player.tag) : s.player.name;
    return isMe(s.player) ? `${base} (${text.you})` : base;
  };
  // The player's own seat, at the bottom, needs no tag to be told apart.
  function seatName(s) {
    if (!s.player) return [name(s.seat)];
    if (isMe(s.player)) return [s.player.name, ` (${text.you})`];
    return [s.player.name, s.player.tag ? h("span", { class: "tag" }, text.tag(s.player.tag)) : null];
  }
  const mySeat = () => (state.view && state.view.you ? state.view.you.seat : null);

  function applyView(view) {
    if (state.view && view.version < state.view.version) return;
    if (!state.view || view.version !== state.view.version) state.unoArmed = false;
    state.view = view;
  }

  // Events in seq order, each once, whether from /events, a move's answer or the
  // stream; `live` ones are shown happening.
  function takeEvents(events, { live }) {
    for (const event of events) {
      if (event.seq <= state.lastSeq) continue;
      state.lastSeq = event.seq;
      state.events.push(event);
      if (live) state.fresh.push(event);
      const mine = event.seat !== null && event.seat === mySeat();
      if (event.type === "rematch_offered") state.rematchBy = event.data.by;
      if (event.type === "card_played") state.lastPlayed = event.data.card;
      if (event.type === "round_ended") {
        state.results = { round: event.round, seat: event.seat, card: state.lastPlayed, ...event.data };
      }
      // A card drawn stays marked until the player's next move (`send`), through a
      // pass the draw made by itself; a card of theirs played from elsewhere ends it too.
      if (live && mine && event.type === "cards_drawn" && event.data.cards) {
        state.drawn = new Set(event.data.cards.map((c) => c.id));
      } else if ((mine && event.type === "card_played") || event.type === "hands_shuffled") {
        // A Wild Shuffle Hands deals everyone a new hand: nothing in it was just drawn.
        state.drawn = new Set();
      }
    }
    if (state.events.length > KEPT_EVENTS) state.events = state.events.slice(-KEPT_EVENTS);
  }

  async function refresh() {
    try {
      applyView(await get(`/games/${gameId}`));
    } catch (err) {
      state.note = text.error(err.message);
    }
    render();
  }

  // The played card leaves the hand at once, before the service answers: the card on
  // the pile, the hand without it, nothing else to play until the answer comes.
  function playAhead(move) {
    const view = state.view;
    const card = view.you.hand.find((c) => c.id === move.card);
    if (!card) return;
    // Where the card is now: the table may have been drawn again while a colour was chosen.
    const shownCard = content.querySelector(`.hand [data-card="${card.id}"]`);
    const from = shownCard ? shownCard.getBoundingClientRect() : null;
    state.view = { ...view, top_card: card, current_color: move.color || card.color,
      you: { ...view.you, hand: view.you.hand.filter((c) => c !== card), legal_moves: [] } };
    state.ahead = { card: card.id, from };
  }

  async function send(move) {
    if (state.busy) return;
    const body = { ...move };
    if (body.action === "play" && state.unoArmed) body.uno = true;
    if (body.action !== "draw") state.drawn = new Set();
    state.busy = true;
    if (body.action === "play") playAhead(body);
    render();
    shown();
    try {
      const answer = await post(`/games/${gameId}/moves`, body);
      takeEvents(answer.events, { live: true });
      applyView(answer.game);
      state.note = "";
    } catch (err) {
      // Someone moved first, or the move was refused: the table as it really is.
      if (!(err instanceof ApiError && err.status === 409)) state.note = text.error(err.message);
      state.fresh = [];
      state.ahead = null;
      await refresh();
    }
    state.busy = false;
    render();
    shown();
  }

  async function playCard(card, moves) {
    let chosen = moves;
    if (moves.some((m) => m.color)) {
      // A Wild Customizable that discards a colour: the colour named is also the one
      // the player gives up, so the choice says how many cards each would take.
      const discards = card.kind === "wild_customizable" && state.view.wild_customizable === "discard_color";
      const left = (c) => state.view.you.hand.filter((other) => other.color === c).length;
      const color = await choose(discards ? text.chooseDiscardColor : text.chooseColor, COLORS
        .filter((c) => moves.some((m) => m.color === c))
        .map((c) => ({ label: discards ? text.colorDiscarding(c, left(c)) : text.colors[c], value: c,
                       class: `swatch card-${c}` })), text.cancel);
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

  function seatsElement(view) {
    const where = places(view);
    const next = view.status === "playing" ? seatAfter(view, view.current_seat) : null;
    return h("ol", { class: "seats", "aria-label": text.seats },
      view.seats.map((s, i) => {
        const turn = view.status === "playing" && view.current_seat === s.seat;
        const deadline = turn && view.turn_deadline;
        return seatElement(view, s, {
          name: seatName(s), place: where[i], next: next === s.seat && next !== view.current_seat,
          mine: s.seat === mySeat(),
          extra: [talk.bubble(s.seat),
            deadline ? h("span", { class: "countdown", "data-deadline": deadline }) : null],
        });
      }));
  }

  function actions(view, legal) {
    const by = (action) => legal.filter((m) => m.action === action);
    const button = (key, label, onclick, extra = {}) => h("button", {
      type: "button", "data-key": key, disabled: state.busy, onclick, ...extra }, label);
    const drawnCard = view.pending && view.pending.type === "drawn_card" && view.you &&
      view.pending.seat === view.you.seat;
    const list = [];
    const fourBy = view.pending && view.pending.type === "challenge" && by("challenge").length
      ? name(view.pending.accused) : null;
    if (fourBy) list.push(h("p", { class: "prompt", id: "challenge-prompt" }, text.challengePrompt(fourBy)));
    for (const m of by("draw")) list.push(button("draw", text.draw, () => send(m)));
    for (const m of by("pass")) list.push(button("pass", drawnCard ? text.keep : text.pass, () => send(m)));
    const colors = by("choose_color");
    if (colors.length) list.push(button("choose-color", text.chooseColor, () => chooseColor(colors)));
    for (const m of by("challenge")) {
      list.push(button("challenge", text.challenge, () => send(m), { "aria-describedby": "challenge-prompt" }));
    }
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

  // A spectator: no seat of theirs at this table, not even one a bot took.
  function watching(view) {
    return !view.you && !view.seats.some((s) => isMe(s.player));
  }

  function status(view) {
    let said;
    const myTurn = view.status === "playing" && view.you && view.current_seat === view.you.seat;
    if (view.status === "waiting") said = text.waitingForPlayers(view.max_players - view.seats.length);
    else if (view.status === "abandoned") said = text.abandoned;
    else if (view.status === "finished") said = text.gameOver;
    else if (myTurn) said = text.yourTurn;
    else said = text.waitingFor(name(view.current_seat));
    if (watching(view)) said = `${text.watching} ${said}`;
    const line = state.note ? `${said} ${state.note}` : said;
    if (statusLine.textContent !== line) statusLine.textContent = line;
    // The tab says so too, for a player looking at another one.
    document.title = myTurn ? text.yourTurnTitle : text.title;
  }

  function overActions(view) {
    const me = player();
    return [
      state.rematchBy && me && state.rematchBy.id !== me.id
        ? h("p", { class: "rematch", role: "status" }, text.rematchOffered(state.rematchBy.name)) : null,
      view.status === "finished" && view.you ? h("button", {
        type: "button", "data-key": "rematch", disabled: state.busy, onclick: rematch,
      }, text.playAgain) : null,
      h("a", { href: `/play/games/${gameId}/replay`, "data-link": true, class: "button secondary",
               "data-key": "replay" }, text.replay),
      h("a", { href: "/play/", "data-link": true, class: "button secondary" }, text.backToLobby),
    ];
  }

  // A seat a bot took after the player's turns ran out: theirs to take back.
  function resumeOffer(view) {
    const mine = view.status === "playing" && !view.you &&
      view.seats.find((s) => isMe(s.player) && s.bot);
    if (!mine) return null;
    return h("div", { class: "notice" }, h("p", {}, text.botHasSeat),
      h("button", { type: "button", "data-key": "resume", disabled: state.busy, onclick: () => act("/resume") },
        text.resume));
  }

  async function cancel() {
    await post("/matchmaking/cancel").catch(() => null);
    go("/play/");
  }

  // Leaving, once the player knows what it costs them.
  async function leave() {
    const view = state.view;
    if (!view || state.busy) return;
    const sure = await choose(text.leaveQuestion(view.status, view.rated), [
      { label: text.leaveConfirm, value: "leave", class: "danger" }], text.stay);
    if (!sure) return;
    state.busy = true;
    render();
    try {
      await post(`/games/${gameId}/leave`);
      flash(text.youLeft);
      go("/play/");
      return;
    } catch (err) {
      state.note = text.error(err.message);
    }
    state.busy = false;
    await refresh();
  }

  // The next game with the same players: made by the first to ask, joined by the
  // others. Against bots alone it starts at once: nobody else is to come.
  async function rematch() {
    if (state.busy) return;
    const alone = !state.view.seats.some((s) => s.player && !isMe(s.player));
    state.busy = true;
    render();
    try {
      const next = await post(`/games/${gameId}/rematch`);
      if (alone && next.status === "waiting" && isMe(next.host)) await post(`/games/${next.id}/start`, seeded());
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
        takeEvents(answer.events, { live: false });
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

  // The host's start with bots in every seat still free.
  async function startWithBots() {
    if (state.busy) return;
    state.busy = true;
    render();
    try {
      for (let seats = state.view.seats.length; seats < state.view.max_players; seats += 1) {
        applyView(await post(`/games/${gameId}/bots`, { strategy: "greedy" }));
      }
      applyView(await post(`/games/${gameId}/start`, seeded()));
      state.note = "";
    } catch (err) {
      state.note = text.error(err.message);
    }
    state.busy = false;
    render();
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
    leaveButton.hidden = over || watching(view);
    talk.update(view, watching(view));
    // A seated player may invite friends while the game waits with a seat free.
    const inviting = view.status === "waiting" && view.you && !view.quick_match &&
      view.seats.length < view.max_players;
    if (inviting && !invite) invite = inviteControl(gameId);
    if (invite) invite.update(view);
    const draw = legal.find((m) => m.action === "draw");
    replace(content,
      state.stopped ? h("p", { class: "error", role: "alert" }, text.stopped) : null,
      resumeOffer(view),
      view.status === "waiting" ? waitingRoom(view, { busy: state.busy, post: act, cancel, startWithBots,
                                                      invite: inviting ? invite.element : null }) : null,
      over ? gameOver(view, state.results, name, { actions: overActions(view) }) : null,
      h("section", { class: `felt seats-${view.seats.length}`, "aria-label": text.tableLabel },
        seatsElement(view),
        centre(view, { draw: draw && !watching(view) ? () => send(draw) : null, busy: state.busy })),
      customizableNote(view),
      watching(view) ? null : actions(view, legal),
      handElement(view, legal, { busy: () => state.busy, drawn: state.drawn, play: playCard, resort: render }),
      h("div", { class: "talk-and-log" }, talk.element, logPanel(state.events, name, render)));
    for (const id of state.landing) {
      const landing = content.querySelector(`[data-card="${id}"]`);
      if (landing) landing.classList.add("landing");
    }
    tick();
  }

  // What the last change did, shown on the table once it is drawn; the round's end
  // over it when the game goes on to another round.
  function shown() {
    const fresh = state.fresh;
    state.fresh = [];
    const ahead = state.ahead;
    state.ahead = null;
    showEffects({ content, layer, view: state.view, fresh, ahead, mySeat: mySeat(), landing: state.landing });
    // The newest round's end replaces an older one still shown; the game's end
    // takes the place of both.
    const ended = fresh.find((e) => e.type === "round_ended");
    if ((ended || state.view.status !== "playing") && state.closeRoundEnd) state.closeRoundEnd();
    if (ended && state.view.status === "playing") {
      state.closeRoundEnd = showRoundEnd(roundEnd, state.view, state.results, name,
        { onClose: () => { state.closeRoundEnd = null; } });
    }
  }

  function tick() {
    for (const el of content.querySelectorAll("[data-deadline]")) {
      const left = Math.max(0, Math.round((Date.parse(el.dataset.deadline) - Date.now()) / 1000));
      el.textContent = text.secondsLeft(left);
    }
  }
  const clock = setInterval(tick, 1000);

  let stop = () => {};
  (async () => {
    // The log as it was before the table opened (or was reloaded), then the stream
    // from right after it.
    let after = null;
    try {
      takeEvents(await eventsSoFar(gameId), { live: false });
      after = state.lastSeq;
    } catch {
      // The stream tells why the game cannot be followed.
    }
    if (state.left) return;
    stop = follow(gameId, {
      view(view) {
        state.note = "";
        applyView(view);
        render();
        shown();
      },
      event(event) { takeEvents([event], { live: true }); },
      message(message) { talk.take(message); },
      end(end) {
        awaitRematch(end.last_seq);
        if (!state.view || state.view.status === "playing") refresh();
        else render();
      },
      stop(code, error) {
        state.stopped = { code, error };
        if (!state.view) main.replaceChildren(h("p", { class: "error", role: "alert" }, text.notFound));
        else render();
      },
      drop() { state.note = text.reconnecting; render(); },
    }, { after });
  })();

  return () => {
    state.left = true;
    stop();
    clearInterval(clock);
    talk.stop();
    if (state.closeRoundEnd) state.closeRoundEnd();
    if (invite) invite.stop();
    document.title = text.title;
  };
}
