// /play/account: what signs the player in (the identities linked, a password), the
// devices signed in, everything held about them to download, and deleting the
// account (docs/api.md, "Accounts").
import { get, request, signedOut } from "./api.js";
import { codeSteps, explain } from "./codes.js";
import { field, h, takeFlash } from "./dom.js";
import { linkSteps } from "./keep.js";
import { providerLinks, signInMethods } from "./providers.js";
import { text } from "./text.js";

const section = (key, title, ...children) =>
  h("section", { class: "panel", "aria-labelledby": `${key}-title` },
    h("h2", { id: `${key}-title` }, title), ...children);

const alert = () => h("p", { class: "error", role: "alert" });

const focusIn = (element) => {
  const first = element.querySelector("input") || element.querySelector("a[href], button");
  if (first) first.focus();
};

const linkedAddress = (me) => (me.identities.find((i) => i.kind === "email") || {}).email;

function identities(me, render) {
  const list = me.identities.length === 0 ? h("p", {}, text.nothingLinked)
    : h("ul", { class: "identities" }, me.identities.map((i) => h("li", {},
      h("strong", {}, text.identityKinds[i.kind] || i.kind), i.email ? ` ${i.email}` : null,
      h("span", { class: "help" }, text.linkedOn(text.date(i.created_at))))));
  const add = h("button", { type: "button", class: "secondary" },
    me.identities.length ? text.linkAnother : text.keepAction);
  add.addEventListener("click", async () => {
    add.disabled = true;
    const steps = await linkSteps("link", (email) => render(text.kept(email)));
    add.replaceWith(steps);
    focusIn(steps);
  });
  return section("identities", text.identitiesTitle, list, add);
}

function password(me, render) {
  const address = linkedAddress(me);
  const now = h("p", {}, me.password_set ? text.passwordIsSet : text.noPassword);
  if (!address) return section("password", text.passwordTitle, now, h("p", { class: "help" }, text.passwordNeedsEmail));
  const start = h("button", { type: "button", class: "secondary" },
    me.password_set ? text.changePassword : text.setPassword);
  start.addEventListener("click", () => {
    const input = h("input", { id: "new-password", name: "new-password", type: "password",
                               required: true, minlength: 8, autocomplete: "new-password",
                               "aria-describedby": "new-password-help" });
    const steps = codeSteps({
      id: "password", email: address, sent: text.codeSent, submit: text.savePassword,
      extra: () => [h("input", { type: "hidden", name: "username", autocomplete: "username",
                                 value: address }),
                    field(text.newPasswordLabel, input, text.passwordRules)],
      done: async (email, code) => {
        await request("PUT", "/players/me/password", { new_password: input.value, email, code });
        render(text.passwordSaved(email));
      },
    });
    start.replaceWith(steps);
    focusIn(steps);
  });
  return section("password", text.passwordTitle, now, start);
}

function devices(sessions, render) {
  const error = alert();
  const rows = sessions.map((s) => {
    const name = s.device || text.unnamedDevice;
    const button = h("button", { type: "button", class: "secondary",
                                 "aria-label": text.signOutOf(name) }, text.signOut);
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        await request("DELETE", `/players/me/sessions/${encodeURIComponent(s.id)}`);
      } catch (err) {
        error.textContent = explain(err);
        button.disabled = false;
        return;
      }
      if (s.current) signedOut(text.signedOutHere);
      else render(text.deviceSignedOut(name));
    });
    return h("li", { class: s.current ? "session current" : "session", "data-session": s.id },
      h("p", { class: "session-name" }, h("strong", {}, name),
        s.current ? h("span", { class: "badge here" }, text.thisBrowser) : null),
      h("p", { class: "help" }, text.lastUsed(text.date(s.last_used_at || s.created_at)),
        s.network ? ` · ${text.network(s.network)}` : null),
      button);
  });
  return section("sessions", text.sessionsTitle, h("p", { class: "help" }, text.sessionsHelp),
    h("ul", { class: "sessions" }, rows), error);
}

// The export saved as a file: fetched with the token, handed over as a Blob.
function data() {
  const button = h("button", { type: "button", class: "secondary" }, text.download);
  const status = h("p", { class: "help", role: "status" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = text.preparing;
    try {
      const held = await get("/players/me/export");
      const url = URL.createObjectURL(new Blob([JSON.stringify(held, null, 2)],
                                               { type: "application/json" }));
      const link = h("a", { href: url, download: "uno-account.json", hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      status.textContent = text.downloaded;
    } catch (err) {
      status.textContent = explain(err);
    }
    button.disabled = false;
  });
  return section("data", text.dataTitle, h("p", { class: "help" }, text.dataHelp), button, status);
}

async function deleteAccount(proof) {
  await request("DELETE", "/players/me", proof);
  signedOut(text.accountDeleted);
}

// Confirmed with a code mailed to the linked address, or the linked Google or Apple
// account; a guest's, with nothing linked, by the click alone.
function deletion(me, listed) {
  const address = linkedAddress(me);
  const start = h("button", { type: "button", class: "danger" }, text.deleteAccount);
  const box = h("div", { class: "confirm" });
  start.addEventListener("click", () => {
    let confirm;
    if (address) {
      confirm = codeSteps({ id: "delete", email: address, sent: text.codeSent,
                            submit: text.deleteForGood,
                            done: (email, code) => deleteAccount({ email, code }) });
    } else if (me.identities.length) {
      confirm = providerLinks(listed, "delete", me.identities.map((i) => i.kind)) ||
        h("p", { class: "error" }, text.cannotConfirm);
    } else {
      const error = alert();
      const button = h("button", { type: "button", class: "danger" }, text.deleteForGood);
      button.addEventListener("click", async () => {
        button.disabled = true;
        try {
          await deleteAccount(undefined);
        } catch (err) {
          error.textContent = explain(err);
          button.disabled = false;
        }
      });
      confirm = h("div", {}, button, error);
    }
    const cancel = h("button", { type: "button", class: "secondary" }, text.keepIt);
    cancel.addEventListener("click", () => {
      box.replaceChildren();
      start.hidden = false;
      start.focus();
    });
    start.hidden = true;
    box.replaceChildren(h("p", { class: "warning" }, text.deleteWarning), confirm, cancel);
    focusIn(box);
  });
  return section("delete", text.deleteTitle, h("p", { class: "help" }, text.deleteHelp), start, box);
}

export function showAccount(main) {
  let left = false;
  main.replaceChildren(h("p", {}, text.loading));
  // Shows the account as the service has it now, with `message` on top.
  async function render(message) {
    let me, sessions, listed;
    try {
      [me, sessions, listed] = await Promise.all(
        [get("/players/me"), get("/players/me/sessions"), signInMethods()]);
    } catch (err) {
      if (!left) main.replaceChildren(h("p", { class: "error", role: "alert" }, explain(err)));
      return;
    }
    if (left) return;
    const said = message
      ? h("p", { class: "flash", role: "status", tabindex: -1 }, message) : takeFlash();
    main.replaceChildren(h("div", { class: "account" },
      h("h1", { id: "account-title" }, text.accountTitle(me.name)), said,
      identities(me, render), password(me, render), devices(sessions, render), data(),
      deletion(me, listed)));
    if (message) said.focus();
  }
  render();
  return () => { left = true; };
}
