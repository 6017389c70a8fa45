// Google and Apple (docs/api.md, "Ways to sign in"): a link sends the person to the
// provider's sign-in with a fresh nonce and state, which this tab keeps with what to
// do on the way back (link the account, sign in with it, or delete the account
// with it as proof); the provider sends them back to /play/ with an ID token in the
// fragment, which goes to the service with the nonce.
import { get, player, post, request, signIn, signedOut } from "./api.js";
import { explain } from "./codes.js";
import { flash, h } from "./dom.js";
import { text } from "./text.js";

const PENDING = "uno.provider";
const KEPT = 5;
const REDIRECT = "/play/";

let methods = null;

// The service's ways to sign in; no provider when it cannot be asked.
export function signInMethods() {
  methods = methods || get("/players/sign-in/methods").catch(() => {
    methods = null;
    return { providers: [] };
  });
  return methods;
}

const random = () => Array.from(crypto.getRandomValues(new Uint8Array(16)),
  (byte) => byte.toString(16).padStart(2, "0")).join("");

function pending() {
  try {
    return JSON.parse(sessionStorage.getItem(PENDING)) || [];
  } catch {
    return [];
  }
}

function providerUrl(provider, nonce, state) {
  const url = new URL(provider.authorize_url);
  const apple = provider.id === "apple";
  url.search = new URLSearchParams({
    client_id: provider.client_ids[0],
    redirect_uri: location.origin + REDIRECT,
    response_type: apple ? "code id_token" : "id_token",
    ...(apple ? { response_mode: "fragment" } : { scope: "openid email" }),
    nonce, state,
  }).toString();
  return url.href;
}

// "Continue with Google" and the like, one link per provider listed (of `only`,
// when given: the kinds of the identities linked); `purpose`: "link", "sign-in"
// or "delete".
export function providerLinks(listed, purpose, only = null) {
  const links = listed.providers.filter((p) => p.client_ids.length && (!only || only.includes(p.id)))
    .map((provider) => {
      const nonce = random(), state = random();
      const remember = () => {
        const me = player();
        const kept = pending().filter((p) => p.state !== state).slice(1 - KEPT);
        kept.push({ state, nonce, purpose, provider: provider.id, name: provider.name,
                    player: me && me.id, back: location.pathname });
        sessionStorage.setItem(PENDING, JSON.stringify(kept));
      };
      let href;
      try {
        href = providerUrl(provider, nonce, state);
      } catch {
        return null; // not an address: nowhere to send the person
      }
      return h("a", { href, class: `button provider provider-${provider.id}`,
                      "data-provider": provider.id, onclick: remember, onauxclick: remember },
        purpose === "delete" ? text.confirmWith(provider.name) : text.continueWith(provider.name));
    }).filter(Boolean);
  return links.length ? h("div", { class: "providers" }, links) : null;
}

// The provider's answer in the page's fragment, when its state is one this tab sent:
// the fragment is cleared at once (it may carry a token).
export function providerReturn() {
  const got = new URLSearchParams(location.hash.slice(1));
  if (!got.has("state")) return null;
  history.replaceState(null, "", location.pathname + location.search);
  const all = pending();
  const sent = all.find((p) => p.state === got.get("state"));
  if (!sent) return null;
  sessionStorage.setItem(PENDING, JSON.stringify(all.filter((p) => p !== sent)));
  return { ...sent, idToken: got.get("id_token"), error: got.get("error") };
}

// Does what the person went to the provider for, then shows the page to go on from,
// saying how it went.
export async function finishProvider(back, go) {
  const me = player();
  let next = back.back;
  if (!back.idToken) {
    flash(text.providerStopped(back.name), { error: true });
  } else if (back.purpose !== "sign-in" && (!me || me.id !== back.player)) {
    next = "/play/"; // another player is signed in here now
  } else {
    const proof = { provider: back.provider, id_token: back.idToken, nonce: back.nonce };
    try {
      if (back.purpose === "sign-in") {
        await signIn(proof);
        next = "/play/";
      } else if (back.purpose === "link") {
        await post("/players/me/identities", proof);
        flash(text.linkedWith(back.name));
      } else {
        await request("DELETE", "/players/me", proof);
        return signedOut(text.accountDeleted);
      }
    } catch (err) {
      flash(explain(err), { error: true });
    }
  }
  go(next, { replace: true });
}
