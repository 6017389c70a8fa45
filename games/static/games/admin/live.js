// Follows a waiting or running game on its admin page: listens to the game's stream and
// redraws #game-live (fields, seats, log) from a fresh copy of this same page whenever
// the stream says the game moved on. The page renders the log exactly as a reload would,
// so the script never builds rows itself. Loaded by admin/games/game/live.html (a file
// of its own: the admin's Content-Security-Policy runs no inline script).
//
// Log pages: on the newest page of the log the page follows the log, onto a new page
// when the log outgrows it (log_page=last); on an older page it stays on that page and
// only the counts change.
(function () {
  "use strict";
  const root = document.getElementById("game-live");
  const badge = document.getElementById("game-live-status");
  const streamUrl = JSON.parse(document.getElementById("game-live-stream").textContent);
  if (!root || !badge || !window.EventSource || !window.fetch || !window.DOMParser) {
    return;
  }

  let over = false;
  let fetching = null;
  let again = false;

  const clock = () => new Date().toLocaleTimeString([], { hour12: false });

  function say(text, state) {
    badge.textContent = text;
    badge.dataset.state = state;
  }

  function target() {
    const url = new URL(window.location.href);
    url.hash = "";
    if (root.dataset.logPage && root.dataset.logPage === root.dataset.logPages) {
      url.searchParams.set("log_page", "last");
    }
    return url;
  }

  async function redraw() {
    const answer = await fetch(target(), {
      credentials: "same-origin",
      headers: { Accept: "text/html" },
      cache: "no-store",
    });
    if (!answer.ok) {
      throw new Error("the page answered " + answer.status);
    }
    const copy = new DOMParser().parseFromString(await answer.text(), "text/html");
    const fresh = copy.getElementById("game-live");
    if (!fresh) {
      // Redirected to the login page: the session ended.
      throw new Error("signed out");
    }
    root.innerHTML = fresh.innerHTML;
    Object.assign(root.dataset, fresh.dataset);
    // The game's name carries its status, in the title, the breadcrumbs and the heading.
    document.title = copy.title;
    for (const selector of [".breadcrumbs", "#content > h2"]) {
      const here = document.querySelector(selector);
      const there = copy.querySelector(selector);
      if (here && there) {
        here.innerHTML = there.innerHTML;
      }
    }
  }

  // One redraw at a time; changes heard meanwhile are folded into one more redraw,
  // so a burst of moves costs two page loads, not one per move.
  async function refresh() {
    if (fetching) {
      again = true;
      return fetching;
    }
    fetching = (async () => {
      do {
        again = false;
        await redraw();
      } while (again);
    })();
    try {
      await fetching;
      say(over ? "■ game over" : "● live — updated " + clock(), over ? "over" : "live");
    } catch (error) {
      stop("○ not live (" + error.message + ") — reload the page");
    } finally {
      fetching = null;
    }
  }

  // The admin page is same-origin with the API, so the session cookie goes along:
  // the stream lets an active staff member watch as a spectator.
  const source = new EventSource(streamUrl);

  function stop(text) {
    source.close();
    say(text, "stopped");
  }

  source.addEventListener("game", (event) => {
    const view = JSON.parse(event.data);
    // Compared with what the page shows rather than skipping the first view: after a
    // reconnect (or under a plain WSGI server, which closes after each opening) the
    // first view may already be newer than the page.
    const behind =
      view.last_seq > Number(root.dataset.lastSeq) || view.version > Number(root.dataset.version);
    if (behind) {
      refresh();
    } else if (!fetching && !over) {
      say("● live — updated " + clock(), "live");
    }
  });

  source.addEventListener("end", (event) => {
    over = true;
    source.close();
    if (fetching) {
      // Started by the view just before the end, so it reads the final state already.
      return;
    }
    const end = JSON.parse(event.data);
    if (end.last_seq > Number(root.dataset.lastSeq) || end.status !== root.dataset.status) {
      refresh();
    } else {
      say("■ game over", "over");
    }
  });

  source.addEventListener("error", () => {
    // CONNECTING means the browser retries by itself; CLOSED means the stream
    // refused (signed out, no longer staff): it would never come back.
    if (source.readyState === EventSource.CLOSED && !over) {
      stop("○ not live — reload the page");
    }
  });
})();
