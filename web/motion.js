// What moves on the table, so that a player sees what happened where: a card flying
// from a seat to the pile or from the draw pile to a seat, and short marks on the
// seat a card hit (skipped, +2, reversed, a colour chosen). Nothing here decides
// anything or holds a move back: every move is sent at once and the motion follows
// it. A player who asks their system for less motion gets none of it.
import { h } from "./dom.js";

const FLIGHT_MS = 420;
const MARK_MS = 1100;
const STAGGER_MS = 90;
const EASING = "cubic-bezier(0.2, 0.7, 0.3, 1)";
const QUIET = window.matchMedia("(prefers-reduced-motion: reduce)");

export const still = () => QUIET.matches;

const centre = (rect) => ({ x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 });

// Where an element of the layer is drawn, in the viewport's pixels; through the
// CSSOM, since the page's Content-Security-Policy refuses style attributes.
function place(element, box) {
  for (const key of ["left", "top", "width", "height"]) {
    if (box[key] !== undefined) element.style[key] = `${box[key]}px`;
  }
}

// The layer the flying cards and the marks are drawn on: over the page, fixed to the
// viewport and clipped to it, so that nothing drawn there ever widens the page.
export function motionLayer() {
  return h("div", { class: "motion-layer", "aria-hidden": "true" });
}

// `node` (a card's face) flies from `from` (a DOMRect) onto `target`, an element of
// the table hidden (class `landing`) until it lands there; `landed()` then. `unseen`:
// not shown at `from` while it waits out its delay (a card dealt after others).
export function flyOnto(layer, node, from, target, landed, { delay = 0, unseen = false } = {}) {
  const to = target.getBoundingClientRect();
  if (still() || !from || to.width === 0) return landed();
  const a = centre(from), b = centre(to);
  const scale = from.width > 0 ? Math.min(1.6, Math.max(0.4, from.width / to.width)) : 1;
  node.classList.add("flying");
  place(node, to);
  layer.append(node);
  target.classList.add("landing");
  const start = `translate(${a.x - b.x}px, ${a.y - b.y}px) scale(${scale}) rotate(-10deg)`;
  const flight = node.animate(unseen
    ? [{ transform: start, opacity: 0 }, { transform: start, opacity: 1, offset: 0.01 }, { transform: "none", opacity: 1 }]
    : [{ transform: start }, { transform: "none" }],
  { duration: FLIGHT_MS, delay, easing: EASING, fill: "backwards" });
  const done = () => {
    node.remove();
    landed();
  };
  flight.finished.then(done, done);
  return undefined;
}

// A card's back flies from `from` to `to` (DOMRects), drawn on `layer` and gone on
// landing: a card drawn, whose face the watcher may not see. `unseen`: as flyOnto's.
export function flyBack(layer, from, to, { delay = 0, unseen = false } = {}) {
  flyAcross(layer, h("div", { class: "card card-back" }), from, to, { delay, unseen });
}

// `node` (a card's face) flies from `from` to `to` (DOMRects) and is gone on landing:
// a card that leaves for where it is not shown, such as under the top of the pile.
export function flyFace(layer, node, from, to, { delay = 0 } = {}) {
  flyAcross(layer, node, from, to, { delay });
}

function flyAcross(layer, node, from, to, { delay, unseen = false }) {
  if (still() || !from || !to) return;
  const a = centre(from), b = centre(to);
  const width = Math.min(from.width, 72), height = width * 1.5;
  node.classList.add("flying");
  place(node, { left: a.x - width / 2, top: a.y - height / 2, width, height });
  layer.append(node);
  const landed = { transform: `translate(${b.x - a.x}px, ${b.y - a.y}px) scale(0.6)`, opacity: 0.85 };
  const frames = unseen
    ? [{ transform: "none", opacity: 0 }, { transform: "none", opacity: 1, offset: 0.01 }, landed]
    : [{ transform: "none", opacity: 1 }, landed];
  const flight = node.animate(frames, { duration: FLIGHT_MS, delay, easing: EASING, fill: "both" });
  flight.finished.then(() => node.remove(), () => node.remove());
}

// A short mark over `over` (a DOMRect): "Skipped", "+4", "Guilty!" and the like.
// `tone` is a class: a colour's name, `bad` or `good`.
export function mark(layer, over, said, { tone = "", delay = 0 } = {}) {
  if (still() || !over) return;
  const at = centre(over);
  const shown = h("div", { class: `table-mark ${tone}`.trim() }, said);
  layer.append(shown);
  // Kept inside the viewport whatever the seat's place.
  const width = shown.offsetWidth, height = shown.offsetHeight;
  const left = Math.max(4, Math.min(window.innerWidth - width - 4, at.x - width / 2));
  const top = Math.max(4, Math.min(window.innerHeight - height - 4, at.y - height / 2));
  place(shown, { left, top });
  const pop = shown.animate([
    { transform: "scale(0.4)", opacity: 0 },
    { transform: "scale(1.15)", opacity: 1, offset: 0.2 },
    { transform: "scale(1)", opacity: 1, offset: 0.75 },
    { transform: "scale(1)", opacity: 0 },
  ], { duration: MARK_MS, delay, easing: "ease-out", fill: "both" });
  pop.finished.then(() => shown.remove(), () => shown.remove());
}

// One turn of `element` (the direction's ring), the way play now goes.
export function spin(element, clockwise) {
  if (still() || !element) return;
  element.animate([
    { transform: "rotate(0deg)" },
    { transform: `rotate(${clockwise ? 360 : -360}deg)` },
  ], { duration: 700, easing: "ease-in-out" });
}

// A glow that swells and settles around `element` (the pile, when a colour is chosen).
export function pulse(element) {
  if (still() || !element) return;
  element.animate([{ transform: "scale(1)" }, { transform: "scale(1.08)" }, { transform: "scale(1)" }],
    { duration: 500, easing: "ease-out" });
}

export { FLIGHT_MS, STAGGER_MS };
