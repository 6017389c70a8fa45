// A small element builder: h("button", {class: "x", onclick: f, "aria-label": "..."}, ...children).
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) element.addEventListener(key.slice(2), value);
    else if (key === "class") element.className = value;
    else if (key === "dataset") Object.assign(element.dataset, value);
    else if (value === true) element.setAttribute(key, "");
    else element.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

// Replaces the children of `parent`, keeping the focus on the element with the same
// data-key as before, so that a keyboard player does not lose their place.
export function replace(parent, ...children) {
  const focused = document.activeElement && document.activeElement.dataset
    ? document.activeElement.dataset.key : undefined;
  parent.replaceChildren(...children.flat().filter(Boolean));
  if (focused) {
    const again = parent.querySelector(`[data-key="${CSS.escape(focused)}"]`);
    if (again) again.focus();
  }
}

// Asks to pick one of `options` ({label, value, class}) in the page's dialog;
// resolves to the value, or null when cancelled.
export function choose(title, options, cancelLabel) {
  const dialog = document.getElementById("choice");
  document.getElementById("choice-title").textContent = title;
  const cancel = document.getElementById("choice-cancel");
  cancel.textContent = cancelLabel;
  return new Promise((resolve) => {
    let chosen = null;
    const buttons = options.map((option) => h("button", {
      type: "button", class: option.class, "data-value": option.value,
      onclick: () => { chosen = option.value; dialog.close(); },
    }, option.label));
    document.getElementById("choice-buttons").replaceChildren(...buttons);
    cancel.onclick = () => dialog.close();
    dialog.addEventListener("close", () => resolve(chosen), { once: true });
    dialog.showModal();
    buttons[0].focus();
  });
}

// A labelled control, with an optional help line under it (the control's
// aria-describedby names it).
export function field(label, control, help) {
  const id = control.id;
  return h("div", { class: "field" },
    h("label", { for: id }, label), control,
    help ? h("p", { class: "help", id: `${id}-help` }, help) : null);
}

// A message for the next screen shown (what happened on the way to it), shown once.
let flashed = null;

export function flash(message, { error = false } = {}) {
  flashed = { message, error };
}

export function takeFlash() {
  const shown = flashed;
  flashed = null;
  return shown && h("p", { class: shown.error ? "flash error" : "flash",
                           role: shown.error ? "alert" : "status" }, shown.message);
}
