// A player's profile (`me` for one's own, `bot:<strategy>` for a bot): their rating
// as one number and their rank, or what a provisional rating still lacks, their
// numbers, and the games they finished, a page at a time, each with its replay.
import { get } from "./api.js";
import { h } from "./dom.js";
import { pager, profilePath } from "./leaderboard.js";
import { text } from "./text.js";

// What the leaderboard asks of a rating (docs/api.md, "The leaderboard").
const RECORD_GAMES = 5, RECORD_OPPONENTS = 3;

const facts = (pairs) => h("dl", { class: "facts" }, pairs.map(([term, value]) =>
  h("div", {}, h("dt", {}, term), h("dd", {}, value))));

function standing(profile) {
  if (profile.rank !== null) return text.rank(profile.rank);
  if (!profile.provisional) return text.unranked;
  return text.provisional(Math.max(0, RECORD_GAMES - profile.rating.games),
    Math.max(0, RECORD_OPPONENTS - profile.opponents));
}

// One number a player reads; μ and σ, which it is made of, only for who asks.
const ratingOf = (profile) => [
  h("h2", {}, text.ratingTitle),
  h("p", { class: "rating" },
    h("span", { class: "rating-value" }, text.rating(profile.rating.ordinal)),
    h("span", { class: "rating-games" }, text.ratedGamesCount(profile.rating.games))),
  h("p", { class: "standing" }, standing(profile)),
  h("p", { class: "help rating-counts" }, text.ratingCounts),
  h("details", { class: "rating-how" },
    h("summary", {}, text.ratingHow),
    h("p", { class: "help" }, text.ratingHowHelp),
    facts([[text.ratingMu, text.number(profile.rating.mu)],
           [text.ratingSigma, text.number(profile.rating.sigma)],
           [text.ratingOrdinal, text.number(profile.rating.ordinal)]])),
];

function historyEntry(entry) {
  const who = entry.players.map((p) => {
    const name = p.player ? p.player.name : text.botName(p.bot, p.seat);
    return p.forfeited ? `${name} (${text.forfeited})` : name;
  }).join(", ");
  const counted = entry.rated && entry.rating_change
    ? `${text.ratingChange} ${text.change(entry.rating_change.ordinal)}`
    : text.unratedReasons[entry.unrated_reason] || text.unrated;
  return h("li", { class: "history-game", "data-game": entry.game },
    h("p", { class: "history-result" },
      entry.place === null ? null : h("strong", {}, `${text.place} ${text.placeOf(entry.place, entry.players.length)}`),
      entry.points === null ? null : h("span", {}, text.points(entry.points)),
      h("span", { class: entry.rated ? "rated" : "unrated" }, counted)),
    h("p", { class: "history-players" }, who),
    h("p", { class: "history-when" },
      h("span", {}, `${text.finishedAt} ${text.date(entry.finished_at)}`),
      h("a", { href: `/play/games/${entry.game}/replay`, "data-link": true, class: "button secondary",
               "aria-label": `${text.replay}: ${who}` }, text.replay)));
}

export function showProfile(main, id, page) {
  let left = false;
  main.replaceChildren(h("p", {}, text.loading));
  (async () => {
    let profile, games;
    try {
      profile = await get(`/players/${encodeURIComponent(id)}`);
      games = await get(`/players/${encodeURIComponent(profile.id)}/games?page=${page}`);
    } catch (err) {
      if (left) return;
      main.replaceChildren(h("p", { class: "error", role: "alert" },
        err.status === 404 ? text.notAPlayer : text.error(err.message)));
      return;
    }
    if (left) return;
    main.replaceChildren(h("div", { class: "profile" },
      h("section", { class: "panel", "aria-labelledby": "profile-title" },
        h("h1", { id: "profile-title" }, profile.bot ? text.botLabel(profile.bot) : profile.name),
        ratingOf(profile),
        h("h2", {}, text.statsTitle),
        facts([[text.gamesPlayed, String(profile.stats.games_played)],
               [text.gamesWon, String(profile.stats.games_won)],
               [text.roundsWon, String(profile.stats.rounds_won)],
               [text.totalPoints, String(profile.stats.points)],
               // Partners games are counted apart, won by both partners.
               ...(profile.stats.partners_games_played
                 ? [[text.partnersGames, text.partnersRecord(profile.stats.partners_games_played,
                     profile.stats.partners_games_won)]] : [])])),
      h("section", { class: "panel", "aria-labelledby": "history-title" },
        h("h2", { id: "history-title" }, text.historyTitle),
        games.results.length === 0 ? h("p", { class: "history-empty" }, text.noHistory)
          : h("ol", { class: "history", "aria-label": text.historyCaption }, games.results.map(historyEntry)),
        pager(games, page, profilePath(id)))));
  })();
  return () => { left = true; };
}
