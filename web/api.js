// The public HTTP API (docs/api.md), with the player's token kept in this browser.
import { text } from "./text.js";

const API = "/api/v1";
const TOKEN_KEY = "uno.player";
// Dispatched on window once this browser has no player any more (its session signed
// out, here or elsewhere, or the account deleted); its detail is what to tell them.
export const SIGNED_OUT = "uno:signed-out";

export class ApiError extends Error {
  constructor(status, error) {
    super((error && error.message) || `HTTP ${status}`);
    this.status = status;
    this.code = error && error.code;
    this.details = error && error.details;
  }
}

export function player() {
  try {
    return JSON.parse(localStorage.getItem(TOKEN_KEY));
  } catch {
    return null;
  }
}

export function forgetPlayer() {
  localStorage.removeItem(TOKEN_KEY);
}

export function signedOut(message) {
  forgetPlayer();
  window.dispatchEvent(new CustomEvent(SIGNED_OUT, { detail: message }));
}

export async function request(method, path, body) {
  const headers = { Accept: "application/json" };
  const me = player();
  if (me) headers.Authorization = `Bearer ${me.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(API + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const error = new ApiError(res.status, data && data.error);
    // The token stopped working (its session signed out from another device, or all
    // of them): the player is no longer signed in here. A disabled player's token
    // works again once enabled, so that one is kept.
    const now = player();
    if (res.status === 401 && error.code === "not_authenticated" && me && now &&
        now.token === me.token) {
      signedOut(text.signedOutElsewhere);
    }
    throw error;
  }
  return data;
}

const BROWSERS = [["Edg/", "Edge"], ["OPR/", "Opera"], ["Firefox/", "Firefox"],
                  ["CriOS/", "Chrome"], ["Chrome/", "Chrome"], ["Safari/", "Safari"]];
const PLATFORMS = [[/Android/, "Android"], [/iPhone|iPad|iPod/, "iOS"], [/CrOS/, "ChromeOS"],
                   [/Windows/, "Windows"], [/Mac/, "macOS"], [/Linux/, "Linux"]];

// What the player's list of devices signed in calls this browser: its name and
// system, as far as the browser tells them.
export function deviceName() {
  const agent = navigator.userAgent || "";
  const hints = navigator.userAgentData;
  const brands = (hints && hints.brands ? hints.brands : []).map((b) => b.brand)
    .filter((brand) => !/not.?a.?brand/i.test(brand));
  const known = BROWSERS.find(([mark]) => agent.includes(mark));
  const browser = brands.find((brand) => brand !== "Chromium") || brands[0] || (known && known[1]);
  const system = (hints && hints.platform) || (PLATFORMS.find(([mark]) => mark.test(agent)) || [])[1];
  return text.deviceName(browser, system).slice(0, 64);
}

// Keeps an answer of sign-up or sign-in ({id, name, token, session}) as this
// browser's player.
function keep(signed) {
  localStorage.setItem(TOKEN_KEY, JSON.stringify(signed));
  return signed;
}

export async function signUp(name) {
  return keep(await request("POST", "/players", { name, device: deviceName() }));
}

// `proof`: {email, code}, {email, password} or {provider, id_token, nonce}.
export async function signIn(proof) {
  return keep(await request("POST", "/players/sign-in", { ...proof, device: deviceName() }));
}

export const get = (path) => request("GET", path);
export const post = (path, body) => request("POST", path, body);
export { API };
