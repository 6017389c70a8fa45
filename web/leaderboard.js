// The leaderboard, a page at a time, each name a link to its profile; and the
// previous/next links of any paged list of the API.
import { get } from "./api.js";
import { h } from "./dom.js";
import { text } from "./text.js";

const PER_PAGE = 50;

export const profilePath = (id) => `/play/players/${encodeURIComponent(id)}`;

// Links to the pages around `page` of a list answer ({count, next, previous}).
export function pager(answer, page, path) {
  const pages = Math.max(1, Math.ceil(answer.count / PER_PAGE));
  if (pages === 1) return null;
  const link = (to, label, rel) => h("a", { href: `${path}?page=${to}`, "data-link": true,
                                            class: "button secondary", rel }, label);
  return h("nav", { class: "pager", "aria-label": text.pageOf(page, pages) },
    answer.previous ? link(page - 1, `← ${text.previousPage}`, "prev") : null,
    h("span", {}, text.pageOf(page, pages)),
    answer.next ? link(page + 1, `${text.nextPage} →`, "next") : null);
}

export function showLeaderboard(main, page) {
  let left = false;
  main.replaceChildren(h("p", {}, text.loading));
  (async () => {
    let board;
    try {
      board = await get(`/leaderboard?page=${page}`);
    } catch (err) {
      if (!left) main.replaceChildren(h("p", { class: "error", role: "alert" }, text.error(err.message)));
      return;
    }
    if (left) return;
    const rows = board.results.map((r) => h("tr", {},
      h("td", {}, String(r.rank)),
      h("th", { scope: "row" }, h("a", { href: profilePath(r.player.id), "data-link": true },
        r.player.bot ? text.botLabel(r.player.bot) : r.player.name,
        r.player.tag ? h("span", { class: "tag" }, text.tag(r.player.tag)) : null)),
      h("td", {}, text.rating(r.rating.ordinal)),
      h("td", {}, String(r.rating.games))));
    main.replaceChildren(h("section", { class: "panel leaderboard", "aria-labelledby": "leaderboard-title" },
      h("h1", { id: "leaderboard-title" }, text.leaderboardTitle),
      h("p", { class: "help" }, text.leaderboardHelp),
      rows.length === 0 ? h("p", { class: "leaderboard-empty" }, text.leaderboardEmpty)
        : h("table", { class: "list" },
          h("caption", { class: "visually-hidden" }, text.leaderboardCaption),
          h("thead", {}, h("tr", {},
            h("th", { scope: "col" }, text.rankColumn), h("th", { scope: "col" }, text.nameColumn),
            h("th", { scope: "col" }, text.ratingTitle),
            h("th", { scope: "col" }, text.ratedGames))),
          h("tbody", {}, rows)),
      pager(board, page, "/play/leaderboard")));
  })();
  return () => { left = true; };
}
