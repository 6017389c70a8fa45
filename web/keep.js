// Keeping an account: a guest's lives only in this browser until it links an email
// address (proved by a code mailed to it) or a Google or Apple account, with which
// the player signs in on any other device (docs/api.md, "The flows, step by step").
import { post } from "./api.js";
import { codeSteps } from "./codes.js";
import { h } from "./dom.js";
import { providerLinks, signInMethods } from "./providers.js";
import { text } from "./text.js";

// The ways to link one more identity; `linked(email)` once an address is linked.
export async function linkSteps(id, linked) {
  const providers = providerLinks(await signInMethods(), "link");
  return h("div", { class: "link-steps" },
    providers, providers ? h("p", { class: "or" }, text.orEmail) : null,
    codeSteps({
      id, sent: text.codeSent, submit: text.linkIt,
      done: async (email, code) => {
        const identity = await post("/players/me/identities", { email, code });
        linked(identity.email || email);
      },
    }));
}

const focusFirst = (element) => {
  const first = element.querySelector("input") || element.querySelector("a[href], button");
  if (first) first.focus();
};

// The lobby's nudge for a player nothing is linked to; it goes once one is.
export function keepNudge(me) {
  if (me.recoverable !== false) return null;
  const section = h("section", { class: "panel keep", "aria-labelledby": "keep-title" });
  const start = h("button", { type: "button", "data-key": "keep" }, text.keepAction);
  start.addEventListener("click", async () => {
    start.disabled = true;
    const steps = await linkSteps("keep", (email) => {
      const done = h("p", { class: "done", role: "status", tabindex: -1 }, text.kept(email));
      section.replaceWith(done);
      done.focus();
    });
    start.replaceWith(steps);
    focusFirst(steps);
  });
  section.append(h("h2", { id: "keep-title" }, text.keepTitle), h("p", {}, text.keepHelp), start);
  return section;
}
