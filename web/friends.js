// /play/friends: the player's friend code and link, adding a friend by code, the
// requests both ways, the friends with where they are, and the players blocked;
// /play/friends/<code>: a friend's link, which asks before sending the request; and
// a waiting table's "Invite a friend" (docs/api.md, "Friends and blocks").
import { get, post, request } from "./api.js";
import { explain as explainAny } from "./codes.js";
import { choose, field, flash, h, takeFlash } from "./dom.js";
import { onLobby } from "./social.js";
import { text } from "./text.js";
import { shownCode } from "./waiting.js";
import { seeded } from "./verify.js";

const FRIEND_EVENTS = ["friend_request", "friend_accepted", "friend_online", "friend_offline",
  "friend_in_game"];

// The refusals of this page in words of its own; the rest as everywhere.
const explain = (err) => text.socialErrors[err.code] || explainAny(err);
// A code that finds nobody: a mistyped one, or one its player replaced.
const explainCode = (err) => (err.status === 404 ? text.noSuchCode : explain(err));

const section = (key, title, ...children) =>
  h("section", { class: "panel", "aria-labelledby": `${key}-title` },
    h("h2", { id: `${key}-title` }, title), ...children);

const who = (p) => [p.name, p.tag ? h("span", { class: "tag" }, text.tag(p.tag)) : null];
const linkOf = (answer) => new URL(answer.link, location.origin).href;

// A button that runs `action` once at a time, saying what went wrong in `error`.
function act(label, action, error, props = {}) {
  const button = h("button", { type: "button", ...props }, label);
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await action();
    } catch (err) {
      error.textContent = explain(err);
      button.disabled = false;
    }
  });
  return button;
}

async function confirmed(question, yes) {
  return (await choose(question, [{ label: yes, value: "yes", class: "danger" }], text.cancel)) === "yes";
}

function yourCode(answer, render) {
  const link = linkOf(answer);
  const input = h("input", { id: "friend-link", readonly: true, value: link,
                             "aria-describedby": "friend-code-help" });
  const said = h("span", { role: "status" });
  const error = h("p", { class: "error", role: "alert" });
  const copy = h("button", { type: "button", "data-key": "copy-friend-link", onclick: async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(link);
      said.textContent = text.copied;
    } catch {
      // No clipboard here (a page on plain http): the link stays selected.
    }
  } }, text.copyLink);
  const renew = act(text.newFriendCode, async () => {
    if (!await confirmed(text.newFriendCodeQuestion, text.newFriendCode)) return;
    await post("/players/me/friend-code");
    render(text.friendCodeRenewed);
  }, error, { class: "secondary", "data-key": "new-friend-code" });
  return section("friend-code", text.yourFriendCode,
    h("p", { id: "friend-code-help", class: "help" }, text.friendCodeHelp),
    h("p", { class: "code", "data-code": answer.code }, shownCode(answer.code)),
    h("div", { class: "invite" }, h("label", { for: "friend-link" }, text.friendLink), input, copy, said),
    h("div", { class: "row" }, renew), error);
}

// What a request by code or by id answered, in words.
const requested = (answer) => (answer.status === "friends"
  ? text.nowFriends(answer.player.name) : text.requestSent(answer.player.name));

function addForm(render) {
  const code = h("input", { id: "friend-code", name: "friend-code", required: true, maxlength: 32,
                            autocomplete: "off", "aria-describedby": "friend-code-input-help" });
  const error = h("p", { class: "error", role: "alert" });
  const submit = h("button", { type: "submit" }, text.sendRequest);
  const form = h("form", { class: "add-friend" },
    field(text.friendCodeLabel, code, text.friendCodeInputHelp), submit, error);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    submit.disabled = true;
    try {
      render(requested(await post("/players/me/friend-requests", { code: code.value.trim() })));
    } catch (err) {
      error.textContent = explainCode(err);
      submit.disabled = false;
    }
  });
  return section("add-friend", text.addFriend, form);
}

function requests(friends, render) {
  const error = h("p", { class: "error", role: "alert" });
  const id = (p) => encodeURIComponent(p.id);
  const incoming = friends.incoming.map((r) => h("li", { class: "person", "data-player": r.player.id },
    h("span", { class: "person-name" }, ...who(r.player)),
    h("span", { class: "help" }, text.askedOn(text.date(r.at))),
    h("div", { class: "row" },
      act(text.acceptRequest, async () => {
        await post(`/players/me/friend-requests/${id(r.player)}/accept`);
        render(text.nowFriends(r.player.name));
      }, error, { "data-key": `accept-${r.player.id}` }),
      act(text.declineRequest, async () => {
        await post(`/players/me/friend-requests/${id(r.player)}/decline`);
        render(text.declined(r.player.name));
      }, error, { class: "secondary", "data-key": `decline-${r.player.id}` }),
      blockButton(r.player, error, render))));
  const outgoing = friends.outgoing.map((r) => h("li", { class: "person", "data-player": r.player.id },
    h("span", { class: "person-name" }, ...who(r.player)),
    h("span", { class: "help" }, text.sentOn(text.date(r.at))),
    h("div", { class: "row" },
      act(text.cancelRequest, async () => {
        await request("DELETE", `/players/me/friend-requests/${id(r.player)}`);
        render(text.requestCancelled(r.player.name));
      }, error, { class: "secondary", "data-key": `cancel-${r.player.id}` }))));
  return section("requests", text.requestsTitle,
    h("h3", {}, text.incoming),
    incoming.length ? h("ul", { class: "people incoming" }, incoming) : h("p", { class: "help" }, text.noIncoming),
    h("h3", {}, text.outgoing),
    outgoing.length ? h("ul", { class: "people outgoing" }, outgoing) : h("p", { class: "help" }, text.noOutgoing),
    error);
}

function blockButton(p, error, render) {
  return act(text.block, async () => {
    if (!await confirmed(text.blockQuestion(p.name), text.block)) return;
    await request("PUT", `/players/me/blocks/${encodeURIComponent(p.id)}`);
    render(text.blocked(p.name));
  }, error, { class: "secondary", "data-key": `block-${p.id}` });
}

function friendsList(friends, render, go) {
  const error = h("p", { class: "error", role: "alert" });
  const rows = friends.friends.map((f) => {
    const p = f.player, presence = f.presence || { status: "offline", game: null };
    const game = presence.game;
    return h("li", { class: `person presence-${presence.status}`, "data-player": p.id },
      h("span", { class: "person-name" }, ...who(p)),
      h("span", { class: `badge presence ${presence.status}` }, text.presence[presence.status]),
      h("div", { class: "row" },
        game ? act(text.joinFriend, async () => {
          const joined = await post(`/games/${encodeURIComponent(game)}/join`, seeded());
          go(`/play/games/${joined.id}`);
        }, error, { "data-key": `join-${p.id}`, "aria-label": text.joinFriendOf(p.name) }) : null,
        game ? h("a", { href: `/play/games/${game}`, "data-link": true, class: "button secondary",
                        "aria-label": text.watchFriendOf(p.name) }, text.watch) : null,
        act(text.removeFriend, async () => {
          if (!await confirmed(text.removeQuestion(p.name), text.removeFriend)) return;
          await request("DELETE", `/players/me/friends/${encodeURIComponent(p.id)}`);
          render(text.removed(p.name));
        }, error, { class: "secondary", "data-key": `remove-${p.id}` }),
        blockButton(p, error, render)));
  });
  return section("friends", text.friendsTitle(friends.friends.length, friends.caps.friends),
    rows.length ? h("ul", { class: "people friends" }, rows) : h("p", { class: "help" }, text.noFriends),
    error);
}

function blocksList(blocks, muted, render) {
  const error = h("p", { class: "error", role: "alert" });
  const row = (entry, label, path, done, key) => h("li", { class: "person", "data-player": entry.player.id },
    h("span", { class: "person-name" }, ...who(entry.player)),
    h("div", { class: "row" }, act(label, async () => {
      await request("DELETE", path);
      render(done(entry.player.name));
    }, error, { class: "secondary", "data-key": `${key}-${entry.player.id}` })));
  const blocked = blocks.blocks.map((b) => row(b, text.unblock,
    `/players/me/blocks/${encodeURIComponent(b.player.id)}`, text.unblocked, "unblock"));
  const silenced = muted.map((m) => row(m, text.unmute,
    `/players/me/table-talk/muted/${encodeURIComponent(m.player.id)}`, text.unmuted, "unmute"));
  return section("blocks", text.blocksTitle, h("p", { class: "help" }, text.blocksHelp),
    blocked.length ? h("ul", { class: "people blocks" }, blocked) : h("p", { class: "help" }, text.noBlocks),
    h("h3", {}, text.mutedTitle),
    silenced.length ? h("ul", { class: "people muted" }, silenced) : h("p", { class: "help" }, text.noMuted),
    error);
}

export function showFriends(main, go) {
  let left = false;
  main.replaceChildren(h("p", {}, text.loading));
  async function render(message) {
    let friends, blocks, talk;
    try {
      [friends, blocks, talk] = await Promise.all([get("/players/me/friends"),
        get("/players/me/blocks"), get("/players/me/table-talk").catch(() => ({ muted: [] }))]);
    } catch (err) {
      if (!left) main.replaceChildren(h("p", { class: "error", role: "alert" }, explain(err)));
      return;
    }
    if (left) return;
    const said = message
      ? h("p", { class: "flash", role: "status", tabindex: -1 }, message) : takeFlash();
    const focused = document.activeElement && document.activeElement.dataset
      ? document.activeElement.dataset.key : undefined;
    main.replaceChildren(h("div", { class: "friends-page" },
      h("h1", {}, text.friendsPageTitle), said,
      yourCode(friends, render), addForm(render), requests(friends, render),
      friendsList(friends, render, go), blocksList(blocks, talk.muted || [], render)));
    const again = focused && main.querySelector(`[data-key="${CSS.escape(focused)}"]`);
    if (message) said.focus();
    else if (again) again.focus();
  }
  render();
  // Someone asked, accepted, came online or sat down: the lists as they are now.
  const stop = onLobby((type) => { if (FRIEND_EVENTS.includes(type)) render(); });
  return () => { left = true; stop(); };
}

// /play/friends/<code>: asks before the request goes, then shows the friends page.
export function addByLink(main, code, go) {
  const error = h("p", { class: "error", role: "alert" });
  const send = h("button", { type: "button", "data-key": "send-request" }, text.sendRequest);
  send.addEventListener("click", async () => {
    send.disabled = true;
    try {
      const answer = await post("/players/me/friend-requests", { code });
      flash(requested(answer));
      go("/play/friends", { replace: true });
    } catch (err) {
      error.textContent = explainCode(err);
      send.disabled = false;
    }
  });
  main.replaceChildren(h("section", { class: "panel friend-link", "aria-labelledby": "friend-link-title" },
    h("h1", { id: "friend-link-title" }, text.addFriend),
    h("p", {}, text.addByLinkQuestion(code)),
    h("div", { class: "row" }, send,
      h("a", { href: "/play/", "data-link": true, class: "button secondary" }, text.cancel)),
    error));
  send.focus();
}

// A waiting table's "Invite a friend": one element for the whole wait, so that what
// is chosen and said stays when the table is drawn again; `update(view)` with each
// view hides those seated already.
export function inviteControl(gameId) {
  const select = h("select", { id: "invite-friend", name: "invite-friend" });
  const said = h("p", { class: "help", role: "status" });
  const send = h("button", { type: "button", "data-key": "invite-friend" }, text.inviteFriend);
  const none = h("p", { class: "help" }, text.noFriendsToInvite, " ",
    h("a", { href: "/play/friends", "data-link": true }, text.friendsLink));
  const pick = h("div", { class: "invite" }, h("label", { for: "invite-friend" }, text.inviteFriendLabel),
    select, send);
  const element = h("div", { class: "invite-friends" },
    h("h3", { id: "invite-friends-title" }, text.inviteFriendsTitle), pick, none, said);
  let friends = [], seated = new Set();

  function draw() {
    const left = friends.filter((f) => !seated.has(f.player.id));
    const chosen = select.value;
    select.replaceChildren(...left.map((f) => h("option", {
      value: f.player.id, selected: f.player.id === chosen,
    }, text.friendOption(f.player, text.presence[(f.presence || {}).status || "offline"]))));
    pick.hidden = left.length === 0;
    none.hidden = left.length > 0;
  }

  send.addEventListener("click", async () => {
    const friend = friends.find((f) => f.player.id === select.value);
    if (!friend) return;
    send.disabled = true;
    try {
      await post(`/games/${gameId}/invites`, { player: friend.player.id });
      said.className = "help";
      said.textContent = text.invited(friend.player.name);
    } catch (err) {
      said.className = "error";
      said.textContent = explain(err);
    }
    send.disabled = false;
  });

  async function load() {
    try {
      friends = (await get("/players/me/friends")).friends;
    } catch {
      friends = [];
    }
    draw();
  }
  load();
  const stop = onLobby((type) => { if (FRIEND_EVENTS.includes(type)) load(); });
  return {
    element,
    update(view) {
      seated = new Set(view.seats.filter((s) => s.player).map((s) => s.player.id));
      draw();
    },
    stop,
  };
}
