// The table as it is drawn: every seat around the pile in the order play goes round,
// the one to play and the one after them marked, the pile in a ring of the colour in
// play, the way play goes around it, and the player's hand below.
import { cardElement } from "./cards.js";
import { h } from "./dom.js";
import { text } from "./text.js";

const SORT_KEY = "uno.sortHand";
const COLOR_ORDER = ["red", "yellow", "green", "blue", null];
// The 112-card deck's wilds among the wilds, the Wild Draw Four still last.
const KIND_ORDER = ["number", "skip", "reverse", "draw_two", "wild", "wild_customizable",
  "wild_shuffle_hands", "wild_draw_four"];
const MOST_BACKS = 7;

export const sorting = () => localStorage.getItem(SORT_KEY) !== "false";

// The hand by colour, then number and kind, as a player holds it; or as dealt.
export function ordered(hand) {
  if (!sorting()) return hand;
  const rank = (card) => [COLOR_ORDER.indexOf(card.color || null), KIND_ORDER.indexOf(card.kind),
    card.number ?? 0, card.id];
  return hand.slice().sort((a, b) => {
    const ra = rank(a), rb = rank(b);
    for (let i = 0; i < ra.length; i += 1) if (ra[i] !== rb[i]) return ra[i] - rb[i];
    return 0;
  });
}

// The seat after `seat` in the way play goes now.
export function seatAfter(view, seat) {
  const n = view.seats.length;
  return view.direction === "counterclockwise" ? (seat - 1 + n) % n : (seat + 1) % n;
}

// Where each seat sits, as a point of the ellipse around the pile (x and y from -1
// to 1): the player's own at the bottom, the others from their left over the top to
// their right, so that clockwise play goes clockwise on the screen. A spectator sees
// the table from seat 0.
export function places(view) {
  const n = view.seats.length;
  const bottom = view.you ? view.you.seat : 0;
  const others = n - 1;
  return view.seats.map((s) => {
    const k = (s.seat - bottom + n) % n;
    if (k === 0) return { x: 0, y: 1 };
    // From a little below the left (160°) over the top to a little below the right (20°).
    const degrees = others === 1 ? 270 : 160 + ((k - 1) * 220) / (others - 1);
    const radians = (degrees * Math.PI) / 180;
    return { x: Number(Math.cos(radians).toFixed(3)), y: Number(Math.sin(radians).toFixed(3)) };
  });
}

function backs(count) {
  return h("span", { class: "backs", "aria-hidden": "true" },
    Array.from({ length: Math.min(count, MOST_BACKS) }, () => h("span", { class: "back" })));
}

// One seat: `name` are the nodes of its name; `extra` what the table adds (table
// talk's bubble, the turn's countdown).
export function seatElement(view, s, { name, place, next, mine, extra = [] }) {
  const playing = view.status === "playing";
  const turn = playing && view.current_seat === s.seat;
  // Partners: seats 0 and 2 against 1 and 3; the player's partner sits across.
  const team = s.team === null || s.team === undefined ? null : s.team;
  const partner = team !== null && !mine && view.you && view.seats[view.you.seat].team === team;
  const shown = partner && view.you.partner_hand;
  const seat = h("li", {
    class: `seat${turn ? " turn" : ""}${next ? " next" : ""}${mine ? " mine" : ""}` +
      `${partner ? " partner" : ""}${team !== null ? ` team-${team}` : ""}`,
    "data-seat": s.seat, "aria-current": turn ? "true" : null,
  },
  h("span", { class: "seat-name" }, ...name),
  team !== null ? h("span", { class: `badge team team-${team}` }, partner ? text.partner : text.team(team)) : null,
  h("span", { class: "seat-hand" },
    shown
      ? h("span", { class: "mini-hand partner-hand", "aria-label": text.partnerHand },
        shown.map((card) => cardElement("span", card, { role: "img", "aria-label": text.cardName(card) })))
      : backs(s.card_count),
    h("span", { class: "seat-cards" }, text.cards(s.card_count))),
  h("span", { class: "seat-score" }, text.points(s.score)),
  // An UNO said stands for the last card; once out, there is nothing left to say it of.
  s.said_uno && s.card_count === 1 ? h("span", { class: "badge uno" }, text.saidUno) : null,
  s.online ? null : h("span", { class: "badge away" }, text.offline),
  turn ? h("span", { class: "badge turn" }, text.toAct) : null,
  next ? h("span", { class: "badge next" }, text.nextUp) : null,
  ...extra);
  // Through the CSSOM: the page's Content-Security-Policy refuses style attributes.
  seat.style.setProperty("--x", String(place.x));
  seat.style.setProperty("--y", String(place.y));
  return seat;
}

// The middle of the table: the way play goes, the draw pile (a button when drawing
// is a move the player may make) and the discard pile in the colour in play; and
// the round's number and the direction in words.
export function centre(view, { draw, busy }) {
  if (!view.top_card) return h("div", { class: "centre not-dealt" }, h("p", {}, text.waitingToStart));
  const color = view.current_color || "none";
  // Named by its words, the count seen among them: "Draw a card: 79 cards left".
  const count = [draw ? h("span", { class: "visually-hidden" }, `${text.draw}: `) : null,
    h("span", { class: "draw-count" }, String(view.draw_pile_count)),
    h("span", { class: "visually-hidden" }, ` ${text.leftToDraw}`)];
  const drawPile = draw
    ? h("button", { type: "button", class: "card card-back draw-pile", "data-key": "draw-pile",
                    disabled: busy, onclick: draw }, count)
    : h("div", { class: "card card-back draw-pile" }, count);
  return [h("div", { class: "centre" },
    h("div", { class: `direction ${view.direction}`, "aria-hidden": "true" }),
    drawPile,
    h("div", { class: `pile ring-${color}`, role: "group", "aria-label": text.pile },
      cardElement("div", view.top_card, { role: "img", class: "top-card", "data-card": view.top_card.id,
        "aria-label": `${text.pile}: ${text.cardName(view.top_card)}` }),
      h("p", { class: `current-color color-${color}` },
        h("span", { class: "visually-hidden" }, text.colorInPlay),
        view.current_color ? text.colors[view.current_color] : text.noColorYet))),
  h("p", { class: "table-facts" }, `${text.round(view.round)} · `,
    h("span", { class: "direction-name" }, text.direction[view.direction]))];
}

// The 112-card deck's Wild Customizable does what the host chose: said under the
// table, so that nobody has to remember it (or learn it from its first play). Under
// it, not on it: a phone's felt has no room left for a sentence.
export function customizableNote(view) {
  if (view.deck !== "modern_112" || !view.wild_customizable) return null;
  return h("p", { class: "deck-note", "data-effect": view.wild_customizable },
    h("span", { class: "deck-note-symbol", "aria-hidden": "true" }, text.symbols.wild_customizable),
    " ", text.customizableNote(view.wild_customizable));
}

// The player's hand: each card a button, raised when it can be played; the cards
// just drawn marked until the next move. `play(card, moves)` plays one.
export function handElement(view, legal, { busy, drawn, play, resort }) {
  if (!view.you) return null;
  const cards = ordered(view.you.hand);
  return h("section", { class: "hand-area", "aria-labelledby": "hand-title" },
    h("div", { class: "hand-head" },
      h("h2", { id: "hand-title" }, text.yourHand, " ",
        h("span", { class: "hand-count" }, `(${text.cards(cards.length)})`)),
      h("label", { class: "sort-hand" },
        h("input", { type: "checkbox", "data-key": "sort-hand", checked: sorting(),
                     onchange: (e) => { localStorage.setItem(SORT_KEY, String(e.target.checked)); resort(); } }),
        text.sortHand)),
    h("ul", { class: "hand" }, cards.map((card) => {
      const moves = legal.filter((m) => m.action === "play" && m.card === card.id);
      // While a move is on its way the cards keep their look; `play` ignores clicks.
      const playable = moves.length > 0;
      const fresh = drawn.has(card.id);
      const label = `${playable ? text.playCard(text.cardName(card)) : text.cannotPlay(text.cardName(card))}` +
        (fresh ? ` (${text.justDrawn})` : "");
      return h("li", {}, cardElement("button", card, {
        type: "button", "data-key": `card-${card.id}`, "data-card": card.id,
        class: `${playable ? "playable" : "dimmed"}${fresh ? " drawn" : ""}`,
        "aria-disabled": playable ? null : "true",
        onclick: () => { if (playable && !busy()) play(card, moves); },
      }, label));
    })));
}
