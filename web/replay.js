// A finished game's replay: the events of its log on a slider marked where each round
// starts, a picker of the rounds, and the whole table after the chosen event, every
// hand shown. Tables come from /replay one seq at a time, only for the events the
// slider settles on, and are kept once read.
import { get } from "./api.js";
import { cardElement } from "./cards.js";
import { h } from "./dom.js";
import { text } from "./text.js";

// Long enough that holding an arrow key or dragging asks only for where it stops.
const SETTLE_MS = 250;

export function seatName(players, seat) {
  const s = players.find((p) => p.seat === seat);
  if (!s) return `#${seat}`;
  return s.player ? s.player.name : text.botName(s.bot, seat);
}

export function showReplay(main, gameId) {
  let left = false, timer = null, crowding = null;
  const tables = new Map();
  main.replaceChildren(h("p", {}, text.loading));

  async function start() {
    let log;
    try {
      log = await get(`/games/${gameId}/log`);
    } catch (err) {
      if (!left) main.replaceChildren(h("p", { class: "error", role: "alert" }, text.error(err.message)));
      return;
    }
    if (left) return;
    const game = log.game;
    const players = [...game.players].sort((a, b) => a.seat - b.seat);
    const name = (seat) => seatName(players, seat);
    const title = h("h1", { id: "replay-title" }, text.replayTitle);
    const back = h("a", { href: `/play/games/${gameId}`, "data-link": true, class: "button secondary" },
      text.backToGame);
    if (!["finished", "abandoned"].includes(game.status) || log.events.length === 0) {
      main.replaceChildren(h("section", { class: "panel", "aria-labelledby": "replay-title" },
        title, h("p", {}, text.replayNotOver), back));
      return;
    }
    const events = log.events;
    const last = events.length;
    const lineOf = (event) => {
      const line = text.event[event.type] || text.replayEvent[event.type];
      return (line && line(name(event.seat), event.data, name)) || text.eventType(event.type);
    };
    const asked = Number(new URLSearchParams(location.search).get("seq"));
    const rounds = events.filter((e) => e.type === "round_started")
      .map((e, i) => ({ seq: e.seq, round: e.round ?? i + 1 }));
    // An event belongs to the last round started at or before it (a round's end and
    // the game's come before the next deal).
    const roundAt = (at) => rounds.findLast((r) => r.seq <= at) || null;
    let seq = asked >= 1 && asked <= last ? asked : rounds.length ? rounds[0].seq : 1;

    const slider = h("input", { type: "range", id: "replay-seq", min: 1, max: last, step: 1,
                                value: seq, "aria-describedby": "replay-event" });
    const position = h("span", { class: "replay-position" });
    const said = h("p", { id: "replay-event", class: "replay-event", "aria-live": "polite" });
    const previous = h("button", { type: "button", class: "secondary", "data-key": "previous",
                                   "aria-label": text.previousEvent, onclick: () => move(seq - 1) },
      `← ${text.previous}`);
    const next = h("button", { type: "button", class: "secondary", "data-key": "next",
                               "aria-label": text.nextEvent, onclick: () => move(seq + 1) },
      `${text.next} →`);
    const table = h("section", { class: "replay-table", "aria-label": text.replayTitle, "aria-busy": "true" });
    slider.addEventListener("input", () => move(Number(slider.value)));
    const picker = rounds.length === 0 ? null : h("select", { id: "replay-round" },
      rounds[0].seq > 1 ? h("option", { value: 1 }, text.replayBeforeTheDeal) : null,
      rounds.map((r) => h("option", { value: r.seq }, text.replayRoundOf(r.round, rounds.length))));
    picker?.addEventListener("change", () => move(Number(picker.value)));
    // The picker says the same to assistive technology: the marks are for the eye.
    const marks = rounds.length === 0 ? null : h("ol", { class: "replay-marks", "aria-hidden": "true" },
      rounds.map((r) => {
        const mark = h("li", { class: "replay-mark", "data-seq": r.seq }, String(r.round));
        // Through the CSSOM: the page's policy refuses style attributes.
        mark.style.setProperty("--at", String((r.seq - 1) / Math.max(1, last - 1)));
        return mark;
      }));
    crowding = marks && new ResizeObserver(() => uncrowd(marks));
    main.replaceChildren(h("div", { class: "replay" },
      h("div", { class: "replay-head" }, title, back),
      h("p", { class: "help" }, players.map((p) => name(p.seat)).join(", ")),
      h("div", { class: "replay-controls panel" },
        h("div", { class: "replay-label" },
          h("span", { class: "replay-where" }, h("label", { for: "replay-seq" }, text.replaySlider), position),
          picker && h("span", { class: "replay-round" }, h("label", { for: "replay-round" }, text.replayRound), picker)),
        h("div", { class: "replay-track" }, slider, marks),
        h("div", { class: "replay-steps" }, previous, next),
        said),
      table));
    crowding?.observe(marks);

    // The slider, the picker, the marks and the text follow at once; the table once
    // the slider settles.
    function move(to) {
      seq = Math.min(last, Math.max(1, to));
      slider.value = String(seq);
      const line = lineOf(events[seq - 1]);
      const round = roundAt(seq);
      position.textContent = text.replayPosition(seq, last);
      slider.setAttribute("aria-valuetext",
        `${text.replayAt(round && round.round, text.replayPosition(seq, last))}: ${line}`);
      if (picker) picker.value = String(round ? round.seq : 1);
      for (const mark of marks ? marks.children : []) {
        mark.classList.toggle("current", round !== null && mark.dataset.seq === String(round.seq));
      }
      said.textContent = line;
      previous.disabled = seq <= 1;
      next.disabled = seq >= last;
      history.replaceState(null, "", `${location.pathname}?seq=${seq}`);
      table.setAttribute("aria-busy", "true");
      clearTimeout(timer);
      timer = setTimeout(() => show(seq), tables.has(seq) ? 0 : SETTLE_MS);
    }

    async function show(wanted) {
      if (!tables.has(wanted)) {
        try {
          tables.set(wanted, await get(`/games/${gameId}/replay?seq=${wanted}`));
        } catch (err) {
          if (!left && wanted === seq) {
            table.replaceChildren(h("p", { class: "error", role: "alert" }, text.error(err.message)));
          }
          return;
        }
      }
      if (left || wanted !== seq) return;
      drawTable(table, tables.get(wanted), players, name);
      table.dataset.seq = String(wanted);
      table.setAttribute("aria-busy", "false");
    }

    move(seq);
  }

  start();
  return () => { left = true; clearTimeout(timer); crowding?.disconnect(); };
}

// A round's number under its mark, unless it would run into the one before: short
// rounds sit close together on a phone, and their marks alone say enough there.
function uncrowd(marks) {
  let right = -Infinity;
  for (const mark of marks.children) {
    mark.classList.remove("crowded");
    const box = mark.getBoundingClientRect();
    if (box.left < right + 4) mark.classList.add("crowded");
    else right = box.right;
  }
}

function drawTable(table, at, players, name) {
  const seats = players.map((p) => {
    const hand = (at.hands && at.hands[String(p.seat)]) || [];
    const turn = at.current_seat === p.seat;
    return h("li", { class: `replay-seat seat${turn ? " turn" : ""}`, "data-seat": p.seat,
                     "aria-current": turn ? "true" : null },
      h("span", { class: "seat-name" }, name(p.seat)),
      h("span", { class: "seat-cards" }, text.cards(hand.length)),
      h("span", { class: "seat-score" }, text.points((at.scores && at.scores[p.seat]) || 0)),
      turn ? h("span", { class: "badge turn" }, text.toAct) : null,
      h("ul", { class: "replay-hand", "aria-label": text.handOf(name(p.seat)) },
        hand.map((card) => h("li", {}, cardElement("div", card, {
          role: "img", "aria-label": text.cardName(card), "data-code": card.code })))));
  });
  const pile = at.top_card
    ? h("div", { class: "middle replay-pile" }, h("div", { class: "pile" },
      cardElement("div", at.top_card, { role: "img", class: "top-card", "data-code": at.top_card.code,
                                        "aria-label": `${text.pile}: ${text.cardName(at.top_card)}` }),
      h("div", { class: "pile-info" },
        h("p", { class: `current-color color-${at.current_color || "none"}` },
          text.currentColor(at.current_color)),
        h("p", {}, text.drawPile(at.draw_pile.length)),
        at.round ? h("p", {}, `${text.round(at.round)} · ${text.direction[at.direction]}`) : null)))
    : h("p", { class: "replay-undealt" }, text.beforeTheDeal);
  table.replaceChildren(pile, h("ol", { class: "replay-seats", "aria-label": text.seats }, seats));
}
