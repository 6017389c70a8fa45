// Fair deals in the browser (docs/fairness.md): this page's own seed for every deal it
// sits down to, and "Check this deal" on a finished game, which redoes the game's deal
// from its revealed log with Web Crypto alone: the commitment, every round's seed,
// every card dealt, turned over and drawn, followed from pile to pile, every hand a
// Wild Shuffle Hands dealt, and every round's score from the hands it ended with. It is an implementation of uno-deal/1
// of its own, written from the specification, and checked against the
// specification's test vectors.
import { get } from "./api.js";
import { h } from "./dom.js";
import { text } from "./text.js";

const ALGORITHM = "uno-deal/1";
const DECKS = { classic_108: 108, modern_112: 112 };
// Turned over first, a Wild Draw Four (104-107) goes back and is shuffled in.
const isWildDrawFour = (card) => card >= 104 && card < 108;
const HAND = 7;
const WORD = 2 ** 32;
const ascii = new TextEncoder();

// 128 bits from the platform's CSPRNG, as 32 hex digits: the seed this browser adds.
export function freshClientSeed() {
  return hex(crypto.getRandomValues(new Uint8Array(16)));
}

// A request body that seats this player, with a seed of this browser's own.
export function seeded(body = {}) {
  return { ...body, client_seed: freshClientSeed() };
}

export class Failed extends Error {
  constructor(step, why) {
    super(`${step}: ${why}`);
    this.step = step;
    this.why = why;
  }
}

function hex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

function fromHex(digits) {
  if (typeof digits !== "string" || !/^([0-9a-f]{2})*$/.test(digits)) throw new Failed("a seed", "it is not hex");
  return Uint8Array.from(digits.match(/../g) || [], (pair) => parseInt(pair, 16));
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function bigEndian(value, bytes) {
  const out = new Uint8Array(bytes);
  for (let i = bytes - 1; i >= 0; i -= 1) {
    out[i] = value % 256;
    value = Math.floor(value / 256);
  }
  return out;
}

async function hmacKey(raw) {
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

export async function commitment(serverSeedHex) {
  const message = concat(ascii.encode(ALGORITHM), [0], fromHex(serverSeedHex));
  return hex(await crypto.subtle.digest("SHA-256", message));
}

export async function roundSeed(serverSeedHex, clientSeeds, round) {
  const parts = [ascii.encode(`${ALGORITHM} round`), [0], bigEndian(round, 4), [clientSeeds.length]];
  for (const seed of clientSeeds) {
    const bytes = ascii.encode(seed);
    parts.push(bigEndian(bytes.length, 2), bytes);
  }
  const key = await hmacKey(fromHex(serverSeedHex));
  return hex(await crypto.subtle.sign("HMAC", key, concat(...parts)));
}

// The words of the stream (round seed, label, index), eight per HMAC block.
export class Stream {
  constructor(roundSeedHex, label, index) {
    this.key = hmacKey(fromHex(roundSeedHex));
    this.prefix = concat(ascii.encode(`${ALGORITHM} ${label}`), [0], bigEndian(index, 4));
    this.block = 0;
    this.words = [];
  }

  async word() {
    if (!this.words.length) {
      const message = concat(this.prefix, bigEndian(this.block, 4));
      this.block += 1;
      const view = new DataView(await crypto.subtle.sign("HMAC", await this.key, message));
      for (let at = 0; at < 32; at += 4) this.words.push(view.getUint32(at, false));
    }
    return this.words.shift();
  }

  async below(bound) {
    const limit = WORD - (WORD % bound);
    for (;;) {
      const word = await this.word();
      if (word < limit) return word % bound;
    }
  }
}

export async function shuffled(cards, roundSeedHex, index) {
  const stream = new Stream(roundSeedHex, "shuffle", index);
  for (let i = cards.length - 1; i > 0; i -= 1) {
    const j = await stream.below(i + 1);
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  return cards;
}

export async function firstDealer(roundSeedHex, players) {
  return new Stream(roundSeedHex, "dealer", 0).below(players);
}

const idOf = (card) => (card && typeof card === "object" ? card.id : card);

// rules.md, "Scoring": numbers at face value, Skip, Reverse and Draw Two 20, Wild and
// Wild Draw Four 50, Wild Shuffle Hands and Wild Customizable 40.
const POINTS = { skip: 20, reverse: 20, draw_two: 20, wild: 50, wild_draw_four: 50, wild_shuffle_hands: 40, wild_customizable: 40 };
export function points(card) {
  return card.kind === "number" ? card.number : POINTS[card.kind];
}

// A round's end adds up: the winner scores what every other hand holds (in partners,
// what both opponents hold, and the partners share the total), and every total is
// the last one plus that.
function checkScores(event, totals, partners) {
  const hands = event.data.hands || {};
  const scores = (seat) => !partners || seat % 2 !== event.seat % 2;
  const scored = Object.entries(hands).filter(([seat]) => scores(Number(seat)))
    .flatMap(([, hand]) => hand).reduce((sum, card) => sum + points(card), 0);
  const step = `round ${event.round}'s scores (seq ${event.seq})`;
  if (scored !== event.data.points) throw new Failed(step, `the hands left are worth ${scored}, the log scores ${event.data.points}`);
  const gains = (seat) => (partners ? seat % 2 === event.seat % 2 : seat === event.seat);
  const expected = totals.map((total, seat) => total + (gains(seat) ? scored : 0));
  if (expected.join() !== (event.data.scores || []).join()) throw new Failed(step, `the totals should be [${expected}], the log says [${event.data.scores}]`);
  return expected;
}

// The logged hands, a map from seat to cards, are the hands the shuffle deals.
function sameHands(step, logged, hands) {
  hands.forEach((hand, seat) => {
    const got = ((logged || {})[String(seat)] || []).map(idOf);
    if (got.join() !== hand.join()) throw new Failed(step, `seat ${seat} was dealt [${got}], the shuffle deals [${hand}]`);
  });
}

// One round's piles, as its shuffles make them.
class Round {
  constructor(number, seed, size) {
    this.number = number;
    this.seed = seed;
    this.size = size;
    this.shuffles = 0;
    this.draw = [];
    this.discard = [];
  }

  async shuffle(cards) {
    await shuffled(cards, this.seed, this.shuffles);
    this.shuffles += 1;
    return cards;
  }

  async deal(event, seats) {
    const step = `round ${this.number}, the deal (seq ${event.seq})`;
    const deck = await this.shuffle(Array.from({ length: this.size }, (_, i) => i));
    const dealer = event.data.dealer;
    const hands = Array.from({ length: seats }, () => []);
    for (let card = 0; card < HAND; card += 1) {
      for (let offset = 1; offset <= seats; offset += 1) hands[(dealer + offset) % seats].push(deck.pop());
    }
    sameHands(step, event.data.hands, hands);
    let top = deck.pop();
    while (isWildDrawFour(top)) {
      deck.push(top);
      await this.shuffle(deck);
      top = deck.pop();
    }
    if (idOf(event.data.top_card) !== top) throw new Failed(step, `the first card is ${idOf(event.data.top_card)}, the shuffle turns ${top}`);
    this.draw = deck;
    this.discard = [top];
  }

  // A Wild Shuffle Hands: every card in a hand (neither drawn nor discarded), in the
  // order of their ids, shuffled by the round's next shuffle and dealt one at a time
  // from the seat left of its player.
  async handsShuffled(event, seats) {
    const step = `round ${this.number}, shuffle ${this.shuffles} (seq ${event.seq})`;
    const away = new Set([...this.draw, ...this.discard]);
    const held = Array.from({ length: this.size }, (_, i) => i).filter((card) => !away.has(card));
    const cards = await this.shuffle(held);
    const hands = Array.from({ length: seats }, () => []);
    for (let i = 0, total = cards.length; i < total; i += 1) hands[(event.seat + 1 + i) % seats].push(cards.pop());
    sameHands(step, event.data.hands, hands);
  }

  async drawn(card, seq) {
    if (!this.draw.length) {
      if (this.discard.length <= 1) throw new Failed(`seq ${seq}`, "a card was drawn from two empty piles");
      this.draw = await this.shuffle(this.discard.slice(0, -1));
      this.discard = this.discard.slice(-1);
    }
    const expected = this.draw.pop();
    if (card !== expected) {
      throw new Failed(`round ${this.number}, shuffle ${this.shuffles - 1} (seq ${seq})`, `card ${card} was drawn where the shuffle gives ${expected}`);
    }
  }
}

// Redo the deal of a finished game's log (`GET /games/{id}/log`); `say` hears each
// step that holds, and the first that does not throws `Failed`, naming it.
export async function checkLog(log, say = () => {}) {
  const deal = log.deal || {};
  if (!log.complete || deal.server_seed == null) throw new Failed("the reveal", "the game is not over: its seeds are still secret");
  if (deal.algorithm !== ALGORITHM) throw new Failed("the algorithm", `${deal.algorithm} deals from a seed chosen by staff or before deals could be checked`);
  if (log.deal_commitment !== deal.commitment) throw new Failed("the commitment", "the log's two commitments differ");
  const made = await commitment(deal.server_seed);
  if (made !== deal.commitment) throw new Failed("the commitment", `SHA-256 of the revealed seed is ${made}, the game published ${deal.commitment}`);
  say(text.dealCommitmentHolds(deal.commitment));
  const seats = log.game.players.length;
  const size = DECKS[log.game.deck || "classic_108"];
  if (!size) throw new Failed("the deck", `${log.game.deck} is not a deck this checker knows`);
  const clientSeeds = deal.client_seeds || [];
  if (clientSeeds.length !== seats) throw new Failed("the client seeds", `${clientSeeds.length} seeds for ${seats} seats`);
  const events = log.events || [];
  const rounds = events.filter((e) => e.type === "round_started").length;
  const seeds = [];
  for (let round = 1; round <= rounds; round += 1) {
    const seed = await roundSeed(deal.server_seed, clientSeeds, round);
    if ((deal.round_seeds || [])[round - 1] !== seed) throw new Failed(`round ${round}'s seed`, `the seeds make ${seed}, the log reveals ${(deal.round_seeds || [])[round - 1]}`);
    seeds.push(seed);
  }
  say(text.dealRoundSeedsHold(rounds));
  let current = null;
  let shuffles = 0;
  let totals = Array(seats).fill(0);
  for (const event of events) {
    if (event.type === "game_started") {
      const dealer = await firstDealer(seeds[0], seats);
      if (event.data.dealer !== dealer) throw new Failed("round 1's dealer", `the seeds pick seat ${dealer}, the log says ${event.data.dealer}`);
    } else if (event.type === "round_started") {
      if (current) shuffles += current.shuffles;
      if (!seeds[event.round - 1]) throw new Failed(`round ${event.round}`, "no revealed round seed for it");
      current = new Round(event.round, seeds[event.round - 1], size);
      await current.deal(event, seats);
    } else if (current && event.type === "card_played") {
      current.discard.push(idOf(event.data.card));
    } else if (current && event.type === "cards_discarded") {
      current.discard.splice(-1, 0, ...event.data.cards.map(idOf));
    } else if (current && event.type === "cards_drawn") {
      for (const card of event.data.cards || []) await current.drawn(idOf(card), event.seq);
    } else if (current && event.type === "hands_shuffled") {
      await current.handsShuffled(event, seats);
    } else if (event.type === "round_ended") {
      totals = checkScores(event, totals, log.game.mode === "partners");
    }
  }
  if (current) shuffles += current.shuffles;
  say(text.dealShufflesHold(shuffles));
  const ended = events.filter((e) => e.type === "round_ended").length;
  if (ended) say(text.dealScoresHold(ended, totals));
  return { rounds, shuffles, totals };
}

// "Check this deal", for a finished game: what it checked, line by line, or the step
// that failed. One per game, kept across the table's redraws.
const controls = new Map();

export function checkDealControl(gameId) {
  if (!controls.has(gameId)) controls.set(gameId, dealControl(gameId));
  return controls.get(gameId);
}

function dealControl(gameId) {
  const lines = h("ol", { class: "deal-check-steps" });
  const verdict = h("p", { class: "deal-check-verdict", role: "status" });
  const button = h("button", { type: "button", class: "check-deal" }, text.checkThisDeal);
  button.addEventListener("click", async () => {
    button.disabled = true;
    lines.replaceChildren();
    verdict.textContent = text.checkingDeal;
    verdict.className = "deal-check-verdict";
    try {
      if (!globalThis.crypto || !crypto.subtle) throw new Failed("this page", text.dealCheckNeedsHttps);
      const log = await get(`/games/${encodeURIComponent(gameId)}/log`);
      await checkLog(log, (line) => lines.append(h("li", {}, line)));
      verdict.textContent = text.dealChecksOut;
      verdict.classList.add("holds");
    } catch (error) {
      verdict.textContent = error instanceof Failed ? text.dealCheckFailed(error.step, error.why) : error.message;
      verdict.classList.add("fails");
    } finally {
      button.disabled = false;
    }
  });
  return h("div", { class: "deal-check" },
    button, h("p", { class: "hint" }, text.dealCheckExplained), verdict, lines);
}
