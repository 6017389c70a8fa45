// The end of a round, over the table until the player goes on (or its countdown
// runs out), and the end of the game: who went out and with which card, what every
// hand held and was worth, the totals and, at the game's end, the places.
import { cardElement } from "./cards.js";
import { h } from "./dom.js";
import { text } from "./text.js";
import { checkDealControl, points } from "./verify.js";

// The service's break between rounds (ROUND_BREAK_SECONDS, docs/api.md), unless its
// operator changed it: the next round's first turn waits as long.
export const NEXT_ROUND_SECONDS = 10;

// What a card left in a hand is worth to the round's winner: as the deal's check
// scores it (docs/rules.md, Scoring).
export const worth = points;

// `result`: the round_ended event's data with its `round`, `seat` (who went out) and
// `card` (the card they went out with, when known).
function roundTable(view, result, name, { places = null } = {}) {
  const order = places ? places.map((p) => p.seat) : view.seats.map((s) => s.seat);
  return h("table", { class: "scores" },
    h("caption", { class: "visually-hidden" }, text.scoresTitle),
    h("thead", {}, h("tr", {},
      places ? h("th", { scope: "col" }, text.place) : null,
      h("th", { scope: "col" }, text.playerColumn),
      h("th", { scope: "col" }, text.leftInHand),
      h("th", { scope: "col" }, text.handPoints),
      h("th", { scope: "col" }, text.totalColumn))),
    h("tbody", {}, order.map((seat, i) => {
      const hand = (result && result.hands && result.hands[String(seat)]) || [];
      const out = result && result.seat === seat;
      return h("tr", { class: out ? "went-out" : null, "data-seat": seat },
        places ? h("td", {}, String(places[i].place)) : null,
        h("th", { scope: "row" }, name(seat)),
        h("td", { class: "left-cards" }, out ? text.wentOut
          : h("span", { class: "mini-hand" }, hand.map((card) => cardElement("span", card, {
            role: "img", "aria-label": text.cardName(card) })))),
        h("td", { class: "hand-points" }, out ? `+${result.points}`
          : String(hand.reduce((sum, card) => sum + worth(card), 0))),
        h("td", {}, text.points(result ? result.scores[seat] : view.seats[seat].score)));
    })));
}

function wentOutWith(result, name) {
  if (!result) return null;
  return h("div", { class: "went-out-with" },
    result.card ? cardElement("div", result.card, { role: "img", class: "winning-card",
      "data-card": result.card.id, "aria-label": text.cardName(result.card) }) : null,
    h("p", {}, text.roundWinner(name(result.seat), result.points, result.card ? text.cardName(result.card) : null)));
}

// The round's end, in the page's dialog for it (kept across renders). "Next round"
// closes it; so do its countdown and the Escape key. Returns a function that closes
// it; `onClose()` once it is closed, however.
export function showRoundEnd(dialog, view, result, name, { onClose }) {
  let left = NEXT_ROUND_SECONDS, done = false;
  const count = h("span", { class: "countdown" }, text.nextRoundIn(left));
  const finish = () => {
    if (done) return;
    done = true;
    clearInterval(timer);
    dialog.removeEventListener("close", closedByKey);
    onClose();
  };
  // The close event comes a moment after closing: by then this dialog may show the
  // next round's end, whose own it is not.
  const closedByKey = () => { if (!dialog.open) finish(); };
  const close = () => {
    finish();
    if (dialog.open) dialog.close();
  };
  const next = h("button", { type: "button", "data-key": "next-round", onclick: close }, text.nextRound);
  dialog.replaceChildren(
    h("h2", { id: "round-end-title" }, text.resultsTitle(result.round)),
    wentOutWith(result, name),
    roundTable(view, result, name),
    h("div", { class: "round-end-actions" }, next, count));
  const timer = setInterval(() => {
    left -= 1;
    count.textContent = text.nextRoundIn(left);
    if (left <= 0) close();
  }, 1000);
  dialog.addEventListener("close", closedByKey);
  dialog.showModal();
  next.focus();
  return close;
}

// The places at the game's end: by total, highest first (the winner, who reached
// the target, always first).
function placesOf(view) {
  const seats = view.seats.map((s) => ({ seat: s.seat, total: s.score }));
  seats.sort((a, b) => (b.seat === view.winner) - (a.seat === view.winner) || b.total - a.total);
  let place = 0;
  return seats.map((s, i) => {
    if (i === 0 || s.total !== seats[i - 1].total || seats[i - 1].seat === view.winner) place = i + 1;
    return { ...s, place };
  });
}

// The game's end, at the top of the table: who won, the last round, the places and
// totals, and what next. `actions` are the buttons and links to offer.
export function gameOver(view, result, name, { actions }) {
  const abandoned = view.status === "abandoned" || view.winner === null;
  return h("section", { class: "results over", "aria-labelledby": "over-title" },
    h("h2", { id: "over-title", class: "winner" }, abandoned ? text.abandoned : text.winner(name(view.winner))),
    abandoned ? null : wentOutWith(result, name),
    abandoned ? null : roundTable(view, result, name, { places: placesOf(view) }),
    h("div", { class: "host-actions" }, actions),
    view.deal_algorithm === "uno-deal/1" && view.round ? checkDealControl(view.id) : null);
}
