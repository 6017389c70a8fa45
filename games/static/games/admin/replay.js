// The replay's slider: it shows the event it points at as it moves, and goes there
// when let go. It belongs to no form (form="none"), so that only `seq` is sent.
(function () {
  "use strict";
  const slider = document.getElementById("slider");
  const seq = document.getElementById("seq");
  const form = document.getElementById("replay-nav");
  if (!slider || !seq || !form) {
    return;
  }
  slider.addEventListener("input", () => {
    seq.value = slider.value;
  });
  slider.addEventListener("change", () => {
    seq.value = slider.value;
    form.submit();
  });
})();
