// Proving an email address by a code mailed to it (docs/api.md, "Proofs"): the
// address, then the code with whatever else the step asks for; and what a refusal
// of the account endpoints means, in words.
import { post } from "./api.js";
import { field, h } from "./dom.js";
import { text } from "./text.js";

export function explain(err) {
  const details = err.details || {};
  if (err.status === 429) return text.tooSoon(Math.max(1, Math.ceil(details.retry_after || 1)));
  if (err.code === "credentials_refused") {
    if (text.refused[details.reason]) return text.refused[details.reason];
    return details.provider
      ? text.providerRefused(text.identityKinds[details.provider] || details.provider)
      : text.refusedOther;
  }
  if (text.accountErrors[err.code]) return text.accountErrors[err.code];
  // A new password is judged once the code proved the account, which used it up.
  if (details.fields && details.fields.new_password) {
    return text.passwordWeak(details.fields.new_password.join(" "));
  }
  if (details.fields) return Object.values(details.fields).flat().join(" ");
  return text.error(err.message);
}

const alert = () => h("p", { class: "error", role: "alert" });

// Runs `work` for a form's submission, its button disabled meanwhile; a refusal is
// explained in `error`.
function submitting(form, button, error, work) {
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    button.disabled = true;
    error.textContent = "";
    try {
      await work();
    } catch (err) {
      error.textContent = explain(err);
    }
    button.disabled = false;
  });
}

// Steps in a box of their own: the address (asked for, or `email` already known), a
// code mailed to it, then `done(email, code, form)` (`extra`: more controls for the
// code's step, such as a new password). Ids start with `id`; `sent(email)` says where
// the code went; `submit` names the last step's button.
export function codeSteps({ id, email = null, sent, submit, extra = () => [], done }) {
  const box = h("div", { class: "steps" });
  const show = (...children) => {
    box.replaceChildren(...children);
    const first = box.querySelector("input, button");
    if (first) first.focus();
  };

  async function send(address) {
    const answer = await post("/players/email-codes", { email: address });
    codeStep(answer.email);
  }

  function emailStep(typed = "") {
    const input = h("input", { id: `${id}-email`, name: "email", type: "email", required: true,
                               maxlength: 254, autocomplete: "email", value: typed });
    const button = h("button", { type: "submit" }, text.sendCode);
    const error = alert();
    const form = h("form", { class: "step" }, field(text.emailLabel, input), button, error);
    submitting(form, button, error, () => send(input.value.trim()));
    show(form);
  }

  function knownStep() {
    const button = h("button", { type: "submit" }, text.sendCode);
    const error = alert();
    const form = h("form", { class: "step" }, h("p", {}, text.codeWillGo(email)), button, error);
    submitting(form, button, error, () => send(email));
    show(form);
  }

  function codeStep(address) {
    const code = h("input", { id: `${id}-code`, name: "code", required: true, maxlength: 11,
                              inputmode: "numeric", autocomplete: "one-time-code",
                              "aria-describedby": `${id}-code-help` });
    const button = h("button", { type: "submit" }, submit);
    const error = alert();
    const said = h("p", { class: "help", role: "status" });
    const again = h("button", { type: "button", class: "secondary" }, text.sendAgain);
    again.addEventListener("click", async () => {
      error.textContent = said.textContent = "";
      try {
        await post("/players/email-codes", { email: address });
        said.textContent = text.sentAgain(address);
      } catch (err) {
        error.textContent = explain(err);
      }
    });
    const form = h("form", { class: "step" },
      h("p", { class: "sent" }, sent(address)),
      field(text.mailedCodeLabel, code, text.codeFormat), ...extra(),
      h("div", { class: "row" }, button, again,
        email ? null : h("button", { type: "button", class: "secondary",
                                     onclick: () => emailStep(address) }, text.otherAddress)),
      said, error);
    submitting(form, button, error, () => done(address, code.value.trim(), form));
    show(form);
  }

  if (email) knownStep();
  else emailStep();
  return box;
}
