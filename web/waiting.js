// A game that waits for its players: the invite link of a private game, and the
// host's controls (a bot for an empty seat, the start); a quick match's wait for
// its bots, which the player may give up.
import { player } from "./api.js";
import { h } from "./dom.js";
import { text } from "./text.js";
import { seeded } from "./verify.js";

export function shownCode(code) {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

// `invite`: the element that invites friends, for a seated player while seats are
// free; `startWithBots` fills the free seats with bots and starts.
export function waitingRoom(view, { busy, post, cancel, invite, startWithBots }) {
  const me = player();
  const hosting = me && view.host.id === me.id;
  const parts = [];
  if (view.invite_code) {
    const link = `${location.origin}/play/join/${shownCode(view.invite_code)}`;
    const input = h("input", { id: "invite-link", readonly: true, value: link,
                               "aria-describedby": "invite-help" });
    const said = h("span", { role: "status" });
    parts.push(
      h("h2", { id: "invite-title" }, text.invite),
      h("p", { id: "invite-help", class: "help" }, text.inviteHelp),
      h("div", { class: "invite" },
        h("label", { for: "invite-link" }, text.inviteLink), input,
        h("button", { type: "button", "data-key": "copy", onclick: async () => {
          input.select();
          try {
            await navigator.clipboard.writeText(link);
            said.textContent = text.copied;
          } catch {
            // No clipboard here (a page on plain http): the link stays selected.
          }
        } }, text.copyLink), said),
      h("p", { class: "code" }, text.inviteCode(shownCode(view.invite_code))));
  }
  const free = view.max_players - view.seats.length;
  parts.push(h("p", { class: "seats-free" }, text.seatsTaken(view.seats.length, view.max_players)));
  if (invite) parts.push(invite);
  if (view.quick_match) {
    parts.push(h("p", {}, text.lookingForPlayers),
      view.bots_at ? h("p", {}, `${text.botsIn} `,
        h("span", { class: "countdown", "data-deadline": view.bots_at })) : null,
      h("button", { type: "button", "data-key": "stop-waiting", disabled: busy, onclick: cancel },
        text.stopWaiting));
  } else if (hosting) {
    parts.push(h("div", { class: "host-actions" },
      free > 0 ? h("button", { type: "button", "data-key": "start-with-bots", disabled: busy,
                               onclick: startWithBots }, text.startWithBots(free)) : null,
      h("button", { type: "button", "data-key": "add-bot", class: "secondary", disabled: busy || !free,
                    onclick: () => post(`/bots`, { strategy: "greedy" }) }, text.addBot),
      h("button", { type: "button", "data-key": "start", class: free > 0 ? "secondary" : null,
                    disabled: busy || view.seats.length < 2, onclick: () => post(`/start`, seeded()) }, text.start)));
  } else {
    parts.push(h("p", {}, text.waitingForHost(view.host.name)));
  }
  return h("section", { class: "panel waiting", "aria-labelledby": view.invite_code ? "invite-title" : null },
    parts);
}
