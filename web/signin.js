// /play/sign-in: a person who plays on another device signs this browser in with
// what they linked there: a code mailed to their address, their password, or Google
// or Apple.
import { signIn } from "./api.js";
import { codeSteps, explain } from "./codes.js";
import { field, h, takeFlash } from "./dom.js";
import { providerLinks, signInMethods } from "./providers.js";
import { text } from "./text.js";

function passwordForm(go) {
  const email = h("input", { id: "signin-password-email", name: "email", type: "email",
                             required: true, maxlength: 254, autocomplete: "username" });
  const password = h("input", { id: "signin-password", name: "password", type: "password",
                                required: true, autocomplete: "current-password" });
  const button = h("button", { type: "submit" }, text.signIn);
  const error = h("p", { class: "error", role: "alert" });
  const form = h("form", { class: "step" },
    field(text.emailLabel, email), field(text.passwordLabel, password), button, error);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    button.disabled = true;
    error.textContent = "";
    try {
      await signIn({ email: email.value.trim(), password: password.value });
      go("/play/", { replace: true });
    } catch (err) {
      error.textContent = explain(err);
      button.disabled = false;
    }
  });
  return form;
}

export async function showSignIn(main, go) {
  main.replaceChildren(h("p", {}, text.loading));
  const notice = takeFlash();
  const listed = await signInMethods();
  if (!location.pathname.startsWith("/play/sign-in")) return; // gone elsewhere meanwhile
  const providers = providerLinks(listed, "sign-in");
  const steps = codeSteps({
    id: "signin", sent: text.codeSentIfLinked, submit: text.signIn,
    done: async (email, code) => {
      await signIn({ email, code });
      go("/play/", { replace: true });
    },
  });
  main.replaceChildren(h("section", { class: "panel signin", "aria-labelledby": "signin-title" },
    notice,
    h("h1", { id: "signin-title" }, text.signInTitle),
    h("p", {}, text.signInIntro),
    providers, providers ? h("p", { class: "or" }, text.orEmail) : null,
    steps,
    h("details", { class: "password-way" },
      h("summary", {}, text.withPassword), passwordForm(go)),
    h("p", { class: "help" }, text.noAccountYet, " ",
      h("a", { href: "/play/", "data-link": true }, text.playAsNew))));
  main.querySelector("#signin-email").focus();
}
