// What a change did, shown where it happened once the table is drawn: the card
// played flies from its seat to the pile, drawn cards from the draw pile to their
// seat, a Wild Shuffle Hands gathers every hand in the middle and deals it out
// again, and the seat a card hit gets its mark (skipped, +2, +4, a challenge's
// verdict, a colour chosen, the way play now goes).
import { cardElement } from "./cards.js";
import { FLIGHT_MS, STAGGER_MS, flyBack, flyFace, flyOnto, mark, pulse, spin, still } from "./motion.js";
import { text } from "./text.js";

const MOST_BACKS_FLOWN = 4;
const PENALTIES = ["draw_two", "wild_draw_four", "challenge", "uno_penalty", "stack", "wild_customizable"];
// However many seats and cards, a shuffle's deal is over within this.
const DEAL_MS = 1500;

// `fresh`: the events of the change, in order; `ahead`: the player's own card, shown
// leaving their hand before the service answered ({card, from}); `landing`: the ids
// of the cards in flight, which the table keeps hidden where they will land.
export function showEffects({ content, layer, view, fresh, ahead, mySeat, landing }) {
  if (still() || !view) return;
  const rect = (selector) => {
    const element = content.querySelector(selector);
    return element ? element.getBoundingClientRect() : null;
  };
  const seat = (number) => rect(`.seat[data-seat="${number}"]`);
  const drawPile = rect(".draw-pile");
  const pile = content.querySelector(".pile");
  const flyCard = (card, from, target, delay = 0, unseen = false) => {
    if (!target || !from) return;
    landing.add(card.id);
    flyOnto(layer, cardElement("div", card), from, target, () => {
      landing.delete(card.id);
      for (const shown of content.querySelectorAll(`[data-card="${card.id}"].landing`)) {
        shown.classList.remove("landing");
      }
    }, { delay, unseen });
  };
  const topCard = content.querySelector(".pile .top-card");
  if (ahead && ahead.from && view.top_card && view.top_card.id === ahead.card) {
    flyCard(view.top_card, ahead.from, topCard);
  }
  // Of several cards played in one change only the last is still on the pile to show.
  const played = fresh.filter((e) => e.type === "card_played").pop();
  if (played && played.seat !== mySeat && view.top_card && view.top_card.id === played.data.card.id) {
    flyCard(played.data.card, seat(played.seat), topCard);
  }
  let delay = played || ahead ? STAGGER_MS * 3 : 0;
  const later = () => {
    const now = delay;
    delay += STAGGER_MS * 2;
    return now;
  };
  for (const event of fresh) {
    const d = event.data;
    if (event.type === "cards_drawn") {
      const to = seat(event.seat);
      if (event.seat === mySeat && d.cards) {
        d.cards.forEach((card, i) => flyCard(card, drawPile,
          content.querySelector(`.hand [data-card="${card.id}"]`), delay + i * STAGGER_MS));
      } else {
        for (let i = 0; i < Math.min(d.count, MOST_BACKS_FLOWN); i += 1) {
          flyBack(layer, drawPile, to, { delay: delay + i * STAGGER_MS });
        }
      }
      if (PENALTIES.includes(d.reason)) mark(layer, to, `+${d.count}`, { tone: "bad", delay: later() });
    } else if (event.type === "player_skipped") {
      mark(layer, seat(event.seat), text.marks.skipped, { tone: "bad", delay: later() });
    } else if (event.type === "direction_changed" && event.seat !== null) {
      const clockwise = d.direction === "clockwise";
      spin(content.querySelector(".direction"), clockwise);
      mark(layer, rect(".direction"), text.marks.reversed(text.direction[d.direction]), { delay: later() });
    } else if (event.type === "color_chosen" || (event.type === "card_played" && !d.card.color)) {
      pulse(pile);
      mark(layer, rect(".pile"), text.colors[d.color], { tone: `color-${d.color}`, delay: later() });
    } else if (event.type === "challenged") {
      mark(layer, seat(event.seat), d.guilty ? text.marks.guilty : text.marks.notGuilty,
        { tone: d.guilty ? "bad" : "good", delay: later() });
    } else if (event.type === "uno_called") {
      mark(layer, seat(event.seat), text.saidUno, { tone: "uno", delay: later() });
    } else if (event.type === "uno_caught") {
      mark(layer, seat(event.seat), text.marks.caught, { tone: "bad", delay: later() });
    } else if (event.type === "hands_swapped") {
      const other = d.with === undefined ? rect(".direction") : seat(d.with);
      mark(layer, seat(event.seat), text.marks.swapped, { delay: later() });
      mark(layer, other, text.marks.swapped, { delay: later() });
    } else if (event.type === "cards_discarded") {
      // Face up, under the Wild Customizable: they fly to the pile and go under it.
      const from = seat(event.seat), to = rect(".pile");
      d.cards.forEach((card, i) => flyFace(layer, cardElement("div", card), from, to,
        { delay: delay + i * STAGGER_MS }));
      mark(layer, from, text.marks.discarded(d.cards.length), { delay: later() });
    } else if (event.type === "hands_shuffled") {
      delay = shuffleAndDeal({ event, layer, content, seat, middle: rect(".felt .centre"), mySeat, flyCard,
        start: later() });
    } else if (event.type === "turn_timed_out") {
      mark(layer, seat(event.seat), text.marks.timedOut, { tone: "bad", delay: later() });
    }
  }
}

// A Wild Shuffle Hands: a few backs from every seat gather in the middle, then the
// cards are dealt out one at a time from the seat left of its player, as the service
// deals them: backs to the other seats, and the player's own new hand, face up, onto
// its places (hidden there until each card lands). When whatever follows may begin.
function shuffleAndDeal({ event, layer, content, seat, middle, mySeat, flyCard, start }) {
  const counts = event.data.counts;
  const n = counts.length;
  counts.forEach((count, s) => {
    for (let i = 0; i < Math.min(count, MOST_BACKS_FLOWN); i += 1) {
      flyBack(layer, seat(s), middle, { delay: start + i * STAGGER_MS });
    }
  });
  mark(layer, middle, text.marks.shuffled, { delay: start });
  const mine = event.data.hand || [];
  const flights = [];
  for (let round = 0; round < Math.max(...counts); round += 1) {
    for (let step = 1; step <= n; step += 1) {
      const s = (event.seat + step) % n;
      if (s === mySeat && round < mine.length) flights.push({ card: mine[round] });
      else if (s !== mySeat && round < Math.min(counts[s], MOST_BACKS_FLOWN)) flights.push({ seat: s });
    }
  }
  const dealt = start + FLIGHT_MS + (MOST_BACKS_FLOWN - 1) * STAGGER_MS;
  const gap = Math.min(STAGGER_MS / 2, DEAL_MS / Math.max(1, flights.length));
  flights.forEach((flight, i) => {
    const at = dealt + i * gap;
    if (flight.card) {
      flyCard(flight.card, middle, content.querySelector(`.hand [data-card="${flight.card.id}"]`), at, true);
    } else {
      flyBack(layer, middle, seat(flight.seat), { delay: at, unseen: true });
    }
  });
  return dealt + flights.length * gap + FLIGHT_MS;
}
