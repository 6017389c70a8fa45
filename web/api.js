// The public HTTP API (docs/api.md), with the player's token kept in this browser.
const API = "/api/v1";
const TOKEN_KEY = "uno.player";

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
  if (!res.ok) throw new ApiError(res.status, data && data.error);
  return data;
}

export async function signUp(name) {
  const made = await request("POST", "/players", { name });
  localStorage.setItem(TOKEN_KEY, JSON.stringify(made));
  return made;
}

export const get = (path) => request("GET", path);
export const post = (path, body) => request("POST", path, body);
export { API };
