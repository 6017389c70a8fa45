// A card as the player sees it: its colour, and its number or symbol written on it,
// so that it reads without telling colours apart.
import { h } from "./dom.js";
import { text } from "./text.js";

export function face(card) {
  return card.kind === "number" ? String(card.number) : text.symbols[card.kind];
}

// `label`, when given, names the card (a button in the hand) by text hidden from the
// eye rather than by aria-label, which would not hold the text the card shows.
export function cardElement(tag, card, props = {}, label = null) {
  const color = card.color || "wild";
  return h(tag, { ...props, class: `card card-${color} ${props.class || ""}`.trim() },
    label ? h("span", { class: "visually-hidden" }, label) : null,
    h("span", { class: "card-corner", "aria-hidden": "true" }, face(card)),
    h("span", { class: "card-face", "aria-hidden": "true" }, face(card)),
    h("span", { class: "card-color", "aria-hidden": "true" },
      card.color ? text.colors[card.color] : text.faceKinds[card.kind] || text.kinds[card.kind]));
}
