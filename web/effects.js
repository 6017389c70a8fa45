// What a change did, shown where it happened once the table is drawn: the card
// played flies from its seat to the pile, drawn cards from the draw pile to their
// seat, and the seat a card hit gets its mark (skipped, +2, +4, a challenge's
// verdict, a colour chosen, the way play now goes).
import { cardElement } from "./cards.js";
import { STAGGER_MS, flyBack, flyOnto, mark, pulse, spin, still } from "./motion.js";
import { text } from "./text.js";

const MOST_BACKS_FLOWN = 4;
const PENALTIES = ["draw_two", "wild_draw_four", "challenge", "uno_penalty", "stack"];

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
  const flyCard = (card, from, target, delay = 0) => {
    if (!target || !from) return;
    landing.add(card.id);
    flyOnto(layer, cardElement("div", card), from, target, () => {
      landing.delete(card.id);
      for (const shown of content.querySelectorAll(`[data-card="${card.id}"].landing`)) {
        shown.classList.remove("landing");
      }
    }, { delay });
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
    } else if (event.type === "turn_timed_out") {
      mark(layer, seat(event.seat), text.marks.timedOut, { tone: "bad", delay: later() });
    }
  }
}
