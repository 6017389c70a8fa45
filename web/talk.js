// Table talk (docs/api.md, "Table talk"): the phrases and emotes of the catalogue
// (and typed text where the game lets one), the recent messages with a mute and a
// report on each, and a bubble by the sender's seat for a few seconds. One element
// for the whole visit of the table, so that what is open and typed stays when the
// table is drawn again; messages come from the game's stream (`take`), each once.
import { get, player, post, request } from "./api.js";
import { choose, h } from "./dom.js";
import { text } from "./text.js";

const SHOWN = 30;          // messages in the recent list
const BUBBLE_MS = 5000;    // how long a bubble stays by its seat
const FRESH_MS = 15000;    // older messages (the stream's opening) get no bubble
const REASONS = ["abuse", "spam", "cheating", "name", "other"];
let catalogue = null;

function loadCatalogue() {
  if (!catalogue) {
    catalogue = get("/talk/catalogue").catch((err) => {
      catalogue = null;
      throw err;
    });
  }
  return catalogue;
}

// A refusal in the player's words: too fast, muted by the staff, no typing here.
export function explainTalk(err) {
  const details = err.details || {};
  if (err.code === "rate_limited" || err.status === 429) {
    return text.talkTooFast(Math.max(1, Math.ceil(details.retry_after || 1)));
  }
  if (err.code === "talk_muted") {
    return text.talkMuted(details.until ? text.date(details.until) : null, details.reason);
  }
  if (err.code === "free_text_off") return text.freeTextOff;
  if (details.fields) return Object.values(details.fields).flat().join(" ");
  return text.error(err.message);
}

// `changed()`: a bubble came or went, the seats are to be drawn again.
export function tableTalk(gameId, { changed }) {
  const me = player();
  const messages = new Map();  // id -> message, every one taken
  const bubbles = new Map();   // seat -> {message, timer}
  const muted = new Map();     // player id -> name
  let hideSpectators = false, said = { phrases: [], emotes: [] }, seated = true, freeText = false;

  const list = h("ol", { class: "talk-list", tabindex: 0, "data-key": "talk-list",
                         "aria-labelledby": "talk-title" });
  const mutedLine = h("div", { class: "talk-muted" });
  const status = h("p", { class: "help", role: "status" });
  const error = h("p", { class: "error", role: "alert" });
  const emotes = h("div", { class: "talk-emotes", role: "group", "aria-label": text.emotes });
  const phrases = h("div", { class: "talk-phrases", role: "group", "aria-label": text.phrases });
  const typed = h("input", { id: "talk-text", name: "talk-text", maxlength: 200, autocomplete: "off",
                             "data-key": "talk-text" });
  const typing = h("form", { class: "talk-text row" },
    h("label", { for: "talk-text", class: "visually-hidden" }, text.typeMessage), typed,
    h("button", { type: "submit", "data-key": "talk-send" }, text.send));
  const picker = h("details", { class: "talk-picker" },
    h("summary", { "data-key": "talk-picker" }, text.saySomething), emotes, phrases, typing);
  const hide = h("input", { type: "checkbox", id: "hide-spectator-emotes", "data-key": "hide-spectators" });
  const element = h("section", { class: "talk", "aria-labelledby": "talk-title" },
    h("h2", { id: "talk-title" }, text.tableTalk),
    picker, status, error,
    h("div", { role: "log" }, list), mutedLine,
    h("div", { class: "rule" }, hide, h("label", { for: "hide-spectator-emotes" }, text.hideSpectatorEmotes)));

  const tell = (message) => { error.textContent = ""; status.textContent = message; };
  const fail = (err) => { status.textContent = ""; error.textContent = explainTalk(err); };

  const shown = (m) => !muted.has(m.from.id) && !(hideSpectators && m.spectator);
  const words = (m) => {
    const from = m.kind === "phrase" ? said.phrases : m.kind === "emote" ? said.emotes : [];
    const known = from.find((entry) => entry.code === m.code);
    return (known && known.text) || m.text || m.code || "";
  };
  const sender = (m) => (me && m.from.id === me.id ? text.youSaid
    : m.spectator ? text.spectatorSays(m.from.name) : m.from.name);

  async function send(body) {
    try {
      take(await post(`/games/${gameId}/messages`, body));
      error.textContent = "";
      status.textContent = "";
      return true;
    } catch (err) {
      fail(err);
      return false;
    }
  }

  function pickerButtons() {
    emotes.replaceChildren(...said.emotes.map((e) => h("button", {
      type: "button", class: "emote", "data-emote": e.code, "data-key": `emote-${e.code}`,
      "aria-label": text.emoteName(e.code), title: text.emoteName(e.code),
      onclick: () => send({ emote: e.code }),
    }, e.text)));
    phrases.replaceChildren(...said.phrases.map((p) => h("button", {
      type: "button", class: "secondary phrase", "data-phrase": p.code, "data-key": `phrase-${p.code}`,
      onclick: () => send({ phrase: p.code }),
    }, p.text)));
  }

  typing.addEventListener("submit", async (e) => {
    e.preventDefault();
    const typedText = typed.value.trim();
    if (!typedText) return;
    if (await send({ text: typedText })) typed.value = "";
  });

  hide.addEventListener("change", async () => {
    const wanted = hide.checked;
    hide.disabled = true;
    try {
      await request("PATCH", "/players/me/table-talk", { hide_spectator_emotes: wanted });
      hideSpectators = wanted;
      draw();
    } catch (err) {
      hide.checked = !wanted;
      fail(err);
    }
    hide.disabled = false;
  });

  async function mute(who, on) {
    const path = `/players/me/table-talk/muted/${encodeURIComponent(who.id)}`;
    try {
      await request(on ? "PUT" : "DELETE", path);
    } catch (err) {
      return fail(err);
    }
    if (on) muted.set(who.id, who.name);
    else muted.delete(who.id);
    tell(on ? text.mutedPlayer(who.name) : text.unmutedPlayer(who.name));
    draw();
    changed();
  }

  async function report(m) {
    const reason = await choose(text.reportTitle(m.from.name),
      REASONS.map((r) => ({ label: text.reportReasons[r], value: r, class: "secondary" })), text.cancel);
    if (!reason) return;
    try {
      await post(`/games/${gameId}/reports`, { message: m.id, reason });
      tell(text.reported);
    } catch (err) {
      fail(err);
    }
  }

  function item(m) {
    const mine = me && m.from.id === me.id;
    return h("li", { class: `talk-message ${m.kind}`, "data-message": m.id, "data-from": m.from.id },
      h("span", { class: "talk-from" }, `${sender(m)}: `),
      h("span", { class: "talk-words" }, words(m)),
      mine ? null : h("span", { class: "talk-tools" },
        h("button", { type: "button", class: "link small", "data-key": `mute-${m.id}`,
                      "aria-label": text.muteOf(m.from.name), onclick: () => mute(m.from, true) },
          text.mute),
        h("button", { type: "button", class: "link small", "data-key": `report-${m.id}`,
                      "aria-label": text.reportOf(m.from.name), onclick: () => report(m) },
          text.report)));
  }

  function draw() {
    const recent = [...messages.values()].filter(shown).slice(-SHOWN).reverse();
    const focused = document.activeElement && list.contains(document.activeElement)
      ? document.activeElement.dataset.key : undefined;
    list.replaceChildren(...(recent.length ? recent.map(item)
      : [h("li", { class: "help" }, text.nothingSaid)]));
    if (focused) {
      const again = list.querySelector(`[data-key="${CSS.escape(focused)}"]`);
      (again || list).focus();
    }
    mutedLine.replaceChildren(...[...muted].map(([id, name]) => h("p", { class: "row" },
      text.isMuted(name),
      h("button", { type: "button", class: "link small", "data-key": `unmute-${id}`,
                    onclick: () => mute({ id, name }, false) }, text.unmuteOf(name)))));
    phrases.hidden = !seated;
    typing.hidden = !(seated && freeText);
    hide.checked = hideSpectators;
  }

  // A message from the stream or from sending it: each id once.
  function take(m) {
    if (!m || messages.has(m.id)) return;
    messages.set(m.id, m);
    if (messages.size > SHOWN * 4) messages.delete(messages.keys().next().value);
    const age = Date.now() - Date.parse(m.at);
    if (shown(m) && m.seat !== null && m.seat !== undefined && !(age > FRESH_MS)) {
      const before = bubbles.get(m.seat);
      if (before) clearTimeout(before.timer);
      const timer = setTimeout(() => {
        if (bubbles.get(m.seat) && bubbles.get(m.seat).message === m) bubbles.delete(m.seat);
        changed();
      }, BUBBLE_MS);
      bubbles.set(m.seat, { message: m, timer });
    }
    draw();
    changed();
  }

  (async () => {
    try {
      said = await loadCatalogue();
      pickerButtons();
    } catch (err) {
      fail(err);
    }
    try {
      const prefs = await get("/players/me/table-talk");
      hideSpectators = Boolean(prefs.hide_spectator_emotes);
      for (const m of prefs.muted || []) muted.set(m.player.id, m.player.name);
    } catch {
      // Without them the stream still leaves out what the service holds back.
    }
    draw();
    changed();
  })();
  draw();

  return {
    element,
    take,
    // What the viewer may say here: a spectator emotes only; typing where allowed.
    update(view, watching) {
      seated = !watching;
      freeText = Boolean(view.free_text);
      draw();
    },
    bubble(seat) {
      const b = bubbles.get(seat);
      if (!b || !shown(b.message)) return null;
      return h("span", { class: `bubble ${b.message.kind}`, "data-message": b.message.id },
        words(b.message));
    },
    stop() {
      for (const b of bubbles.values()) clearTimeout(b.timer);
    },
  };
}
