// Web Push (docs/api.md, "A web page"): the service worker /play/sw.js, the service's
// VAPID key from /push/config, and the browser's subscription registered as a device
// of the player, whose id this browser keeps to remove it again.
import { get, player, post, request } from "./api.js";
import { text } from "./text.js";

const DEVICE_KEY = "uno.device";
const WORKER = "/play/sw.js";
const SCOPE = "/play/";

export const pushSupported = () =>
  "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

let config = null;

// The service's public key (base64url), or null when it sends no Web Push.
async function publicKey() {
  config = config || await get("/push/config");
  return (config.webpush && config.webpush.public_key) || null;
}

function keyBytes(base64url) {
  const base64 = (base64url + "=".repeat((4 - (base64url.length % 4)) % 4))
    .replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

function sameKey(buffer, base64url) {
  if (!buffer) return false;
  const a = new Uint8Array(buffer), b = keyBytes(base64url);
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

// The device this browser registered for the player signed in now, if any.
function storedDevice() {
  try {
    const device = JSON.parse(localStorage.getItem(DEVICE_KEY));
    const me = player();
    return device && me && device.player === me.id ? device : null;
  } catch {
    return null;
  }
}

async function subscription() {
  const registration = await navigator.serviceWorker.getRegistration(SCOPE);
  return registration ? registration.pushManager.getSubscription() : null;
}

// Subscribes (again, if the subscription was made with another key: the operator
// changed the service's keys) and registers the subscription; a registration of the
// same subscription only updates the device.
async function register(key) {
  const registration = await navigator.serviceWorker.register(WORKER, { scope: SCOPE });
  await navigator.serviceWorker.ready;
  let current = await registration.pushManager.getSubscription();
  if (current && !sameKey(current.options.applicationServerKey, key)) {
    await current.unsubscribe();
    current = null;
  }
  current = current || await registration.pushManager.subscribe({
    userVisibleOnly: true, applicationServerKey: keyBytes(key),
  });
  const device = await post("/players/me/devices", {
    kind: "webpush", subscription: current.toJSON(), label: text.pushDeviceLabel,
  });
  localStorage.setItem(DEVICE_KEY, JSON.stringify({ id: device.id, player: player().id }));
}

// "unsupported" (this browser has no Web Push), "off" (the service sends none),
// "denied" (the person blocked notifications), "on", or "available".
export async function pushState() {
  if (!pushSupported() || !player()) return "unsupported";
  if (!(await publicKey())) return "off";
  if (Notification.permission === "denied") return "denied";
  if (Notification.permission === "granted" && storedDevice() && (await subscription())) {
    return "on";
  }
  return "available";
}

// From a click only: a browser asks for the permission in answer to the person.
export async function enablePush() {
  if (!pushSupported()) return "unsupported";
  const key = await publicKey();
  if (!key) return "off";
  const permission = await Notification.requestPermission();
  if (permission !== "granted") return permission === "denied" ? "denied" : "available";
  await register(key);
  return "on";
}

// The device removed from the service first, so that nothing more is sent, then the
// subscription ended.
export async function disablePush() {
  const device = storedDevice();
  if (device) {
    try {
      await request("DELETE", `/players/me/devices/${device.id}`);
    } catch (err) {
      if (err.status !== 404) throw err; // gone already: the push service dropped it
    }
  }
  localStorage.removeItem(DEVICE_KEY);
  if (pushSupported()) {
    const current = await subscription();
    if (current) await current.unsubscribe();
  }
  return "available";
}

// On every start, once the player has turned notifications on here: browsers change
// subscriptions now and then, and the service's key may have changed.
export async function renewPush() {
  if (!pushSupported() || !storedDevice() || Notification.permission !== "granted") return;
  const key = await publicKey();
  if (key) await register(key);
}

// The player left this browser (signed out, or the account deleted; the service
// dropped their devices or no longer takes this token): the subscription ends here.
export async function forgetPush() {
  localStorage.removeItem(DEVICE_KEY);
  if (!pushSupported()) return;
  const current = await subscription();
  if (current) await current.unsubscribe();
}
